import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerServerTestSupport
import PostgresClient
import Testing

@Suite struct NotificationRoutesTests {
    static let jan1 = AppStorePayloads.jan1
    static let day = AppStorePayloads.day
    static let user = "5f1c8f0e-2b7a-4c1e-9d3a-1b2c3d4e5f60"

    static func body(_ signedPayload: String) -> String { #"{"signedPayload":"\#(signedPayload)"}"# }

    /// A signed notification sequence changes `/productsStatus` the way the domain scenarios say.
    @Test func aNotificationSequenceDrivesProductsStatus() async throws {
        let harness = try await APIHarness.make()
        let s = harness.signer
        let subscribed = try s.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.jan1 + 1000,
            transactionJSON: AppStorePayloads.transaction(id: "500", original: "500", token: Self.user, signed: Self.jan1 + 1000))
        let lifetime = try s.notification(
            type: "ONE_TIME_CHARGE", signed: Self.jan1 + 2000,
            transactionJSON: AppStorePayloads.transaction(
                id: "600", original: "600", product: "lifetime", type: "Non-Consumable",
                expires: nil, token: Self.user, signed: Self.jan1 + 2000))
        let refund = try s.notification(
            type: "REFUND", signed: Self.jan1 + 3 * Self.day,
            transactionJSON: AppStorePayloads.transaction(
                id: "600", original: "600", product: "lifetime", type: "Non-Consumable",
                expires: nil, token: Self.user, revocation: Self.jan1 + 3 * Self.day,
                revocationReason: 0, signed: Self.jan1 + 3 * Self.day))
        let expired = try s.notification(
            type: "EXPIRED", subtype: "VOLUNTARY", signed: Self.jan1 + 31 * Self.day + 1000,
            transactionJSON: AppStorePayloads.transaction(id: "500", original: "500", token: Self.user, signed: Self.jan1 + 31 * Self.day + 1000))
        try await harness.test { api in
            let tenant = try await api.tenant(tokenPolicy: "token_is_app_user_id")
            let url = "/v1/apps/\(tenant.appID)/notifications"
            var headers = tenant.secret
            headers[HTTPField.Name("user-id")!] = Self.user
            func status() async throws -> String {
                try await harness.project()
                return try await api.productsStatus(headers).text
            }
            #expect(try await api.send(.post, url, json: Self.body(subscribed)).status == .ok)
            #expect(try await api.send(.post, url, json: Self.body(lifetime)).status == .ok)
            #expect(try await status() == #"{"_embedded":{"products":[{"id":"lifetime","status":"active"},{"id":"monthly","status":"active"}]}}\#n"#)
            // Apple delivers again: 200, nothing new.
            let duplicate = try await api.send(.post, url, json: Self.body(subscribed))
            #expect(duplicate.status == .ok)
            #expect(duplicate.int("recorded") == 0)
            #expect((duplicate.int("already_known") ?? 0) > 0)
            #expect(try await api.send(.post, url, json: Self.body(refund)).status == .ok)
            let afterRefund = try await status()
            #expect(afterRefund == #"{"_embedded":{"products":[{"id":"lifetime","status":"inactive"},{"id":"monthly","status":"active"}]}}\#n"#)
            harness.clock.advance(seconds: 30 * 86_400)
            #expect(try await api.send(.post, url, json: Self.body(expired)).status == .ok)
            #expect(
                try await status() == #"{"_embedded":{"products":[{"id":"lifetime","status":"inactive"},{"id":"monthly","#
                    + #""status":"inactive"}]}}\#n"#)
        }
    }

