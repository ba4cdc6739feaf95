import Crypto
import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// Why a tenancy operation was refused.
public enum TenancyError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownAccount(String)
    case unknownApp(String)

    public var description: String {
        switch self {
        case .unknownAccount(let id): "there is no account \(id); create it with POST /v1/admin/accounts first"
        case .unknownApp(let id): "there is no app \(id); create it with POST /v1/admin/apps first"
        }
    }
}

/// Accounts, apps, API keys and product catalogs (`schema/004_tenancy.sql`).
public struct TenancyStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    // MARK: Accounts

    public func createAccount(name: String) async throws -> Account {
        let id = RandomToken.identifier(prefix: "acct_")
        let rows = try await pool.query(
            """
            INSERT INTO ledger.accounts (id, name) VALUES (\(id), \(name)) RETURNING \(unescaped: Self.accountColumns)
            """)
        return try Self.account(rows[0])
    }

    public func account(id: String) async throws -> Account? {
        try await pool.query("SELECT \(unescaped: Self.accountColumns) FROM ledger.accounts WHERE id = \(id)")
            .first.map(Self.account)
    }

    // MARK: Apps

    /// The settings of a new app.
    public struct NewApp: Sendable {
        public var accountID: String
        public var name: String
        public var bundleID: String
        public var appleAppID: Int64?
        public var transferPolicy: TransferPolicy
        public var allowXcode: Bool
        public var appAccountTokenPolicy: AppAccountTokenConvention
        public var refundPolicy: RefundPolicy

        public init(
            accountID: String, name: String, bundleID: String, appleAppID: Int64? = nil,
            transferPolicy: TransferPolicy = .transfer, allowXcode: Bool = false,
            appAccountTokenPolicy: AppAccountTokenConvention = .ignore, refundPolicy: RefundPolicy = .byConsumption
        ) {
            self.accountID = accountID
            self.name = name
            self.bundleID = bundleID
            self.appleAppID = appleAppID
            self.transferPolicy = transferPolicy
            self.allowXcode = allowXcode
            self.appAccountTokenPolicy = appAccountTokenPolicy
            self.refundPolicy = refundPolicy
        }
    }

    /// The target is aliased: Citus (13.2) writes the RETURNING list of an INSERT … SELECT into a reference table
    /// with the table's own name, which its shard does not have, unless the statement names it.
    public func createApp(_ app: NewApp) async throws -> AppRecord {
        let id = RandomToken.identifier(prefix: "app_")
        let rows = try await pool.query(
            """
            INSERT INTO ledger.apps AS apps (id, account_id, name, bundle_id, apple_app_id, transfer_policy, allow_xcode,
                                             app_account_token_policy, refund_policy)
            SELECT \(id), a.id, \(app.name), \(app.bundleID), \(app.appleAppID)::bigint, \(app.transferPolicy.apiName),
                   \(app.allowXcode), \(app.appAccountTokenPolicy.rawValue), \(app.refundPolicy.rawValue)
            FROM ledger.accounts a WHERE a.id = \(app.accountID)
            RETURNING \(unescaped: Self.appColumns)
            """)
        guard let row = rows.first else { throw TenancyError.unknownAccount(app.accountID) }
        return try Self.app(row)
    }

    /// Every account, oldest first.
    package func accounts() async throws -> [Account] {
        try await pool.query("SELECT \(unescaped: Self.accountColumns) FROM ledger.accounts ORDER BY created_at, id").map(Self.account)
    }

    /// Every app of every account, oldest first.
    package func apps() async throws -> [AppRecord] {
        try await pool.query("SELECT \(unescaped: Self.appColumns) FROM ledger.apps ORDER BY created_at, id").map(Self.app)
    }

    public func app(id: String) async throws -> AppRecord? {
        try await pool.query("SELECT \(unescaped: Self.appColumns) FROM ledger.apps WHERE id = \(id)").first.map(Self.app)
    }

    /// Sets the app's refund policy; nil when there is no such app.
    public func setRefundPolicy(app appID: String, _ policy: RefundPolicy) async throws -> AppRecord? {
        try await pool.query(
            """
            UPDATE ledger.apps SET refund_policy = \(policy.rawValue) WHERE id = \(appID) RETURNING \(unescaped: Self.appColumns)
            """
        ).first.map(Self.app)
    }

    public func apps(accountID: String) async throws -> [AppRecord] {
        try await pool.query(
            """
            SELECT \(unescaped: Self.appColumns) FROM ledger.apps WHERE account_id = \(accountID) ORDER BY created_at, id
            """
        ).map(Self.app)
    }

    // MARK: Keys

    /// Creates a key; the returned `key` is the only copy (the database keeps its SHA-256). The target is aliased for
    /// Citus, as in `createApp`.
    public func createKey(app appID: String, kind: APIKeyKind, name: String?) async throws -> (record: APIKeyRecord, key: String) {
        let key = kind.prefix + RandomToken.secret()
        let id = RandomToken.identifier(prefix: "key_")
        let rows = try await pool.query(
            """
            INSERT INTO ledger.api_keys AS api_keys (id, app_id, kind, name, key_hash)
            SELECT \(id), a.id, \(kind.rawValue), \(name), \(Self.hash(key)) FROM ledger.apps a WHERE a.id = \(appID)
            RETURNING \(unescaped: Self.keyColumns)
            """)
        guard let row = rows.first else { throw TenancyError.unknownApp(appID) }
        return (try Self.key(row), key)
    }

    public func keys(app appID: String) async throws -> [APIKeyRecord] {
        try await pool.query(
            """
            SELECT \(unescaped: Self.keyColumns) FROM ledger.api_keys WHERE app_id = \(appID) ORDER BY created_at, id
            """
        ).map(Self.key)
    }

    /// Revokes a key of `appID` (keeping the first revocation time when revoked again); nil when the app has no
    /// such key.
    public func revokeKey(app appID: String, keyID: String) async throws -> APIKeyRecord? {
        // Two statements: Citus evaluates no STABLE function (now()) inside an UPDATE's COALESCE.
        try await pool.query("UPDATE ledger.api_keys SET revoked_at = now() WHERE id = \(keyID) AND app_id = \(appID) AND revoked_at IS NULL")
        return try await pool.query("SELECT \(unescaped: Self.keyColumns) FROM ledger.api_keys WHERE id = \(keyID) AND app_id = \(appID)")
            .first.map(Self.key)
    }

    /// The live (unrevoked) key record for a presented key, or nil.
    public func authenticate(key: String) async throws -> APIKeyRecord? {
        guard key.hasPrefix(APIKeyKind.public.prefix) || key.hasPrefix(APIKeyKind.secret.prefix), key.utf8.count <= 200
        else { return nil }
        return try await pool.query(
            """
            SELECT \(unescaped: Self.keyColumns) FROM ledger.api_keys WHERE key_hash = \(Self.hash(key)) AND revoked_at IS NULL
            """
        ).first.map(Self.key)
    }

    // MARK: Products

    /// Creates or replaces a product of `appID`'s catalog.
    /// A product of the app's catalog as the app defines it (the store stamps the update time).
    public struct ProductDefinition: Sendable {
        public var productID: String
        public var type: ProductType
        public var subscriptionGroup: String?
        public var entitlements: [String]

        public init(productID: String, type: ProductType, subscriptionGroup: String?, entitlements: [String]) {
            self.productID = productID
            self.type = type
            self.subscriptionGroup = subscriptionGroup
            self.entitlements = entitlements
        }
    }

    public func putProduct(app appID: String, _ product: ProductDefinition) async throws -> ProductRecord {
        let rows = try await pool.query(
            """
            INSERT INTO ledger.products (app_id, product_id, product_type, subscription_group, entitlements, updated_at)
            VALUES (\(appID), \(product.productID), \(product.type.apiName), \(product.subscriptionGroup),
                    \(TextArray(product.entitlements)), now())
            ON CONFLICT (app_id, product_id) DO UPDATE SET product_type = EXCLUDED.product_type,
                subscription_group = EXCLUDED.subscription_group, entitlements = EXCLUDED.entitlements,
                updated_at = EXCLUDED.updated_at
            RETURNING updated_at
            """)
        // The row is what was sent but for its time (Citus runs no function such as array_to_json in an upsert's RETURNING).
        return ProductRecord(
            productID: product.productID, type: product.type, subscriptionGroup: product.subscriptionGroup,
            entitlements: product.entitlements, updatedAt: try rows[0].decode(Instant.self, at: 0))
    }

    public func products(app appID: String) async throws -> [ProductRecord] {
        try await pool.query(
            """
            SELECT \(unescaped: Self.productColumns) FROM ledger.products WHERE app_id = \(appID) ORDER BY product_id
            """
        ).map(Self.product)
    }

    // MARK: Server secrets

    /// The named server-wide secret (32 random bytes), created by the first instance that asks.
    public func serverSecret(named name: String) async throws -> [UInt8] {
        let candidate = RandomToken.bytes(32)
        let created = try await pool.query(
            """
            WITH inserted AS (
                INSERT INTO ledger.server_secrets (name, secret) VALUES (\(name), \(candidate))
                ON CONFLICT (name) DO NOTHING RETURNING secret)
            SELECT secret FROM inserted UNION ALL SELECT secret FROM ledger.server_secrets WHERE name = \(name)
            """)
        if let row = created.first { return try row.decode([UInt8].self, at: 0) }
        // Another instance inserted it at the same moment: the conflict waited for its commit, but this statement's
        // snapshot is older and sees neither row. A new statement sees the committed one.
        let stored = try await pool.query("SELECT secret FROM ledger.server_secrets WHERE name = \(name)")
        guard let row = stored.first else { throw EventStoreError.invalidEvent("the server secret \(name) vanished while it was created") }
        return try row.decode([UInt8].self, at: 0)
    }

    // MARK: Rows

    static func hash(_ key: String) -> [UInt8] { Array(SHA256.hash(data: Array(key.utf8))) }

    static let accountColumns = "id, name, created_at"
    static let appColumns = """
        id, account_id, name, bundle_id, apple_app_id, transfer_policy, allow_xcode, app_account_token_policy, created_at, refund_policy
        """
    static let keyColumns = "id, app_id, kind, name, created_at, revoked_at"
    package static let productColumns = "product_id, product_type, subscription_group, array_to_json(entitlements)::text, updated_at"

    static func account(_ row: PostgresRow) throws -> Account {
        Account(
            id: try row.decode(String.self, at: 0), name: try row.decode(String.self, at: 1),
            createdAt: try row.decode(Instant.self, at: 2))
    }

    static func app(_ row: PostgresRow) throws -> AppRecord {
        AppRecord(
            id: try row.decode(String.self, at: 0), accountID: try row.decode(String.self, at: 1),
            name: try row.decode(String.self, at: 2), bundleID: try row.decode(String.self, at: 3),
            appleAppID: try row.decode(Int64?.self, at: 4),
            transferPolicy: TransferPolicy(apiName: try row.decode(String.self, at: 5)) ?? .transfer,
            allowXcode: try row.decode(Bool.self, at: 6),
            appAccountTokenPolicy: AppAccountTokenConvention(rawValue: try row.decode(String.self, at: 7)) ?? .ignore,
            refundPolicy: RefundPolicy(rawValue: try row.decode(String.self, at: 9)) ?? .byConsumption,
            createdAt: try row.decode(Instant.self, at: 8))
    }

    static func key(_ row: PostgresRow) throws -> APIKeyRecord {
        APIKeyRecord(
            id: try row.decode(String.self, at: 0), appID: try row.decode(String.self, at: 1),
            kind: APIKeyKind(rawValue: try row.decode(String.self, at: 2)) ?? .public,
            name: try row.decode(String?.self, at: 3), createdAt: try row.decode(Instant.self, at: 4),
            revokedAt: try row.decode(Instant?.self, at: 5))
    }

    package static func product(_ row: PostgresRow) throws -> ProductRecord {
        let entitlements = try JSONDecoder().decode([String].self, from: Data(try row.decode(String.self, at: 3).utf8))
        return ProductRecord(
            productID: try row.decode(String.self, at: 0),
            type: ProductType(apiName: try row.decode(String.self, at: 1)) ?? .nonConsumable,
            subscriptionGroup: try row.decode(String?.self, at: 2), entitlements: entitlements,
            updatedAt: try row.decode(Instant.self, at: 4))
    }
}
