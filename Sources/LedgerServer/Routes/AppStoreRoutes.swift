import AppStoreServerAPI
import AppStoreSync
import Hummingbird
import LedgerOperators
import LedgerRecording
import LedgerStore
import LedgerTenancy
import Logging

/// `POST /v1/apps/{app_id}/appstore/backfill` (the app's secret key) and the same under `/v1/admin/apps/{app_id}/…`
/// (the admin token): imports the App Store history of up to 100 purchases through the App Store Server API, as
/// `ledger appstore backfill` does, and answers its summary.
struct AppStoreRoutes {
    static let maximumTransactionIDs = 100

    let clients: AppStoreClients?
    let cache: TenancyCache
    let body: RequestBodyReader
    let recorder: LedgerRecorder
    let logger: Logger

    struct BackfillInput: StrictBody {
        var transactionIDs: [String]?

        enum CodingKeys: String, CodingKey { case transactionIDs = "transaction_ids" }
        static let members = plain("transaction_ids")
    }

    func register(on routes: RouteTable, auth: Authenticator) {
        let appKey = routes.group("/v1/apps/{app_id}/appstore", AppKeyAuthentication(auth: auth, timeout: routes.timeout, appFromPath: true))
        register(appKey, path: "/v1/apps/{app_id}/appstore/backfill") { context in try context.caller().app }
        let admin = routes.group("/v1/admin/apps/{app_id}/appstore", AdminAuthentication(auth: auth, writers: [.support]))
        let cache = cache
        register(admin, path: "/v1/admin/apps/{app_id}/appstore/backfill") { context in
            let appID = try context.path("app_id")
            guard let app = try await cache.app(id: appID) else { throw TenancyError.unknownApp(appID) }
            return app
        }
    }

    private func register(_ group: RouteGroup, path: String, app: @escaping @Sendable (LedgerRequestContext) async throws -> AppRecord) {
        let (clients, body, recorder, logger) = (clients, body, recorder, logger)
        group.on(.post, path) { request, context in
            let app = try await app(context)
            let input = try await body.json(BackfillInput.self, from: request)
            let ids = try Self.transactionIDs(input.transactionIDs)
            let client = try Self.client(clients, app: app)
            let summary: AppStoreBackfill.Summary
            do {
                summary = try await AppStoreBackfill(recorder: recorder, logger: logger).run(
                    app: app, client: client, transactionIDs: ids, requestID: context.requestID)
            } catch {
                throw APIError(.badGateway, "appstore_api_refused", "\(error)")
            }
            return try JSONResponse.make(status: .ok, body: summary)
        }
    }

    static func transactionIDs(_ ids: [String]?) throws(APIError) -> [String] {
        guard let ids else { throw .badRequest("`transaction_ids` is required: the transaction ids of the purchases to import") }
        _ = try Check.items(ids, "transaction_ids", max: maximumTransactionIDs, min: 1)
        for (index, id) in ids.enumerated() {
            guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw .badRequest("`transaction_ids[\(index)]` must be an App Store transaction id (1 to 64 digits)")
            }
        }
        var seen: Set<String> = []
        return ids.filter { seen.insert($0).inserted }
    }

    static func client(_ clients: AppStoreClients?, app: AppRecord) throws(APIError) -> AppStoreServerAPIClient {
        do throws(AppStoreSyncError) {
            guard let clients else { throw .notConfigured(app: app.id) }
            return try clients.client(for: app)
        } catch .notConfigured {
            throw APIError(
                .conflict, "appstore_api_not_configured",
                "app \(app.id) has no App Store Server API settings: the operator adds them to the file LEDGER_APPSTORE_API_CONFIG names")
        } catch {
            throw APIError(.conflict, "appstore_api_misconfigured", error.description)
        }
    }
}
