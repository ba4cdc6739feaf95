import Hummingbird
import LedgerDomain
import LedgerRecording
import LedgerStore
import PostgresClient

/// `/v1/apps/{app_id}/…`: the app's product catalog (secret key) and Apple's notification endpoint.
struct AppRoutes {
    let api: LedgerAPI

    struct ProductInput: StrictBody {
        var type: String
        var subscription_group: String?
        var entitlements: [String]?
        static let members = plain("type", "entitlements").merging(["subscription_group": .nullable]) { $1 }
    }

    struct NotificationInput: Decodable { var signedPayload: String }

    struct NotificationAnswer: Encodable {
        var notification_uuid: String
        var recorded: Int
        var already_known: Int
    }

    func register(on routes: RouteTable) {
        let api = api
        routes.on(.put, "/v1/apps/{app_id}/products/{product_id}") { request, context in
            let caller = try await api.auth.requireSecretKey(request, forApp: try context.path("app_id"))
            let productID = try Check.text(try context.path("product_id"), "product_id", max: 200)
            let input = try await api.body.json(ProductInput.self, from: request)
            let product = try await api.tenancy.putProduct(app: caller.app.id, try Self.validate(input, productID: productID))
            return try JSONResponse.make(status: .ok, body: ProductBody(product))
        }
        routes.on(.get, "/v1/apps/{app_id}/products") { request, context in
            let caller = try await api.auth.requireSecretKey(request, forApp: try context.path("app_id"))
            return try JSONResponse.make(status: .ok, body: ["products": try await api.tenancy.products(app: caller.app.id).map(ProductBody.init)])
        }
        // Apple sends no credential: the signature, the bundle id and the environment are the authentication.
        // A duplicate delivery answers 200 too, or Apple would retry it for days.
        routes.on(.post, "/v1/apps/{app_id}/notifications") { request, context in
            let appID = try context.path("app_id")
            guard let app = try await api.directory.app(id: appID) else {
                throw APIError.notFound("there is no app \(appID); use the notification_url POST /v1/admin/apps returned")
            }
            let input = try await api.body.json(NotificationInput.self, from: request)
            let (uuid, result) = try await api.recorder.notification(
                app: app, signedPayload: input.signedPayload,
                metadata: EventMetadata(source: "appstore.notification", requestID: context.requestID))
            // So that a status read right after the notification (a developer's backend reacting to it) sees it.
            try await api.settle(app: app.id, positions: result.positions)
            return try JSONResponse.make(status: .ok, body: NotificationAnswer(
                notification_uuid: uuid, recorded: result.recorded, already_known: result.alreadyKnown))
        }
    }

    static func validate(_ input: ProductInput, productID: String) throws(APIError) -> ProductRecord {
        guard let type = ProductType(apiName: input.type) else {
            throw .badRequest("`type` must be one of \(ProductType.allCases.map(\.apiName).joined(separator: ", "))")
        }
        let group = try input.subscription_group.map { group throws(APIError) in try Check.text(group, "subscription_group", max: 200) }
        let entitlements = try Check.items(input.entitlements ?? [], "entitlements", max: 100)
        for (index, name) in entitlements.enumerated() { _ = try Check.text(name, "entitlements[\(index)]", max: 200) }
        guard Set(entitlements).count == entitlements.count else { throw .badRequest("`entitlements` lists an entitlement twice") }
        return ProductRecord(productID: productID, type: type, subscriptionGroup: group, entitlements: entitlements,
                             updatedAt: .now())
    }
}
