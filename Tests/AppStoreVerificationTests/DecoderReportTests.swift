import AppStoreSamples
import Foundation
import Testing
@testable import AppStoreVerification

/// `AppStoreDecoder`, the logic behind `ledger appstore decode`: input forms, kind detection, the report's JSON.
@Suite struct DecoderReportTests {
    let pki: TestPKI
    let decoder: AppStoreDecoder

    init() throws {
        pki = try TestPKI()
        decoder = AppStoreDecoder(verifier: JWSVerificationTests.verifier(roots: [pki.root]))
    }

    func report(_ text: String, kind: DecodeKind = .auto) async throws -> [String: Any] {
        let json = await decoder.decode(text, kind: kind).jsonString()
        return try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test func detectsEveryKind() async throws {
        let cases: [(String, DecodeKind)] = [
            (JWSVerificationTests.transaction(), .transaction),
            (#"{"environment":"Sandbox","signedDate":1735689600000}"#, .renewalInfo),
            (#"{"environment":"Sandbox","autoRenewStatus":1,"productId":"p","originalTransactionId":"1"}"#, .renewalInfo),
            (#"{"notificationType":"TEST","data":{"bundleId":"com.example.app","environment":"Sandbox"}}"#, .notification),
            (#"{"bundleId":"com.example.app","receiptType":"Sandbox","applicationVersion":"1"}"#, .appTransaction)
        ]
        for (payload, expected) in cases {
            let jws = try JWSSigner.sign(payload, pki: pki)
            let result = await decoder.decode(jws)
            #expect(result.kind == expected)
            #expect(result.valid, "\(result.jsonString())")
        }
    }

    @Test func acceptsNotificationBodiesAndWhitespace() async throws {
        let jws = try JWSSigner.sign(#"{"notificationType":"TEST","data":{"bundleId":"com.example.app","environment":"Sandbox"}}"#, pki: pki)
        let body = try await report("\n {\"signedPayload\": \"\(jws)\"}\n")
        #expect(body["valid"] as? Bool == true)
        #expect(body["kind"] as? String == "notification")
        let bare = try await report("  \(jws)\n\n")
        #expect(bare["valid"] as? Bool == true)
        let noPayload = try await report(#"{"something":"else"}"#)
        #expect(noPayload["error"] as? String == "malformed")
    }

    @Test func reportShapeForValidAndInvalid() async throws {
        let jws = try JWSSigner.sign(JWSVerificationTests.transaction(), pki: pki)
        let valid = await decoder.decode(jws, kind: .transaction)
        let text = valid.jsonString()
        #expect(text.hasPrefix(#"{"valid":true,"kind":"transaction","payload":{"transactionId":"2000000001""#))
        #expect(text.contains(#""purchaseDate":1697679936049.7297"#))
        #expect(text.contains(#""price":9223372036854775807"#))
        #expect(text.contains(#""brandNewField":{"nested":[1,2.50]}"#))
        #expect(valid.exitCode == 0)

        let invalid = try await report(JWSSigner.tamper(jws, segment: 2), kind: .transaction)
        #expect(Set(invalid.keys) == ["valid", "kind", "error", "message"])
        #expect(invalid["valid"] as? Bool == false)
        #expect(invalid["error"] as? String == "invalid_signature")
        #expect(await decoder.decode("x", kind: .transaction).exitCode == 1)
    }

    @Test func reportsKindMismatches() async throws {
        let jws = try JWSSigner.sign(JWSVerificationTests.transaction(), pki: pki)
        let asReceipt = try await report(jws, kind: .receipt)
        #expect(asReceipt["error"] as? String == "malformed")
        #expect((asReceipt["message"] as? String)?.contains("JWS") == true)
        let receiptAsJWS = try await report("MIAGCSqGSIb3DQEHAqCAMIACAQEx", kind: .transaction)
        #expect((receiptAsJWS["message"] as? String)?.contains("--kind receipt") == true)
        let empty = try await report("")
        #expect(empty["kind"] as? String == "unknown")
        #expect(empty["error"] as? String == "malformed")
        // A damaged payload cannot be recognized, but the report still names the real problem.
        let damaged = try await report(JWSSigner.tamper(jws, segment: 1, at: 0))
        #expect(damaged["error"] as? String == "invalid_signature")
    }

    @Test func everyErrorCodeIsStable() {
        #expect(
            AppStoreVerificationError.Code.allCases.map(\.rawValue) == [
                "malformed", "unsupported_algorithm", "invalid_signature", "untrusted_chain", "missing_apple_oid",
                "certificate_expired", "wrong_bundle_id", "wrong_app_apple_id", "wrong_environment"
            ])
    }
}
