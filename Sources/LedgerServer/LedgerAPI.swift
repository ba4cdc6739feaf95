import AppStoreSync
import AppStoreVerification
import Crypto
import Foundation
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerRecording
import LedgerStore
import LedgerTenancy
import LedgerWebhooks
import Logging
import PostgresClient

/// The API's composition root: the stores, the recorder and the authenticator, built once per server; the router
/// hands each group of routes only what it uses.
package struct LedgerAPI: Sendable {
    package struct Configuration: Sendable {
        /// `LEDGER_ADMIN_TOKEN`; nil or empty disables the admin API.
        package var adminToken: String?
        /// The roots App Store data must chain to (Apple's by default).
        package var roots: TrustRoots
        /// Largest request body, in bytes.
        package var maxBodyBytes: Int
        package var requestTimeout: Duration
        /// How long a `uid` cookie is valid, in seconds.
        package var cookieLifetime: Int64
        /// How long a write from the app or its backend waits for the projections to include it, so that a read
        /// right after it sees it (0: do not wait).
        package var readYourWrites: Duration
        /// The service's clock (tests move it).
        package var clock: LedgerClock
        /// Live streams to apps (`LiveHub`).
        package var live: LiveHub.Settings
        /// The status reads' cache (`StatusCache`; `LEDGER_STATUS_CACHE_MB`).
        package var statusCache = StatusCache.Settings()
        /// Webhook delivery settings (retries, outbound limits); the API checks endpoint URLs against them.
        package var webhooks: WebhookSettings
        /// The App Store Server API clients of the apps configured for it (`LEDGER_APPSTORE_API_CONFIG`); nil: none.
        package var appStore: AppStoreClients?
        /// How long a read carrying `Ledger-Read-After` waits for the read replica before it reads the primary
        /// (`LEDGER_READ_REPLICA_WAIT_MS`; `StatusReads`).
        package var replicaWait: Duration = .seconds(1)
        /// How long a console session lasts from sign-in, in seconds.
        package var consoleSessionLifetime: Int64 = 8 * 3600
        /// How long a console session lasts without a request, in seconds.
        package var consoleIdleLifetime: Int64 = 30 * 60
        /// The installation's master key (`LEDGER_MASTER_KEY_FILE`), which seals the users' data keys (pseudonyms,
        /// docs/erasure.md) and the operators' one-time-password secrets. Required: `make` refuses to start without it
        /// (`ledger serve` always has one, by default a key file in the data folder).
        package var masterKey: MasterKeySource?
        /// The digest signing key (`--signing-key`), which signs the erasure certificates; nil: erasure refuses.
        package var digestKey: Curve25519.Signing.PrivateKey?

        package init(
            adminToken: String? = nil, roots: TrustRoots = .appleDefaults(), maxBodyBytes: Int = 1 << 20,
            requestTimeout: Duration = .seconds(30), cookieLifetime: Int64 = 30 * 86_400,
            readYourWrites: Duration = .seconds(2), clock: LedgerClock = .system, webhooks: WebhookSettings = WebhookSettings(),
            live: LiveHub.Settings = LiveHub.Settings(), appStore: AppStoreClients? = nil
        ) {
            self.adminToken = adminToken
            self.roots = roots
            self.maxBodyBytes = maxBodyBytes
            self.requestTimeout = requestTimeout
            self.cookieLifetime = cookieLifetime
            self.readYourWrites = readYourWrites
            self.clock = clock
            self.webhooks = webhooks
            self.live = live
            self.appStore = appStore
        }
    }

    let configuration: Configuration
    let pool: PostgresPool
    let store: EventStore
    let tenancy: TenancyStore
    package let tenancyCache: TenancyCache
    let auth: Authenticator
    let cookie: UserCookie
    let body: RequestBodyReader
    let recorder: LedgerRecorder
    /// Users' pseudonyms: what the routes look a user up by, and how what leaves the ledger names users again.
    package let identities: IdentityStore
    /// Erasing users (`ErasureRoutes`); nil without a digest key.
    let erasure: UserErasure?
    let users: UserQueries
    /// Status reads: the status cache, the primary, or the read replica (`StatusReads`).
    let reads: StatusReads
    let readYourWrites: ReadYourWrites
    let webhooks: WebhookStore
    let logger: Logger
    /// The live streams of this instance; `LiveService` runs it.
    package let live: LiveHub
    /// The status reads' cache of this instance; `StatusCacheService` keeps it current.
    package let statusCache: StatusCache
    /// Signs the status answers apps keep offline (`StatusSigning`).
    let statusKeys: StatusSigningKeys

    /// Builds the API on the service's pool; fetches (or creates) the cookie-signing secret shared by all instances.
    /// `progress` is the one this process's projection worker advances (a fresh one: waits read the database).
    /// `replica`: a pool on a streaming replica of `pool`'s database, for status reads (`LEDGER_READ_DATABASE_URL`).
    package static func make(
        pool: PostgresPool, replica: PostgresPool? = nil, configuration: Configuration,
        progress: ProjectionProgress = ProjectionProgress(), logger: Logger
    ) async throws -> LedgerAPI {
        guard let keys = configuration.masterKey else { throw LedgerAPIError.noMasterKey }
        let tenancy = TenancyStore(pool: pool)
        let secret = try await tenancy.serverSecret(named: "uid_cookie")
        let identities = IdentityStore(pool: pool, keys: keys)
        try await identities.prepare()
        return LedgerAPI(
            configuration: configuration, pool: pool, replica: replica, tenancy: tenancy, identities: identities,
            cookieKey: secret, progress: progress, logger: logger)
    }

    init(
        configuration: Configuration, pool: PostgresPool, replica: PostgresPool? = nil, tenancy: TenancyStore, identities: IdentityStore,
        cookieKey: [UInt8], progress: ProjectionProgress, logger: Logger
    ) {
        // Before the stores below make their metrics: swift-metrics binds each to the backend in place when it is made.
        LedgerMetrics.bootstrap()
        self.configuration = configuration
        self.pool = pool
        self.store = EventStore(pool: pool, logger: logger)
        self.tenancy = tenancy
        self.tenancyCache = TenancyCache(tenancy: tenancy)
        self.cookie = UserCookie(key: cookieKey, lifetime: configuration.cookieLifetime)
        self.auth = Authenticator(
            cache: tenancyCache, adminToken: configuration.adminToken, cookie: cookie, clock: configuration.clock,
            operatorTokens: OperatorTokenStore(pool: pool), record: OperatorActionLog(pool: pool), identities: identities)
        self.body = RequestBodyReader(limit: configuration.maxBodyBytes)
        self.identities = identities
        self.statusKeys = StatusSigningKeys(keys: identities.masterKeys)
        self.erasure = configuration.digestKey.map { UserErasure(identities: identities, signingKey: $0) }
        self.recorder = LedgerRecorder(
            store: store, tenancy: tenancy, identities: identities, roots: configuration.roots, clock: configuration.clock)
        self.users = UserQueries(pool: pool)
        let statusCache = StatusCache(pool: pool, settings: configuration.statusCache, logger: logger)
        progress.observe { statusCache.wake() }
        self.statusCache = statusCache

        self.webhooks = WebhookStore(pool: pool, identities: identities)
        self.logger = logger
        let cache = tenancyCache
        let live = LiveHub(
            pool: pool, identities: identities, catalog: { try await cache.products(app: $0) }, clock: configuration.clock,
            settings: configuration.live, logger: logger)
        progress.observe { live.wake() }
        self.live = live
        let visibility = ProjectionVisibility(pool: pool, progress: progress)
        self.readYourWrites = ReadYourWrites(visibility: visibility, timeout: configuration.readYourWrites)
        self.reads = StatusReads(
            primary: pool, replica: replica, wait: configuration.replicaWait, identities: identities, cache: statusCache,
            visibility: visibility)
    }
}

/// Why the API cannot be made.
package enum LedgerAPIError: Error, CustomStringConvertible {
    case noMasterKey

    package var description: String {
        switch self {
        case .noMasterKey:
            "the API needs the installation's master key (LEDGER_MASTER_KEY_FILE; `ledger serve` makes one in the data folder by default)"
        }
    }
}
