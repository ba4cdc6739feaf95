import Foundation
import Hummingbird
import LedgerDomain
import LedgerOperators
import LedgerStore
import LedgerTenancy
import LedgerWebhooks
import LedgerWire
import UTCTime

/// Webhook endpoints of an app, their deliveries and redeliveries: under `/v1/apps/{app_id}/webhooks` for the app's
/// secret key, and the same under `/v1/admin/apps/{app_id}/webhooks` for the admin token.
struct WebhookRoutes {
    let store: WebhookStore
    let cache: TenancyCache
    let body: RequestBodyReader
    let settings: WebhookSettings

    struct EndpointInput: StrictBody {
        var url: String?
        var description: String?
        var eventTypes: [String]?
        var environments: [String]?
        var status: String?
        /// Whether `description` was sent (PATCH: `null` clears it, leaving it out keeps it).
        var mentionsDescription = false

        enum CodingKeys: String, CodingKey {
            case url
            case description
            case eventTypes = "event_types"
            case environments
            case status
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            url = try c.decodeIfPresent(String.self, forKey: .url)
            description = try c.decodeIfPresent(String.self, forKey: .description)
            eventTypes = try c.decodeIfPresent([String].self, forKey: .eventTypes)
            environments = try c.decodeIfPresent([String].self, forKey: .environments)
            status = try c.decodeIfPresent(String.self, forKey: .status)
            mentionsDescription = c.contains(.description)
        }
        static let members = plain("url", "event_types", "environments", "status").merging(["description": .nullable]) { $1 }
    }

    struct RedeliverInput: StrictBody {
        var fromPosition: Int64?
        var toPosition: Int64?
        var since: String?
        var until: String?

        enum CodingKeys: String, CodingKey {
            case fromPosition = "from_position"
            case toPosition = "to_position"
            case since
            case until
        }
        static let members = plain("from_position", "to_position", "since", "until")
    }

    func register(on routes: RouteTable, auth: Authenticator) {
        let appKey = routes.group("/v1/apps/{app_id}/webhooks", AppKeyAuthentication(auth: auth, timeout: routes.timeout, appFromPath: true))
        register(appKey, prefix: "/v1/apps/{app_id}/webhooks") { _, context in try context.caller().app.id }
        let admin = routes.group(
            "/v1/admin/apps/{app_id}/webhooks",
            // Endpoints are the admin's; redelivery is support's.
            AdminAuthentication(auth: auth) { $0.uri.path.hasSuffix("/redeliver") ? [.support] : [.admin] })
        let cache = cache
        register(admin, prefix: "/v1/admin/apps/{app_id}/webhooks") { _, context in
            let appID = try context.path("app_id")
            guard try await cache.app(id: appID) != nil else { throw TenancyError.unknownApp(appID) }
            return appID
        }
    }

