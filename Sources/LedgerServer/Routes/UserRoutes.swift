import ExactJSON
import Foundation
import Hummingbird
import LedgerDomain
import LedgerStore
import LedgerTenancy
import LedgerWire
import UTCTime

/// `GET /v1/users/{user_id}…`: what a user has, and the audit timeline of their purchases. A secret key reads
/// any user of its app; a public key only the user of its signed `uid` cookie (`UserAuthentication`).
struct UserRoutes {
    let reads: StatusReads
    let cache: TenancyCache
    let signing: StatusSigning
    let clock: LedgerClock

    func register(on routes: RouteTable, auth: Authenticator) {
        let (reads, cache, signing, clock) = (reads, cache, signing, clock)
        let perUser = routes.group("/v1/users/{user_id}", UserAuthentication(auth: auth, timeout: routes.timeout))
        perUser.on(.get, "/v1/users/{user_id}") { request, context in
            let (caller, user) = try context.actor()
            let app = caller.app
            let (owned, source) = try await reads.owned(request, app: app.id, user: user)
            let catalog = try await cache.products(app: app.id)
            let now = clock.now()
            // The read models name the user by pseudonym (`owned.owner`); the answer names them as the app does.
            let snapshot = UserSnapshot(appUserID: owned.owner ?? user, owned: owned, catalog: catalog.catalog, at: now)
            return try signing.response(
                request, caller: caller, user: user, at: now, headers: [StatusReads.sourceHeader: source.rawValue],
                body: UserBody(
                    appUserID: user,
                    known: owned.isKnown,
                    subscriptions: owned.subscriptions.filter { $0.isKnown }.map { SubscriptionBody($0, at: now) },
                    entitlements: EntitlementBody.list(snapshot.entitlements),
                    oneTimePurchases: owned.purchases.compactMap { PurchaseBody($0, at: now) },
                    grants: owned.grants.map { GrantBody($0, at: now) },
                    unconsumed: snapshot.unconsumedPurchases.map(UnconsumedBody.init),
                    productsStatus: ProductStatusBody.list(snapshot.productsStatus, catalog: catalog),
                    introOfferEligibility: IntroOfferEligibilityBody.list(
                        UserView(appUserID: owned.owner ?? user, subscriptions: owned.subscriptions, purchases: []), catalog: catalog)))
        }
        perUser.on(.get, "/v1/users/{user_id}/entitlements") { request, context in
            let (caller, user) = try context.actor()
            let catalog = try await cache.products(app: caller.app.id).catalog
            let (owned, source) = try await reads.owned(request, app: caller.app.id, user: user)
            let snapshot = UserSnapshot(appUserID: owned.owner ?? user, owned: owned, catalog: catalog, at: clock.now())
            return try Self.from(
                source,
                JSONResponse.make(
                    status: .ok,
                    body: EntitlementsAnswer(
                        appUserID: user, known: owned.isKnown, entitlements: EntitlementBody.list(snapshot.entitlements))))
        }
        perUser.on(.get, "/v1/users/{user_id}/unconsumed") { request, context in
            let (caller, user) = try context.actor()
            let (owned, source) = try await reads.owned(request, app: caller.app.id, user: user)
            let snapshot = UserSnapshot(appUserID: owned.owner ?? user, owned: owned, catalog: Catalog(), at: clock.now())
            return try Self.from(
                source,
                JSONResponse.make(
                    status: .ok,
                    body: UnconsumedAnswer(
                        appUserID: user, known: owned.isKnown, unconsumed: snapshot.unconsumedPurchases.map(UnconsumedBody.init))))
        }
        perUser.on(.get, "/v1/users/{user_id}/events") { request, context in
            let (caller, user) = try context.actor()
            let after = try Self.integer(request, "after", default: 0, range: 0...Int64.max)
            let limit = try Self.integer(request, "limit", default: 100, range: 1...1000)
            let (events, source) = try await reads.timeline(request, app: caller.app.id, user: user, after: after, limit: Int(limit))
            return try Self.from(
                source,
                JSONResponse.make(
                    status: .ok,
                    body: TimelineAnswer(
                        appUserID: user, events: events.map(TimelineEvent.init),
                        nextAfter: Nullable(events.count == Int(limit) ? events.last?.position : nil))))
        }
    }

    /// The answer, marked with where it was read.
    static func from(_ source: StatusReads.Source, _ response: Response) -> Response {
        var response = response
        response.headers[StatusReads.sourceHeader] = source.rawValue
        return response
    }

    static func integer(_ request: Request, _ name: String, default value: Int64, range: ClosedRange<Int64>) throws(APIError) -> Int64 {
        guard let text = try request.query(name) else { return value }
        guard let number = Int64(text), range.contains(number) else {
            throw .badRequest("`\(name)` must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}

struct EntitlementsAnswer: Encodable {
    var appUserID: String
    var known: Bool
    var entitlements: [EntitlementBody]

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case known
        case entitlements
    }
}

struct UnconsumedAnswer: Encodable {
    var appUserID: String
    var known: Bool
    var unconsumed: [UnconsumedBody]

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case known
        case unconsumed
    }
}

struct TimelineAnswer: Encodable {
    var appUserID: String
    var events: [TimelineEvent]
    /// Pass as `after` for the next page; null on the last page.
    var nextAfter: Nullable<Int64>

    enum CodingKeys: String, CodingKey {
        case appUserID = "app_user_id"
        case events
        case nextAfter = "next_after"
    }
}

/// One event of the audit timeline: payload and metadata as stored (verbatim JSON).
struct TimelineEvent: Encodable {
    var position: Int64
    var stream: String
    var type: String
    var schemaVersion: Int32
    var occurredAt: String
    var recordedAt: String
    var payload: RawJSON
    var metadata: RawJSON

    enum CodingKeys: String, CodingKey {
        case position
        case stream
        case type
        case schemaVersion = "schema_version"
        case occurredAt = "occurred_at"
        case recordedAt = "recorded_at"
        case payload
        case metadata
    }

    init(_ event: RecordedEvent) {
        position = event.position
        stream = event.streamID
        type = event.type
        schemaVersion = event.schemaVersion
        occurredAt = event.occurredAt.rfc3339
        recordedAt = event.recordedAt.rfc3339
        payload = RawJSON(text: event.payload)
        metadata = RawJSON(text: event.metadata)
    }
}
