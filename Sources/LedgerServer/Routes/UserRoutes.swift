import ExactJSON
import Foundation
import Hummingbird
import LedgerDomain
import LedgerStore
import PostgresClient

/// `GET /v1/users/{user_id}…`: what a user has, and the audit timeline of their purchases. A secret key reads
/// any user of its app; a public key only the user of its signed `uid` cookie.
struct UserRoutes {
    let api: LedgerAPI

    func register(on routes: RouteTable) {
        let api = api
        routes.on(.get, "/v1/users/{user_id}") { request, context in
            let (app, user) = try await Self.user(api, request, context)
            let owned = try await api.users.ownedStates(app: app.id, owners: [user])
            let catalog = try await api.tenancy.products(app: app.id)
            let now = api.now()
            let snapshot = UserSnapshot(appUserID: user, subscriptions: owned.subscriptions, purchases: owned.purchases,
                                        catalog: catalog.catalog, at: now)
            return try JSONResponse.make(status: .ok, body: UserBody(
                app_user_id: user,
                subscriptions: owned.subscriptions.filter { $0.isKnown }.map { SubscriptionBody($0, at: now) },
                entitlements: EntitlementBody.list(snapshot.entitlements),
                one_time_purchases: owned.purchases.compactMap { PurchaseBody($0, at: now) },
                unconsumed: snapshot.unconsumedPurchases.map(UnconsumedBody.init),
                products_status: ProductStatusBody.list(snapshot.productsStatus, catalog: catalog),
                intro_offer_eligibility: IntroOfferEligibilityBody.list(snapshot, subscriptions: owned.subscriptions, catalog: catalog)))
        }
        routes.on(.get, "/v1/users/{user_id}/entitlements") { request, context in
            let (app, user) = try await Self.user(api, request, context)
            let snapshot = try await api.users.snapshot(
                app: app.id, user: user, catalog: try await api.tenancy.products(app: app.id).catalog, at: api.now())
            return try JSONResponse.make(status: .ok, body: EntitlementsAnswer(
                app_user_id: user, entitlements: EntitlementBody.list(snapshot.entitlements)))
        }
        routes.on(.get, "/v1/users/{user_id}/unconsumed") { request, context in
            let (app, user) = try await Self.user(api, request, context)
            let snapshot = try await api.users.snapshot(app: app.id, user: user, catalog: Catalog(), at: api.now())
            return try JSONResponse.make(status: .ok, body: UnconsumedAnswer(
                app_user_id: user, unconsumed: snapshot.unconsumedPurchases.map(UnconsumedBody.init)))
        }
        routes.on(.get, "/v1/users/{user_id}/events") { request, context in
            let (app, user) = try await Self.user(api, request, context)
            let after = try Self.integer(request, "after", default: 0, range: 0...Int64.max)
            let limit = try Self.integer(request, "limit", default: 100, range: 1...1000)
            let events = try await api.users.timeline(app: app.id, user: user, after: after, limit: Int(limit))
            return try JSONResponse.make(status: .ok, body: TimelineAnswer(
                app_user_id: user, events: events.map(TimelineEvent.init),
                next_after: Nullable(events.count == Int(limit) ? events.last?.position : nil)))
        }
    }

    /// The caller's app and the user it may read: the path's user, which a public key's cookie must name.
    static func user(_ api: LedgerAPI, _ request: Request, _ context: BasicRequestContext) async throws -> (AppRecord, String) {
        let caller = try await api.auth.requireAppKey(request, secretOnly: false)
        let claimed = try Check.text(try context.path("user_id"), "user_id", max: 256)
        return (caller.app, try api.auth.user(request, caller: caller, claimed: claimed))
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
    var app_user_id: String
    var entitlements: [EntitlementBody]
}

struct UnconsumedAnswer: Encodable {
    var app_user_id: String
    var unconsumed: [UnconsumedBody]
}

struct TimelineAnswer: Encodable {
    var app_user_id: String
    var events: [TimelineEvent]
    /// Pass as `after` for the next page; null on the last page.
    var next_after: Nullable<Int64>
}

/// One event of the audit timeline: payload and metadata as stored (verbatim JSON).
struct TimelineEvent: Encodable {
    var position: Int64
    var stream: String
    var type: String
    var schema_version: Int32
    var occurred_at: String
    var recorded_at: String
    var payload: RawJSON
    var metadata: RawJSON

    init(_ event: RecordedEvent) {
        position = event.position
        stream = event.streamID
        type = event.type
        schema_version = event.schemaVersion
        occurred_at = event.occurredAt.rfc3339
        recorded_at = event.recordedAt.rfc3339
        payload = RawJSON(text: event.payload)
        metadata = RawJSON(text: event.metadata)
    }
}