    private func register(
        _ group: RouteGroup, prefix: String,
        app: @escaping @Sendable (Request, LedgerRequestContext) async throws -> String
    ) {
        let (store, body, settings) = (store, body, settings)
        group.on(.post, prefix) { request, context in
            let appID = try await app(request, context)
            let input = try await body.json(EndpointInput.self, from: request)
            guard let url = input.url else { throw APIError.badRequest("`url` is required: where the ledger POSTs the webhooks") }
            guard input.status == nil else { throw APIError.badRequest("a new endpoint is enabled; set `status` later with PATCH") }
            let (description, eventTypes) = (try Self.description(input.description), try Self.eventTypes(input.eventTypes ?? []))
            let environments = try Self.environments(input.environments ?? ["production", "sandbox"])
            // The URL last: its check may resolve the host, which is not worth doing for a body refused anyway.
            let endpoint = try await store.createEndpoint(
                app: appID, url: try await Self.url(url, settings: settings), description: description, eventTypes: eventTypes,
                environments: environments)
            return try JSONResponse.make(status: .created, body: EndpointBody(endpoint, showSecret: true))
        }
        group.on(.get, prefix) { request, context in
            let appID = try await app(request, context)
            let endpoints = try await store.endpoints(app: appID).map { EndpointBody($0, showSecret: false) }
            return try JSONResponse.make(status: .ok, body: ["endpoints": endpoints])
        }
        group.on(.get, prefix + "/{endpoint_id}") { request, context in
            let appID = try await app(request, context)
            let endpoint = try await store.endpoint(app: appID, id: try context.path("endpoint_id"))
            return try JSONResponse.make(status: .ok, body: EndpointBody(endpoint, showSecret: true))
        }
        group.on(.patch, prefix + "/{endpoint_id}") { request, context in
            let appID = try await app(request, context)
            let id = try context.path("endpoint_id")
            let input = try await body.json(EndpointInput.self, from: request)
            var changes = WebhookStore.EndpointChanges()
            if input.mentionsDescription { changes.description = .some(try Self.description(input.description)) }
            changes.eventTypes = try input.eventTypes.map { types throws(APIError) in try Self.eventTypes(types) }
            changes.environments = try input.environments.map { list throws(APIError) in try Self.environments(list) }
            changes.status = try input.status.map { status throws(APIError) in
                guard let value = WebhookEndpoint.Status(rawValue: status) else { throw .badRequest("`status` must be enabled or disabled") }
                return value
            }
            if let url = input.url { changes.url = try await Self.url(url, settings: settings) }
            let endpoint = try await store.updateEndpoint(app: appID, id: id, changes)
            return try JSONResponse.make(status: .ok, body: EndpointBody(endpoint, showSecret: false))
        }
        group.on(.delete, prefix + "/{endpoint_id}") { request, context in
            let appID = try await app(request, context)
            try await store.deleteEndpoint(app: appID, id: try context.path("endpoint_id"))
            return Response(status: .noContent)
        }
        group.on(.post, prefix + "/{endpoint_id}/rotate-secret") { request, context in
            let appID = try await app(request, context)
            let endpoint = try await store.rotateSecret(app: appID, id: try context.path("endpoint_id"), overlap: settings.rotationOverlap)
            return try JSONResponse.make(status: .ok, body: EndpointBody(endpoint, showSecret: true))
        }
        group.on(.get, prefix + "/{endpoint_id}/deliveries") { request, context in
            let appID = try await app(request, context)
            let status = try request.query("status").map { text throws(APIError) in
                guard let status = WebhookDelivery.Status(rawValue: text) else {
                    throw .badRequest("`status` must be one of \(WebhookDelivery.Status.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return status
            }
            let after = try UserRoutes.integer(request, "after", default: 0, range: 0...Int64.max)
            let limit = try UserRoutes.integer(request, "limit", default: 100, range: 1...1000)
            let deliveries = try await store.deliveries(
                app: appID, endpoint: try context.path("endpoint_id"), status: status,
                after: after, limit: Int(limit))
            return try JSONResponse.make(
                status: .ok,
                body: DeliveriesAnswer(
                    deliveries: deliveries.map { DeliveryBody($0, attempts: nil) },
                    nextAfter: Nullable(deliveries.count == Int(limit) ? deliveries.last?.position : nil)))
        }
        group.on(.get, prefix + "/{endpoint_id}/deliveries/{delivery_id}") { request, context in
            let appID = try await app(request, context)
            let (endpointID, deliveryID) = (try context.path("endpoint_id"), try context.path("delivery_id"))
            _ = try await store.endpoint(app: appID, id: endpointID)
            guard let found = try await store.delivery(app: appID, endpoint: endpointID, delivery: deliveryID) else {
                throw APIError.notFound("there is no delivery \(deliveryID) to this endpoint; list them with GET …/deliveries")
            }
            return try JSONResponse.make(status: .ok, body: DeliveryBody(found.delivery, attempts: found.attempts))
        }
        group.on(.post, prefix + "/{endpoint_id}/deliveries/{delivery_id}/redeliver") { request, context in
            let appID = try await app(request, context)
            let deliveryID = try context.path("delivery_id")
            let count = try await store.redeliver(app: appID, endpoint: try context.path("endpoint_id"), .one(deliveryID))
            guard count == 1 else { throw APIError.notFound("there is no delivery \(deliveryID) to this endpoint; list them with GET …/deliveries") }
            return try JSONResponse.make(status: .accepted, body: ["redelivered": count])
        }
        group.on(.post, prefix + "/{endpoint_id}/redeliver") { request, context in
            let appID = try await app(request, context)
            let input = try await body.json(RedeliverInput.self, from: request)
            let since = try input.since.map { text throws(APIError) in try Self.instant(text, "since") }
            let until = try input.until.map { text throws(APIError) in try Self.instant(text, "until") }
            guard input.fromPosition != nil || input.toPosition != nil || since != nil || until != nil else {
                throw APIError.badRequest("name a range: `from_position` / `to_position` (log positions) and / or `since` / `until` (RFC 3339)")
            }
            let count = try await store.redeliver(
                app: appID, endpoint: try context.path("endpoint_id"),
                .range(
                    fromPosition: input.fromPosition, toPosition: input.toPosition, since: since, until: until))
            return try JSONResponse.make(status: .accepted, body: ["redelivered": count])
        }
    }

    // MARK: Checks

    /// The endpoint rules are the webhooks' (`WebhookEndpointRules`); a refusal is a 400 with their message.
    static func url(_ text: String, settings: WebhookSettings) async throws(APIError) -> String {
        do { return try await WebhookEndpointRules.url(text, allowPrivateAddresses: settings.allowPrivateAddresses) } catch {
            throw .badRequest(error.description)
        }
    }

    static func description(_ text: String?) throws(APIError) -> String? {
        try text.map { text throws(APIError) in try Check.text(text, "description", max: 500) }
    }

    static func eventTypes(_ types: [String]) throws(APIError) -> [String] {
        do { return try WebhookEndpointRules.eventTypes(types) } catch { throw .badRequest(error.description) }
    }

    static func environments(_ list: [String]) throws(APIError) -> [String] {
        do { return try WebhookEndpointRules.environments(list) } catch { throw .badRequest(error.description) }
    }

    static func instant(_ text: String, _ field: String) throws(APIError) -> Instant {
        guard let instant = Instant(rfc3339: text) else { throw .badRequest("`\(field)` must be an RFC 3339 time such as 2026-11-01T00:00:00Z") }
        return instant
    }
}

struct EndpointBody: Encodable {
    var endpointID: String
    var appID: String
    var url: String
    var description: Nullable<String>
    var eventTypes: [String]
    var environments: [String]
    var status: String
    var disabledReason: Nullable<String>
    var failingSince: Nullable<String>
    var secret: String?
    var previousSecretExpiresAt: Nullable<String>
    var createdAt: String
    var updatedAt: String

    enum CodingKeys: String, CodingKey {
        case endpointID = "endpoint_id"
        case appID = "app_id"
        case url
        case description
        case eventTypes = "event_types"
        case environments
        case status
        case disabledReason = "disabled_reason"
        case failingSince = "failing_since"
        case secret
        case previousSecretExpiresAt = "previous_secret_expires_at"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    init(_ endpoint: WebhookEndpoint, showSecret: Bool) {
        endpointID = endpoint.endpointID
        appID = endpoint.appID
        url = endpoint.url
        description = Nullable(endpoint.description)
        eventTypes = endpoint.eventTypes
        environments = endpoint.environments
        status = endpoint.status.rawValue
        disabledReason = Nullable(endpoint.disabledReason)
        failingSince = Nullable(endpoint.failingSince?.rfc3339)
        secret = showSecret ? endpoint.secret : nil
        previousSecretExpiresAt = Nullable(endpoint.previousSecretExpiresAt?.rfc3339)
        createdAt = endpoint.createdAt.rfc3339
        updatedAt = endpoint.updatedAt.rfc3339
    }
}

struct DeliveriesAnswer: Encodable {
    var deliveries: [DeliveryBody]
    var nextAfter: Nullable<Int64>

    enum CodingKeys: String, CodingKey {
        case deliveries
        case nextAfter = "next_after"
    }
}

struct DeliveryBody: Encodable {
    var deliveryID: String
    var position: Int64
    var eventType: String
    var appUserID: Nullable<String>
    var sequence: Int64
    var previousSequence: Nullable<Int64>
    var status: String
    var attemptCount: Int
    var nextAttemptAt: Nullable<String>
    var createdAt: String
    var finishedAt: Nullable<String>
    /// Only when one delivery is asked for.
    var payload: RawJSON?
    var attempts: [AttemptBody]?

    enum CodingKeys: String, CodingKey {
        case deliveryID = "delivery_id"
        case position
        case eventType = "event_type"
        case appUserID = "app_user_id"
        case sequence
        case previousSequence = "previous_sequence"
        case status
        case attemptCount = "attempt_count"
        case nextAttemptAt = "next_attempt_at"
        case createdAt = "created_at"
        case finishedAt = "finished_at"
        case payload
        case attempts
    }

    init(_ delivery: WebhookDelivery, attempts: [WebhookAttempt]?) {
        deliveryID = delivery.deliveryID
        position = delivery.position
        eventType = delivery.eventType
        appUserID = Nullable(delivery.appUserID)
        sequence = delivery.sequence
        previousSequence = Nullable(delivery.previousSequence)
        status = delivery.status.rawValue
        attemptCount = delivery.attempts
        nextAttemptAt = Nullable(delivery.status == .pending ? delivery.nextAttemptAt.rfc3339 : nil)
        createdAt = delivery.createdAt.rfc3339
        finishedAt = Nullable(delivery.finishedAt?.rfc3339)
        payload = attempts == nil ? nil : RawJSON(text: delivery.payload)
        self.attempts = attempts.map { $0.map(AttemptBody.init) }
    }
}

struct AttemptBody: Encodable {
    var attempt: Int
    var attemptedAt: String
    var statusCode: Nullable<Int>
    var latencyMilliseconds: Int
    var error: Nullable<String>

    enum CodingKeys: String, CodingKey {
        case attempt
        case attemptedAt = "attempted_at"
        case statusCode = "status_code"
        case latencyMilliseconds = "latency_ms"
        case error
    }

    init(_ attempt: WebhookAttempt) {
        self.attempt = attempt.attempt
        attemptedAt = attempt.attemptedAt.rfc3339
        statusCode = Nullable(attempt.statusCode)
        latencyMilliseconds = attempt.latencyMilliseconds
        error = Nullable(attempt.error)
    }
}
