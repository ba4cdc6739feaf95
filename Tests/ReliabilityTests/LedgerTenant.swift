import AppStoreSamples
import Foundation
import PostgresTestSupport
import Testing

/// An account with one app, its keys and catalog, set up through the admin API of a running server the way an
/// operator would.
struct LedgerTenant: Sendable {
    static let adminToken = "reliability-admin-token"
    let appID: String
    let accountID: String
    let secretKey: String
    let publicKey: String

    var secret: [String: String] { ["Authorization": "Bearer \(secretKey)"] }
    var publicHeaders: [String: String] { ["APIKey": publicKey] }
    var notificationPath: String { "/v1/apps/\(appID)/notifications" }

    static func create(_ client: HTTPClient, accountID existing: String? = nil) async throws -> LedgerTenant {
        let admin = ["Authorization": "Bearer \(adminToken)"]
        var accountID = existing ?? ""
        if existing == nil {
            let account = try await client.send("POST", "/v1/admin/accounts", headers: admin, body: #"{"name":"Reliability Inc."}"#)
            accountID = try #require(account.string("id"), "\(account.text)")
        }
        let app = try await client.send(
            "POST", "/v1/admin/apps", headers: admin,
            body: """
                {"name":"Reliability","account_id":"\(accountID)","bundle_id":"com.example.app","apple_app_id":1234,
                 "transfer_policy":"transfer","allow_xcode":false,"app_account_token_policy":"token_is_app_user_id"}
                """)
        let appID = try #require(app.string("id"), "\(app.text)")
        let secret = try await client.send("POST", "/v1/admin/apps/\(appID)/keys", headers: admin, body: #"{"kind":"secret"}"#)
        let publicKey = try await client.send("POST", "/v1/admin/apps/\(appID)/keys", headers: admin, body: #"{"kind":"public"}"#)
        let tenant = LedgerTenant(
            appID: appID, accountID: accountID, secretKey: try #require(secret.string("key")),
            publicKey: try #require(publicKey.string("key")))
        let products = [
            ("monthly", #"{"type":"auto_renewable","subscription_group":"main","entitlements":["pro"]}"#),
            ("lifetime", #"{"type":"non_consumable","entitlements":["pro"]}"#),
            ("coins", #"{"type":"consumable"}"#)
        ]
        for (product, body) in products {
            let answer = try await client.send("PUT", "/v1/apps/\(appID)/products/\(product)", headers: tenant.secret, body: body)
            #expect(answer.isSuccess, "\(answer.text)")
        }
        return tenant
    }
}

/// The test PKI's roots as DER files, for `ledger serve --apple-root`.
enum RootFiles {
    static func write(_ signer: AppStoreTestSigner) throws -> [String] {
        try signer.roots.enumerated().map { index, root in
            let path = TestScratch.path("root-\(index).der")
            try Data(TestPKI.der(root)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }
}
