import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import UTCTime

/// The app key a request presented, with its app.
struct AppCaller: Sendable {
    var key: APIKeyRecord
    var app: AppRecord
    var isSecret: Bool { key.kind == .secret }
}

/// Who may do what: the admin token (operators and finance), app keys (`Authorization: Bearer <key>` or the
/// seed's `APIKey` header), and for public keys the signed `uid` cookie naming the one user they may act for.
struct Authenticator: Sendable {
    let cache: TenancyCache
    /// SHA-256 of `LEDGER_ADMIN_TOKEN`; nil disables the admin API.
    let adminTokenDigest: [UInt8]?
    let cookie: UserCookie
    let clock: LedgerClock
    /// Operators' tokens (`lop_…`), the admin API's usual credential.
    let operatorTokens: OperatorTokenStore
    /// The operator record, where `AdminAuthentication` records break-glass uses and writes.
    let record: OperatorActionLog
    /// How the operator record names an app user named in a path: by pseudonym.
    let identities: IdentityStore
    /// Wrong break-glass tokens slow down, then lock, their source address (as failed console sign-ins do).
    let throttle: SignInThrottleStore

    init(
        cache: TenancyCache, adminToken: String?, cookie: UserCookie, clock: LedgerClock, operatorTokens: OperatorTokenStore,
        record: OperatorActionLog, identities: IdentityStore
    ) {
        self.identities = identities
        self.cache = cache
        self.adminTokenDigest = adminToken.flatMap { $0.isEmpty ? nil : Array(SHA256.hash(data: Array($0.utf8))) }
        self.cookie = cookie
        self.clock = clock
        self.operatorTokens = operatorTokens
        self.record = record
        self.throttle = SignInThrottleStore(pool: record.pool)
    }

    static let apiKeyHeader = HTTPField.Name("APIKey")!

    /// Requires an operator's token (`lop_…`: its operator, with the role it carries) or, as break-glass, the admin
    /// token (it may do everything; `AdminAuthentication` records every use). Wrong break-glass tokens count against
    /// `address` (`SignInThrottleStore`): after a few, 429 until the wait is over, whatever is presented.
    func requireAdmin(_ request: Request, address: String?) async throws -> AdminCaller {
        guard let presented = Self.bearer(request) else {
            throw APIError.unauthorized("send an operator token as `Authorization: Bearer lop_…` (`ledger operators tokens create`)")
        }
        if presented.hasPrefix(OperatorTokenStore.prefix) {
            guard let caller = try await operatorTokens.authenticate(presented, at: clock.now()) else {
                throw APIError.unauthorized("the operator token is not valid: unknown, expired or revoked, or its operator is disabled")
            }
            return .operator(caller)
        }
        let subjects = address.map { [SignInThrottleStore.address($0)] } ?? []
        let now = clock.now()
        do { try await throttle.check(subjects, at: now) } catch OperatorError.signInThrottled(let until) {
            let seconds = max(1, (until.microsecondsSinceEpoch - now.microsecondsSinceEpoch + 999_999) / 1_000_000)
            throw APIError(
                .tooManyRequests, "too_many_attempts", "too many wrong tokens from this address: try again after \(until.rfc3339)",
                headers: [.retryAfter: String(seconds)])
        }
        guard let digest = adminTokenDigest else {
            try await throttle.failed(subjects, at: now)
            throw APIError.unauthorized("the operator token is not valid (operator tokens start with lop_)")
        }
        // Compare digests so the comparison takes the same time whatever the token.
        let candidate = Array(SHA256.hash(data: Array(presented.utf8)))
        guard zip(candidate, digest).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else {
            try await throttle.failed(subjects, at: now)
            throw APIError.unauthorized("the token is not valid")
        }
        return .breakGlass
    }

    /// Requires a live app key (public or secret); `secretOnly` refuses public keys.
    func requireAppKey(_ request: Request, secretOnly: Bool) async throws -> AppCaller {
        let presented = try Self.presentedKey(request)
        guard let key = try await cache.key(presented), let app = try await cache.app(id: key.appID) else { throw Self.invalidKey }
        return try Self.caller(key: key, app: app, secretOnly: secretOnly)
    }

    /// `requireAppKey` for a middleware, which runs outside the handler's deadline: answered from the tenancy cache
    /// without suspending when the key and its app are cached (most requests), else under a deadline of its own (a
    /// database that does not answer is a 504, `withRequestTimeout`), whose task and wait each request paid before.
    func appKey(_ request: Request, secretOnly: Bool, timeout: Duration) async throws -> AppCaller {
        if let (key, app) = cache.cachedKeyAndApp(try Self.presentedKey(request)) {
            return try Self.caller(key: key, app: app, secretOnly: secretOnly)
        }
        return try await withRequestTimeout(timeout) { try await self.requireAppKey(request, secretOnly: secretOnly) }
    }

    /// The app key a request presents, as the tenancy store looks it up.
    private static func presentedKey(_ request: Request) throws(APIError) -> String {
        guard let presented = request.headers[apiKeyHeader] ?? bearer(request) else {
            throw APIError.unauthorized("send an app key as `Authorization: Bearer <key>` or in the `APIKey` header")
        }
        return trimmingOptionalWhitespace(presented)
    }

    private static let invalidKey = APIError.unauthorized(
        "the app key is not valid (unknown or revoked); create one with POST /v1/admin/apps/{app_id}/keys")

    private static func caller(key: APIKeyRecord, app: AppRecord, secretOnly: Bool) throws(APIError) -> AppCaller {
        let caller = AppCaller(key: key, app: app)
        if secretOnly && !caller.isSecret {
            throw APIError.forbidden("this endpoint needs the app's secret key; public keys (pk_…) are for the app itself")
        }
        return caller
    }

    /// `caller`, a secret key of the app named in the path.
    static func owned(_ caller: AppCaller, by appID: String) throws(APIError) -> AppCaller {
        guard caller.app.id == appID else { throw APIError.forbidden("this key belongs to another app") }
        return caller
    }

    /// The user a request may act for. A secret key may act for `claimed` (any user of its app); a public key only
    /// for the user of its signed `uid` cookie, and `claimed` (when given) must be that user.
    func user(_ request: Request, caller: AppCaller, claimed: String?) throws(APIError) -> String {
        if caller.isSecret {
            guard let claimed else { throw .badRequest("name the user: a `user-id` header or query parameter") }
            return claimed
        }
        let uid = request.cookies[UserCookie.userName]?.value
        let signature = request.cookies[UserCookie.signatureName]?.value
        switch cookie.verify(app: caller.app.id, uid: uid, signature: signature, now: clock.now().secondsSinceEpoch) {
        case .failure(let refusal):
            throw .unauthorized(refusal.message)
        case .success(let user):
            if let claimed, claimed != user {
                throw .forbidden("a public key may only act for the user of its `uid` cookie, not for another user")
            }
            return user
        }
    }

    /// `value` without leading and trailing spaces and tabs (HTTP's optional whitespace, RFC 9110 §5.6.3), on its UTF-8
    /// bytes: Foundation's `trimmingCharacters(in:)` goes through `NSString` on Linux, dear on every request.
    static func trimmingOptionalWhitespace(_ value: some StringProtocol) -> String {
        let text = Substring(value)
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = text.utf8.firstIndex(where: { !isBlank($0) }), let last = text.utf8.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(text[first...last])
    }

    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = trimmingOptionalWhitespace(parts[1])
        return token.isEmpty ? nil : token
    }
}