    @Test func forgedAndForeignNotificationsAre400WithTheVerificationCode() async throws {
        let harness = try await APIHarness.make()
        let s = harness.signer
        let transaction = AppStorePayloads.transaction(id: "700", original: "700")
        let genuine = try s.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.jan1, transactionJSON: transaction)
        let otherBundle = try s.notification(type: "SUBSCRIBED", signed: Self.jan1, transactionJSON: transaction, bundleID: "com.other.app")
        let xcode = try s.notification(type: "SUBSCRIBED", signed: Self.jan1, transactionJSON: nil, environment: "Xcode")
        let foreignPKI = try AppStoreTestSigner().notification(type: "SUBSCRIBED", signed: Self.jan1, transactionJSON: transaction)
        let parts = genuine.split(separator: ".").map(String.init)
        let algNone = JWSSigner.base64URL(Array(#"{"alg":"none"}"#.utf8)) + "." + parts[1] + "."
        try await harness.test { api in
            let tenant = try await api.tenant()
            let url = "/v1/apps/\(tenant.appID)/notifications"
            let cases: [(String, HTTPResponse.Status, String)] = [
                (Self.body(JWSSigner.tamper(genuine, segment: 1)), .badRequest, "invalid_signature"),
                (Self.body(JWSSigner.tamper(genuine, segment: 2)), .badRequest, "invalid_signature"),
                (Self.body(foreignPKI), .badRequest, "untrusted_chain"),
                (Self.body(otherBundle), .badRequest, "wrong_bundle_id"),
                (Self.body(xcode), .badRequest, "wrong_environment"),
                (Self.body(algNone), .badRequest, "unsupported_algorithm"),
                (Self.body(String(genuine.prefix(100))), .badRequest, "malformed"),
                (Self.body("' OR 1=1 --"), .badRequest, "malformed"),
                (#"{"signedPayload":42}"#, .badRequest, "invalid_json"),
                (#"{"payload":"x"}"#, .badRequest, "invalid_json"),
                ("", .badRequest, "invalid_json")
            ]
            for (body, status, code) in cases {
                let response = try await api.send(.post, url, json: body)
                #expect(response.status == status, "\(code): \(response.text)")
                #expect(response.errorCode == code, "\(response.text)")
            }
            let unknown = try await api.send(.post, "/v1/apps/app_000/notifications", json: Self.body(genuine))
            #expect(unknown.status == .notFound)
            // Nothing refused was recorded; the genuine one is (another app of the same bundle: the test below).
            let count = try await harness.pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0)
            #expect(count == 0)
            #expect(try await api.send(.post, url, json: Self.body(genuine)).status == .ok)
        }
    }

    /// Two apps may share a bundle id (say, one per customer of a white-label app). The signature binds the bundle,
    /// not the URL, so each app's URL accepts the bundle's notifications: what a URL receives is recorded for its own
    /// app only, and the other app's log and views are untouched until a notification reaches its own URL.
    @Test func aNotificationIsRecordedOnlyForTheAppWhoseURLReceivedItAmongAppsOfTheSameBundle() async throws {
        let harness = try await APIHarness.make()
        let notification = try harness.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.jan1 + 1000,
            transactionJSON: AppStorePayloads.transaction(id: "900", original: "900", token: Self.user, signed: Self.jan1 + 1000))
        try await harness.test { api in
            let a = try await api.tenant(bundleID: "com.example.app", tokenPolicy: "token_is_app_user_id")
            let b = try await api.tenant(bundleID: "com.example.app", tokenPolicy: "token_is_app_user_id")
            func events(_ tenant: APIClient.Tenant) async throws -> Int64 {
                try await harness.pool.query("SELECT count(*) FROM ledger.events WHERE app_id = \(tenant.appID)").first?.decode(
                    Int64.self,
                    at: 0) ?? -1
            }
            func status(_ tenant: APIClient.Tenant) async throws -> String {
                try await harness.project()
                var headers = tenant.secret
                headers[HTTPField.Name("user-id")!] = Self.user
                return try await api.productsStatus(headers).text
            }
            let active = #"{"_embedded":{"products":[{"id":"monthly","status":"active"}]}}"# + "\n"

            let toA = try await api.send(.post, "/v1/apps/\(a.appID)/notifications", json: Self.body(notification))
            #expect(toA.status == .ok)
            #expect((toA.int("recorded") ?? 0) > 0)
            let eventsOfA = try await events(a)
            #expect(eventsOfA > 0)
            #expect(try await events(b) == 0)
            #expect(try await status(a) == active)
            #expect(try await status(b) == #"{"_embedded":{"products":[]}}"# + "\n")

            // The same notification at B's URL is B's own record; A's stays as it was.
            let toB = try await api.send(.post, "/v1/apps/\(b.appID)/notifications", json: Self.body(notification))
            #expect(toB.status == .ok)
            #expect(toB.int("recorded") == toA.int("recorded"))
            #expect(try await events(b) == eventsOfA)
            #expect(try await events(a) == eventsOfA)
            #expect(try await status(b) == active)
        }
    }

    @Test func xcodeDataIsAcceptedOnlyWhenTheAppAllowsIt() async throws {
        let harness = try await APIHarness.make()
        let xcode = try harness.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.jan1,
            transactionJSON: AppStorePayloads.transaction(id: "800", original: "800", environment: "Xcode"), environment: "Xcode")
        try await harness.test { api in
            let strict = try await api.tenant()
            let lenient = try await api.tenant(allowXcode: true)
            #expect(try await api.send(.post, "/v1/apps/\(strict.appID)/notifications", json: Self.body(xcode)).errorCode == "wrong_environment")
            #expect(try await api.send(.post, "/v1/apps/\(lenient.appID)/notifications", json: Self.body(xcode)).status == .ok)
        }
    }
}
