import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import PostgresClient

/// Two apps of two accounts, B with data of every kind (a product, a user with a subscription and an unconsumed
/// purchase, an invoice), and every credential A has: for the isolation matrix.
struct TwoTenants {
    struct Credential {
        var name: String
        var headers: HTTPFields
        /// Revoked, or a public key without a cookie for the user: refused whatever the operation.
        var mustBeRefused: Bool
    }

    let api: APIClient
    let a: APIClient.Tenant
    let b: APIClient.Tenant
    let credentialsOfA: [Credential]
    let valuesOfB: [String: String]
    let queryOfB: [String: String]
    let markersOfB: [String]
    let signedOfB: String

    static func make(_ api: APIClient) async throws -> TwoTenants {
        let a = try await api.tenant()
        let b = try await api.tenant(bundleID: "com.example.b")
        let sibling = try await api.createApp(account: b.accountID, bundleID: "com.example.sibling")
        let signer = api.harness.signer
        _ = try await api.send(
            .put, "/v1/apps/\(b.appID)/products/b-coins", headers: b.secret,
            json: #"{"type":"consumable","entitlements":["b-gold"]}"#)
        let subscription = try signer.sign(
            AppStorePayloads.transaction(
                id: "880001", original: "880001", product: "b-monthly",
                bundleID: "com.example.b"))
        let coins = try signer.sign(
            AppStorePayloads.transaction(
                id: "880002", original: "880002", product: "b-coins", type: "Consumable",
                expires: nil, bundleID: "com.example.b"))
        _ = try await api.send(
            .post, "/v1/users/bob/transactions", headers: b.secret,
            json: #"{"transactions":[{"signed_transaction":"\#(subscription)"},{"signed_transaction":"\#(coins)"}]}"#)
        let receipt = try signer.receipt(purchases: [ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "770001")])
        let (_, aliceCookie) = try await api.uploadReceipt(a, user: "alice", receipt: receipt)
        try await api.harness.project()
        let invoice = try await api.send(
            .post, "/v1/admin/invoices", headers: APIClient.admin,
            json: #"{"month":"2025-12","account_id":"\#(b.accountID)"}"#)  // a month that has ended by the harness clock
        let invoiceID = (invoice.array("results").first?["invoice"] as? [String: Any])?["id"] as? String ?? "inv_missing"
        let bKeyID =
            try await api.send(
                .get, "/v1/admin/apps/\(b.appID)/keys",
                headers: APIClient.admin
            ).array("keys").first?["id"] as? String ?? "key_missing"

        let revokedSecret = try await api.revokedKey(a, kind: "secret")
        let revokedPublic = try await api.revokedKey(a, kind: "public")
        let apiKey = HTTPField.Name("APIKey")!
        let credentials: [Credential] = [
            Credential(name: "A public key", headers: a.publicHeaders, mustBeRefused: true),
            Credential(name: "A public key + alice's cookie", headers: a.publicHeaders.with(cookie: aliceCookie), mustBeRefused: false),
            Credential(name: "A secret key", headers: a.secret, mustBeRefused: false),
            Credential(name: "A secret key as APIKey", headers: [apiKey: a.secretKey], mustBeRefused: false),
            Credential(name: "A revoked secret key", headers: APIClient.bearer(revokedSecret), mustBeRefused: true),
            Credential(name: "A revoked public key", headers: [apiKey: revokedPublic], mustBeRefused: true),
            Credential(name: "sibling app in B's account", headers: APIClient.bearer(sibling), mustBeRefused: false)
        ]
        return TwoTenants(
            api: api, a: a, b: b, credentialsOfA: credentials,
            valuesOfB: [
                "app_id": b.appID, "account_id": b.accountID, "key_id": bKeyID, "user_id": "bob", "transaction_id": "880002",
                "product_id": "b-coins", "invoice_id": invoiceID
            ],
            queryOfB: ["user-id": "bob", "account_id": b.accountID, "month": "2026-01"],
            markersOfB: [b.appID, b.accountID, bKeyID, invoiceID, b.secretKey, b.publicKey, "880001", "880002", "b-coins", "b-gold", "b-monthly"],
            signedOfB: coins)
    }

    /// The body sent to `operation`: B's signed purchase where the operation takes signed transactions, else the
    /// documented example.
    func body(for operation: Operation) -> String? {
        switch operation.template {
        case "/v1/users/{user_id}/transactions": #"{"transactions":[{"signed_transaction":"\#(signedOfB)"}]}"#
        case "/v1/users/{user_id}/restore": #"{"signed_transactions":["\#(signedOfB)"],"original_transaction_ids":["880001","880002"]}"#
        default: operation.exampleBody
        }
    }

    func eventCount(app: String) async throws -> Int64 {
        try await api.harness.pool.query("SELECT count(*) FROM ledger.events WHERE app_id = \(app)").first?.decode(Int64.self, at: 0) ?? -1
    }
}

extension APIClient {
    /// A key of `tenant`'s app, made and then revoked through the admin API.
    func revokedKey(_ tenant: Tenant, kind: String) async throws -> String {
        let created = try await send(.post, "/v1/admin/apps/\(tenant.appID)/keys", headers: Self.admin, json: #"{"kind":"\#(kind)"}"#)
        let id = created.string("id") ?? ""
        _ = try await send(.delete, "/v1/admin/apps/\(tenant.appID)/keys/\(id)", headers: Self.admin)
        return created.string("key") ?? ""
    }

    /// Another app in `account`; returns its secret key.
    func createApp(account: String, bundleID: String) async throws -> String {
        let app = try await send(
            .post, "/v1/admin/apps", headers: Self.admin,
            json: """
                {"name":"Sibling","account_id":"\(account)","bundle_id":"\(bundleID)","apple_app_id":4321,"transfer_policy":"transfer",\
                "allow_xcode":false,"app_account_token_policy":"ignore"}
                """)
        let key = try await send(.post, "/v1/admin/apps/\(app.string("id") ?? "")/keys", headers: Self.admin, json: #"{"kind":"secret"}"#)
        return key.string("key") ?? ""
    }
}
