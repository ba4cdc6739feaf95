import AppStoreSamples
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LedgerServer
import LedgerServerTestSupport
import LedgerStore
import PostgresClient
import Testing

@Suite struct SeedRoutesTests {
    static func receipt(_ harness: APIHarness, _ purchases: [(product: String, id: String, expires: String)]) throws -> String {
        try harness.signer.receipt(purchases: purchases.map {
            ReceiptBuilder.inAppPurchase(product: $0.product, transactionId: $0.id, expiresDate: $0.expires)
        })
    }

    @Test func uploadReceiptRecordsSetsASignedCookieAndProductsStatusAnswersTheSeedShape() async throws {
        let harness = try await APIHarness.make()
        let receipt = try Self.receipt(harness, [("monthly", "1001", "2026-02-01T00:00:00Z"), ("old_weekly", "1002", "2026-01-03T00:00:00Z")])
        try await harness.test { api in
            let tenant = try await api.tenant()
            let (upload, cookie) = try await api.uploadReceipt(tenant, user: "user-1", receipt: receipt)
            #expect(upload.status == .ok, "\(upload.text)")
            #expect(upload.string("user_id") == "user-1")
            #expect(upload.int("recorded") == 2) // two purchases, each carrying its user
            let setCookies = upload.headers[values: .setCookie]
            #expect(setCookies.contains { $0.hasPrefix("uid=user-1;") && $0.contains("Expires=") && $0.contains("HttpOnly") })
            #expect(setCookies.contains { $0.hasPrefix("uid_sig=") })

            // The same receipt again records nothing new.
            let (again, _) = try await api.uploadReceipt(tenant, user: "user-1", receipt: receipt)
            #expect(again.int("recorded") == 0)
            #expect(again.int("already_known") == upload.int("recorded"))

            try await harness.project()
            let status = try await api.productsStatus(tenant.publicHeaders.with(cookie: cookie))
            #expect(status.status == .ok)
            #expect(status.text == #"{"_embedded":{"products":[{"id":"monthly","status":"active"},{"id":"old_weekly","status":"inactive"}]}}\#n"#)

            // Once the app has a catalog, only its products are listed.
            _ = try await api.send(.put, "/v1/apps/\(tenant.appID)/products/monthly", headers: tenant.secret,
                                   json: #"{"type":"auto_renewable","entitlements":["pro"]}"#)
            let filtered = try await api.productsStatus(tenant.publicHeaders.with(cookie: cookie))
            #expect(filtered.text == #"{"_embedded":{"products":[{"id":"monthly","status":"active"}]}}\#n"#)

            // The secret key names the user in a header or the query.
            var secretHeaders = tenant.secret
            secretHeaders[HTTPField.Name("user-id")!] = "user-1"
            #expect(try await api.productsStatus(secretHeaders).text == filtered.text)
            #expect(try await api.send(.get, "/productsStatus?user-id=nobody", headers: tenant.secret).text
                == #"{"_embedded":{"products":[]}}\#n"#)
        }
    }

    /// With the projection worker running as in `serve`, a read right after an upload sees the upload: the write
    /// waits until the projections include it.
    @Test func aReadRightAfterAnUploadSeesIt() async throws {
        let harness = try await APIHarness.make(readYourWrites: .seconds(20))
        let application = Application(
            router: LedgerApplication.makeRouter(readiness: ReadinessCheck(pool: harness.pool, migrations: []), api: harness.api),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            services: [ProjectionService(worker: ProjectionWorker(pool: harness.pool, runners: ProjectionCatalog.runners()))])
        try await application.test(.live) { client in
            let api = APIClient(client: client, harness: harness)
            let tenant = try await api.tenant()
            for index in 0..<5 {
                let receipt = try Self.receipt(harness, [("monthly", "50\(index)", "2026-02-01T00:00:00Z")])
                let (upload, cookie) = try await api.uploadReceipt(tenant, user: "reader-\(index)", receipt: receipt)
                #expect(upload.status == .ok)
                let status = try await api.productsStatus(tenant.publicHeaders.with(cookie: cookie))
                #expect(status.text == #"{"_embedded":{"products":[{"id":"monthly","status":"active"}]}}\#n"#)
            }
        }
        await harness.pool.shutdown()
    }

    @Test func anonymousUploadsGetAnIdAndRawBytesAreAccepted() async throws {
        let harness = try await APIHarness.make()
        let receipt = try Self.receipt(harness, [("coins", "2001", "")])
        try await harness.test { api in
            let tenant = try await api.tenant()
            let (anonymous, cookie) = try await api.uploadReceipt(tenant, user: nil, receipt: receipt)
            let user = try #require(anonymous.string("user_id"))
            #expect(user.hasPrefix("anon-"))
            #expect(cookie.contains("uid=\(user)"))
            // A later upload with that cookie and no user id stays with the same user.
            let raw = try #require(Data(base64Encoded: receipt))
            let bytes = try await api.send(.post, "/uploadReceipt",
                                           headers: tenant.publicHeaders.with(cookie: cookie).merging([.contentType: "application/octet-stream"]),
                                           bytes: Array(raw))
            #expect(bytes.status == .ok, "\(bytes.text)")
            #expect(bytes.string("user_id") == user)
            #expect(bytes.int("recorded") == 0)
        }
    }

    @Test func forgedEditedExpiredAndForeignCookiesAreRefused() async throws {
        let harness = try await APIHarness.make()
        let receipt = try Self.receipt(harness, [("monthly", "3001", "2026-02-01T00:00:00Z")])
        try await harness.test { api in
            let tenant = try await api.tenant()
            let other = try await api.tenant()
            let (_, cookie) = try await api.uploadReceipt(tenant, user: "alice", receipt: receipt)
            let headers = tenant.publicHeaders
            #expect(try await api.productsStatus(headers.with(cookie: cookie)).status == .ok)
            // No cookie, an edited user, a forged signature, another user named in the header.
            #expect(try await api.productsStatus(headers).status == .unauthorized)
            let edited = cookie.replacingOccurrences(of: "uid=alice", with: "uid=mallory")
            let editedAnswer = try await api.productsStatus(headers.with(cookie: edited))
            #expect(editedAnswer.status == .unauthorized)
            #expect(editedAnswer.errorMessage?.contains("edited") == true)
            #expect(try await api.productsStatus(headers.with(cookie: "uid=alice; uid_sig=99999999999.AAAA")).status == .unauthorized)
            var named = headers.with(cookie: cookie)
            named[HTTPField.Name("user-id")!] = "bob"
            #expect(try await api.productsStatus(named).status == .forbidden)
            // A cookie issued for one app is worthless with another app's key.
            #expect(try await api.productsStatus(other.publicHeaders.with(cookie: cookie)).status == .unauthorized)
            // Cookies expire.
            harness.clock.advance(seconds: 31 * 86_400)
            let expired = try await api.productsStatus(headers.with(cookie: cookie))
            #expect(expired.status == .unauthorized)
            #expect(expired.errorMessage?.contains("expired") == true)
        }
    }

    @Test func badUploadsAre4xxAndRecordNothing() async throws {
        let harness = try await APIHarness.make()
        let receipt = try Self.receipt(harness, [("monthly", "4001", "2026-02-01T00:00:00Z")])
        let otherBundle = try harness.signer.receipt(bundleID: "com.other.app", purchases: [ReceiptBuilder.inAppPurchase(product: "m",
            transactionId: "9")])
        try await harness.test { api in
            let tenant = try await api.tenant()
            let doubled = Data(receipt.utf8).base64EncodedString()
            let truncated = String(receipt.prefix(receipt.count / 8 * 4))
            let cases: [(HTTPFields, String, HTTPResponse.Status, String)] = [
                ([:], #"{"data":"\#(receipt)"}"#, .unauthorized, "unauthorized"),
                ([HTTPField.Name("APIKey")!: "pk_forged"], #"{"data":"\#(receipt)"}"#, .unauthorized, "unauthorized"),
                (tenant.publicHeaders, #"{"data":"\#(doubled)"}"#, .badRequest, "malformed"),
                (tenant.publicHeaders, #"{"data":"\#(truncated)"}"#, .badRequest, "malformed"),
                (tenant.publicHeaders, #"{"data":"not base64 at all!"}"#, .badRequest, "malformed"),
                (tenant.publicHeaders, #"{"data":"\#(otherBundle)"}"#, .badRequest, "wrong_bundle_id"),
                (tenant.publicHeaders, #"{"user-id":42,"data":"\#(receipt)"}"#, .badRequest, "invalid_json"),
                (tenant.publicHeaders, #"{"user-id":""#, .badRequest, "invalid_json"),
                (tenant.publicHeaders.merging([.contentType: "text/plain"]), "hello", .unsupportedMediaType, "unsupported_media_type"),
            ]
            for (headers, body, status, code) in cases {
                let response = try await api.send(.post, "/uploadReceipt", headers: headers, json: body)
                #expect(response.status == status, "\(body.prefix(60)): \(response.text)")
                #expect(response.errorCode == code, "\(body.prefix(60)): \(response.text)")
            }
            let count = try await harness.pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0)
            #expect(count == 0)
        }
    }

    @Test func oversizedBodiesAre413() async throws {
        let harness = try await APIHarness.make(maxBodyBytes: 4096)
        try await harness.test { api in
            let tenant = try await api.tenant()
            let huge = #"{"data":""# + String(repeating: "A", count: 10_000) + #""}"#
            let response = try await api.send(.post, "/uploadReceipt", headers: tenant.publicHeaders, json: huge)
            #expect(response.status == .contentTooLarge)
            #expect(response.errorCode == "payload_too_large")
        }
    }
}

extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var copy = self
        for field in other { copy[field.name] = field.value }
        return copy
    }
}
