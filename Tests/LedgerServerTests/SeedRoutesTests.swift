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
        try harness.signer.receipt(
            purchases: purchases.map {
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
            #expect(upload.int("recorded") == 2)  // two purchases, each carrying its user
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
            _ = try await api.send(
                .put, "/v1/apps/\(tenant.appID)/products/monthly", headers: tenant.secret,
                json: #"{"type":"auto_renewable","entitlements":["pro"]}"#)
            let filtered = try await api.productsStatus(tenant.publicHeaders.with(cookie: cookie))
            #expect(filtered.text == #"{"_embedded":{"products":[{"id":"monthly","status":"active"}]}}\#n"#)

            // The secret key names the user in a header or the query.
            var secretHeaders = tenant.secret
            secretHeaders[HTTPField.Name("user-id")!] = "user-1"
            #expect(try await api.productsStatus(secretHeaders).text == filtered.text)
            #expect(
                try await api.send(.get, "/productsStatus?user-id=nobody", headers: tenant.secret).text
                    == #"{"_embedded":{"products":[]}}\#n"#)
        }
    }

    /// With the projection worker running as in `serve`, a read right after an upload sees the upload: the write
    /// waits until the projections include it. Its limit is under the live test client's 20 s, so that a wait that
    /// gives up fails the read's expectation rather than the client.
    @Test func aReadRightAfterAnUploadSeesIt() async throws {
        let harness = try await APIHarness.make(readYourWrites: .seconds(15))
        let router = LedgerApplication.makeRouter(readiness: ReadinessCheck(pool: harness.pool, migrations: []), api: harness.api)
        let application = Application(
            router: router, server: LedgerApplication.server(router: router),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            services: [ProjectionService(worker: ProjectionWorker(pool: harness.pool, runners: ProjectionCatalog.runners()))])
        try await application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
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
            let bytes = try await api.send(
                .post, "/uploadReceipt",
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
        let otherBundle = try harness.signer.receipt(
            bundleID: "com.other.app",
            purchases: [
                ReceiptBuilder.inAppPurchase(
                    product: "m",
                    transactionId: "9")
            ])
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
                (tenant.publicHeaders.merging([.contentType: "text/plain"]), "hello", .unsupportedMediaType, "unsupported_media_type")
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

    /// `POST /uploadTransactions` with `{"user-id"?, "transactions": [{"signed_transaction"}]}` and a public key.
    static func uploadTransactions(
        _ api: APIClient, _ tenant: APIClient.Tenant, user: String?, _ signed: [String],
        cookie: String? = nil
    ) async throws -> (APIResponse, cookie: String) {
        let member = user.map { #""user-id":"\#($0)","# } ?? ""
        let items = signed.map { #"{"signed_transaction":"\#($0)"}"# }.joined(separator: ",")
        let headers = cookie.map { tenant.publicHeaders.with(cookie: $0) } ?? tenant.publicHeaders
        let response = try await api.send(.post, "/uploadTransactions", headers: headers, json: #"{\#(member)"transactions":[\#(items)]}"#)
        let issued = response.headers[values: .setCookie].compactMap { $0.split(separator: ";").first.map(String.init) }
            .joined(separator: "; ")
        return (response, issued)
    }

    static func lifetime(_ harness: APIHarness, _ id: String) throws -> String {
        try harness.signer.sign(AppStorePayloads.transaction(id: id, original: id, product: "lifetime", type: "Non-Consumable", expires: nil))
    }

    /// A StoreKit 2 app (no receipt) gets its `uid` cookie from its signed transactions, exactly as a receipt would.
    @Test func uploadTransactionsSetsTheCookieOfTheUserItNamesAndThatCookieReadsOnlyThatUser() async throws {
        let harness = try await APIHarness.make()
        let receipt = try Self.receipt(harness, [("monthly", "6100", "2026-02-01T00:00:00Z")])
        let lifetime = try Self.lifetime(harness, "6001")
        let coins = try harness.signer.sign(
            AppStorePayloads.transaction(
                id: "6002", original: "6002", product: "coins", type: "Consumable",
                expires: nil))
        try await harness.test { api in
            let tenant = try await api.tenant()
            let (_, aliceCookie) = try await api.uploadReceipt(tenant, user: "alice", receipt: receipt)

            // No cookie: the named user gets the purchases and the cookie.
            let (upload, cookie) = try await Self.uploadTransactions(api, tenant, user: "sk2-user", [lifetime, coins])
            #expect(upload.status == .ok, "\(upload.text)")
            #expect(upload.string("user_id") == "sk2-user")
            #expect(upload.int("recorded") == 2)
            let setCookies = upload.headers[values: .setCookie]
            #expect(setCookies.contains { $0.hasPrefix("uid=sk2-user;") && $0.contains("Expires=") && $0.contains("HttpOnly") })
            #expect(setCookies.contains { $0.hasPrefix("uid_sig=") })
            try await harness.project()

            // The cookie reads that user, and no other.
            let own = try await api.send(.get, "/v1/users/sk2-user", headers: tenant.publicHeaders.with(cookie: cookie))
            #expect(own.status == .ok, "\(own.text)")
            #expect(own.array("one_time_purchases").compactMap { $0["product_id"] as? String }.sorted() == ["coins", "lifetime"])
            #expect(try await api.productsStatus(tenant.publicHeaders.with(cookie: cookie)).text.contains(#"{"id":"lifetime","status":"active"}"#))
            for path in ["/v1/users/alice", "/v1/users/alice/unconsumed", "/v1/users/alice/events"] {
                #expect(try await api.send(.get, path, headers: tenant.publicHeaders.with(cookie: cookie)).status == .forbidden, "\(path)")
            }
            // The same transactions again: nothing recorded twice, the cookie set again.
            let (again, renewed) = try await Self.uploadTransactions(api, tenant, user: "sk2-user", [lifetime, coins])
            #expect(again.status == .ok)
            #expect(again.int("recorded") == 0)
            #expect(again.int("already_known") == 2)
            #expect(renewed.hasPrefix("uid=sk2-user; uid_sig="))

            // As for a receipt: the named user wins over another user's cookie; without a name, the cookie's user; else anonymous.
            let other = try Self.lifetime(harness, "6003")
            let (named, namedCookie) = try await Self.uploadTransactions(api, tenant, user: "sk2-other", [other], cookie: aliceCookie)
            #expect(named.status == .ok, "\(named.text)")
            #expect(named.string("user_id") == "sk2-other")
            #expect(namedCookie.hasPrefix("uid=sk2-other; "))
            let (fromCookie, _) = try await Self.uploadTransactions(api, tenant, user: nil, [other], cookie: namedCookie)
            #expect(fromCookie.string("user_id") == "sk2-other")
            let (anonymous, anonymousCookie) = try await Self.uploadTransactions(api, tenant, user: nil, [Self.lifetime(harness, "6004")])
            let anon = try #require(anonymous.string("user_id"))
            #expect(anon.hasPrefix("anon-"))
            #expect(anonymousCookie.hasPrefix("uid=\(anon); "))
            try await harness.project()
            #expect(
                try await api.send(.get, "/v1/users/\(anon)", headers: tenant.publicHeaders.with(cookie: anonymousCookie))
                    .array("one_time_purchases").compactMap { $0["transaction_id"] as? String } == ["6004"])
            // Alice's purchase stayed hers.
            let alice = try await api.send(.get, "/v1/users/alice", headers: tenant.publicHeaders.with(cookie: aliceCookie))
            #expect(alice.array("subscriptions").compactMap { $0["original_transaction_id"] as? String } == ["6100"])
        }
    }

    @Test func hostileOrInvalidSignedTransactionsAre4xxSetNoCookieAndRecordNothing() async throws {
        let harness = try await APIHarness.make()
        let valid = try Self.lifetime(harness, "7001")
        let foreign = try AppStoreTestSigner().sign(
            AppStorePayloads.transaction(
                id: "7002", original: "7002", product: "lifetime",
                type: "Non-Consumable", expires: nil))
        let parts = valid.split(separator: ".").map(String.init)
        let edited = try harness.signer.sign(
            AppStorePayloads.transaction(
                id: "7003", original: "7003", product: "lifetime",
                type: "Non-Consumable", expires: nil)
        ).split(separator: ".")[1]
        let spliced = [parts[0], String(edited), parts[2]].joined(separator: ".")
        let otherBundle = try harness.signer.sign(
            AppStorePayloads.transaction(
                id: "7004", original: "7004", product: "lifetime",
                type: "Non-Consumable", expires: nil, bundleID: "com.other.app"))
        try await harness.test { api in
            let tenant = try await api.tenant()
            let cases: [(HTTPFields, String, HTTPResponse.Status, String)] = [
                ([:], #"{"user-id":"u","transactions":[{"signed_transaction":"\#(valid)"}]}"#, .unauthorized, "unauthorized"),
                (
                    [HTTPField.Name("APIKey")!: "pk_forged"], #"{"transactions":[{"signed_transaction":"\#(valid)"}]}"#, .unauthorized,
                    "unauthorized"
                ),
                (tenant.publicHeaders, #"{"user-id":"u","transactions":[{"signed_transaction":"\#(foreign)"}]}"#, .badRequest, "untrusted_chain"),
                (
                    tenant.publicHeaders, #"{"user-id":"u","transactions":[{"signed_transaction":"\#(spliced)"}]}"#, .badRequest,
                    "invalid_signature"
                ),
                (
                    tenant.publicHeaders, #"{"user-id":"u","transactions":[{"signed_transaction":"\#(otherBundle)"}]}"#, .badRequest,
                    "wrong_bundle_id"
                ),
                (tenant.publicHeaders, #"{"user-id":"u","transactions":[{"signed_transaction":"a.b.c"}]}"#, .badRequest, "malformed"),
                // One bad item refuses the whole upload, the valid one included.
                (
                    tenant.publicHeaders, #"{"user-id":"u","transactions":[{"signed_transaction":"\#(valid)"},{"signed_transaction":"x"}]}"#,
                    .badRequest, "malformed"
                ),
                (tenant.publicHeaders, #"{"user-id":"u","transactions":[]}"#, .badRequest, "invalid_request"),
                (tenant.publicHeaders, #"{"user-id":"u"}"#, .badRequest, "invalid_json"),
                (
                    tenant.publicHeaders, #"{"user-id":"u","transactions":[{"signed_transaction":"\#(valid)"}],"extra":1}"#, .badRequest,
                    "invalid_json"
                ),
                (tenant.publicHeaders, #"{"user-id":42,"transactions":[{"signed_transaction":"\#(valid)"}]}"#, .badRequest, "invalid_json")
            ]
            for (headers, body, status, code) in cases {
                let response = try await api.send(.post, "/uploadTransactions", headers: headers, json: body)
                #expect(response.status == status, "\(body.prefix(80)): \(response.text)")
                #expect(response.errorCode == code, "\(body.prefix(80)): \(response.text)")
                #expect(response.headers[values: .setCookie].isEmpty, "\(body.prefix(80)) set a cookie")
            }
            let count = try await harness.pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0)
            #expect(count == 0)
        }
    }

    /// A refused transfer sets no cookie, whether the purchase comes in a receipt or as a signed transaction.
    @Test func aTransferTheAppRefusesSetsNoCookieForEitherUpload() async throws {
        let harness = try await APIHarness.make()
        let signed = try Self.lifetime(harness, "8001")
        let receipt = try harness.signer.receipt(purchases: [ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "8001")])
        try await harness.test { api in
            let tenant = try await api.tenant(transferPolicy: "keep_and_refuse")
            let (owner, _) = try await Self.uploadTransactions(api, tenant, user: "owner", [signed])
            #expect(owner.status == .ok, "\(owner.text)")
            let (taken, takenCookie) = try await Self.uploadTransactions(api, tenant, user: "taker", [signed])
            #expect(taken.status == .conflict, "\(taken.text)")
            #expect(taken.errorCode == "restore_refused")
            #expect(takenCookie.isEmpty)
            let (viaReceipt, receiptCookie) = try await api.uploadReceipt(tenant, user: "taker", receipt: receipt)
            #expect(viaReceipt.status == .conflict, "\(viaReceipt.text)")
            #expect(viaReceipt.errorCode == "restore_refused")
            #expect(receiptCookie.isEmpty)
            try await harness.project()
            let owners = try await api.send(.get, "/v1/users/owner", headers: tenant.secret)
            #expect(owners.array("one_time_purchases").compactMap { $0["transaction_id"] as? String } == ["8001"])
            #expect(try await api.send(.get, "/v1/users/taker", headers: tenant.secret).array("one_time_purchases").isEmpty)
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
