import Hummingbird
import LedgerDomain
import LedgerRecording
import LedgerStore
import LedgerTenancy

/// `/v1/apps/{app_id}/…`: the app's product catalog (secret key) and Apple's notification endpoint.
struct AppRoutes {
    let tenancy: TenancyStore
    let cache: TenancyCache
    let body: RequestBodyReader
    let recorder: LedgerRecorder
    let readYourWrites: ReadYourWrites

    struct ProductInput: StrictBody {
        var type: String
        var subscriptionGroup: String?
        var entitlements: [String]?

        enum CodingKeys: String, CodingKey {
            case type
            case subscriptionGroup = "subscription_group"
            case entitlements
        }
        static let members = plain("type", "entitlements").merging(["subscription_group": .nullable]) { $1 }
    }

    struct NotificationInput: Decodable { var signedPayload: String }

    struct NotificationAnswer: Encodable {
        var notificationUUID: String
        var recorded: Int
        var alreadyKnown: Int

        enum CodingKeys: String, CodingKey {
            case notificationUUID = "notification_uuid"
            case recorded
            case alreadyKnown = "already_known"
        }
    }

    func register(on routes: RouteTable, auth: Authenticator) {
        let (tenancy, cache, body, recorder, readYourWrites) = (tenancy, cache, body, recorder, readYourWrites)
        let catalog = routes.group("/v1/apps/{app_id}/products", AppKeyAuthentication(auth: auth, timeout: routes.timeout, appFromPath: true))
        catalog.on(.put, "/v1/apps/{app_id}/products/{product_id}") { request, context in
            let caller = try context.caller()
            let productID = try Check.text(try context.path("product_id"), "product_id", max: 200)
            let input = try await body.json(ProductInput.self, from: request)
            let product = try await tenancy.putProduct(app: caller.app.id, try Self.validate(input, productID: productID))
            cache.invalidate(.products)
            return try JSONResponse.make(status: .ok, body: ProductBody(product))
        }
        catalog.on(.get, "/v1/apps/{app_id}/products") { _, context in
            let caller = try context.caller()
            return try JSONResponse.make(status: .ok, body: ["products": try await tenancy.products(app: caller.app.id).map(ProductBody.init)])
        }
        // Apple sends no credential: the signature, the bundle id and the environment are the authentication.
        // A duplicate delivery answers 200 too, or Apple would retry it for days.
        routes.on(.post, "/v1/apps/{app_id}/notifications") { request, context in
            let appID = try context.path("app_id")
            guard let app = try await cache.app(id: appID) else {
                throw APIError.notFound("there is no app \(appID); use the notification_url POST /v1/admin/apps returned")
            }
            let input = try await body.json(NotificationInput.self, from: request)
            let (uuid, result) = try await recorder.notification(
                app: app, signedPayload: input.signedPayload,
                metadata: EventMetadata(source: "appstore.notification", requestID: context.requestID))
            // So that a status read right after the notification (a developer's backend reacting to it) sees it.
            try await readYourWrites.wait(app: app.id, positions: result.positions)
            return try JSONResponse.make(
                status: .ok,
                body: NotificationAnswer(
                    notificationUUID: uuid, recorded: result.recorded, alreadyKnown: result.alreadyKnown))
        }
    }

    static func validate(_ input: ProductInput, productID: String) throws(APIError) -> TenancyStore.ProductDefinition {
        guard let type = ProductType(apiName: input.type) else {
            throw .badRequest("`type` must be one of \(ProductType.allCases.map(\.apiName).joined(separator: ", "))")
        }
        let group = try input.subscriptionGroup.map { group throws(APIError) in try Check.text(group, "subscription_group", max: 200) }
        let entitlements = try Check.items(input.entitlements ?? [], "entitlements", max: 100)
        for (index, name) in entitlements.enumerated() { _ = try Check.text(name, "entitlements[\(index)]", max: 200) }
        guard Set(entitlements).count == entitlements.count else { throw .badRequest("`entitlements` lists an entitlement twice") }
        return TenancyStore.ProductDefinition(productID: productID, type: type, subscriptionGroup: group, entitlements: entitlements)
    }
}
