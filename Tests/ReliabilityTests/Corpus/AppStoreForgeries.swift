import AppStoreSamples
import Foundation
import X509

/// App Store data that must never be recorded: JWS that is forged, re-signed by a key not chaining to the trusted
/// root, unsigned (`alg: none`), or carried by a wrong chain; receipts that are truncated, double-encoded, or signed
/// by a stranger. Each is sent where the App Store's data enters the service.
struct AppStoreForgeries {
    /// The harness's signer (trusted), a stranger's (not trusted), and a trusted PKI whose leaf has expired.
    let signer: AppStoreTestSigner
    let stranger: AppStoreTestSigner
    let expired: TestPKI

    static let transactionJSON = AppStorePayloads.transaction(
        id: "777001", original: "777001", product: "lifetime", type: "Non-Consumable",
        expires: nil)
    static let expiredValidity = Date(timeIntervalSince1970: 1_500_000_000)...Date(timeIntervalSince1970: 1_600_000_000)

    /// A PKI that the harness must trust (`extraRoots`) for `expired-leaf` to be refused for its date alone.
    static let expiredPKI = Result { try TestPKI(TestPKI.Options(leafValidity: expiredValidity), name: "Expired") }

    /// Forged variants of a JWS over `payload`, by name.
    func forgedJWS(_ payload: String) throws -> [(String, String)] {
        let valid = try signer.sign(payload)
        let pki = signer.jws
        let noneHeader = #"{"alg":"none","x5c":["\#(try Data(TestPKI.der(pki.leaf)).base64EncodedString())"]}"#
        return [
            ("tampered-header", JWSSigner.tamper(valid, segment: 0)),
            ("tampered-payload", JWSSigner.tamper(valid, segment: 1)),
            ("tampered-signature", JWSSigner.tamper(valid, segment: 2)),
            ("resigned-by-stranger", try stranger.sign(payload)),
            ("alg-none", JWSSigner.base64URL(Array(noneHeader.utf8)) + "." + JWSSigner.base64URL(Array(payload.utf8)) + "."),
            ("alg-hs256", try JWSSigner.sign(payload, pki: pki, alg: "HS256")),
            ("x5c-reversed", try JWSSigner.sign(payload, key: pki.leafKey, chain: [pki.root, pki.intermediate, pki.leaf])),
            ("x5c-intermediate-first", try JWSSigner.sign(payload, key: pki.leafKey, chain: [pki.intermediate, pki.leaf, pki.root])),
            (
                "leaf-not-issued-by-intermediate",
                try JWSSigner.sign(
                    payload, key: stranger.jws.leafKey,
                    chain: [
                        stranger.jws.leaf, pki.intermediate,
                        pki.root
                    ])
            ),
            ("leaf-only", try JWSSigner.sign(payload, key: pki.leafKey, chain: [pki.leaf])),
            ("expired-leaf", try JWSSigner.sign(payload, pki: expired)),
            ("no-signature", valid.split(separator: ".").prefix(2).joined(separator: ".")),
            ("four-segments", valid + ".e30"),
            ("base64-of-jws", Data(valid.utf8).base64EncodedString()),
            ("payload-not-json", try signer.sign("not json")),
            ("payload-array", try signer.sign("[]")),
            ("garbage", "not.a.jws")
        ]
    }

    /// Forged receipts (base64 text for `/uploadReceipt`'s `data`), by name.
    func forgedReceipts() throws -> [(String, String)] {
        let purchase = ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "777100")
        let valid = try signer.receipt(purchases: [purchase])
        var flipped = [UInt8](Data(base64Encoded: valid) ?? Data())
        flipped[flipped.count / 2] ^= 0x01
        return [
            ("truncated", String(valid.prefix(valid.count / 2))),
            ("truncated-at-4", String(valid.prefix(valid.count / 2 / 4 * 4))),
            ("base64-of-base64", Data(valid.utf8).base64EncodedString()),
            ("signed-by-stranger", try stranger.receipt(purchases: [purchase])),
            ("flipped-byte", Data(flipped).base64EncodedString()),
            ("other-bundle", try signer.receipt(bundleID: "com.other.app", purchases: [purchase])),
            ("jws-instead", try signer.sign(Self.transactionJSON)),
            ("not-base64", "!!!not base64!!!"),
            ("empty", ""),
            ("whitespace", "   \\n\\t  ")
        ]
    }

    /// `(name, uri, body)` requests carrying forged data to every entry point of App Store data of `appID`.
    func requests(appID: String) throws -> [(name: String, uri: String, body: String)] {
        var requests: [(String, String, String)] = []
        for (name, jws) in try forgedJWS(Self.transactionJSON) {
            requests.append(("transactions/\(name)", "/v1/users/alice/transactions", #"{"transactions":[{"signed_transaction":"\#(jws)"}]}"#))
            requests.append(("restore/\(name)", "/v1/users/alice/restore", #"{"signed_transactions":["\#(jws)"]}"#))
            let renewal = try signer.sign(Self.transactionJSON)
            requests.append(
                (
                    "renewal-info/\(name)", "/v1/users/alice/transactions",
                    #"{"transactions":[{"signed_transaction":"\#(renewal)","signed_renewal_info":"\#(jws)"}]}"#
                ))
        }
        let notification = AppStorePayloads.notification(
            type: "ONE_TIME_CHARGE", uuid: "0d9a5e43-3a1e-4a57-9f3e-8d7c6b5a4f30",
            signed: AppStorePayloads.jan1 + 40 * AppStorePayloads.day,
            signedTransaction: try signer.sign(Self.transactionJSON))
        for (name, jws) in try forgedJWS(notification) {
            requests.append(("notification/\(name)", "/v1/apps/\(appID)/notifications", #"{"signedPayload":"\#(jws)"}"#))
        }
        for (name, inner) in try forgedJWS(Self.transactionJSON) {
            let outer = try signer.sign(
                AppStorePayloads.notification(
                    type: "ONE_TIME_CHARGE", uuid: UUID().uuidString.lowercased(),
                    signed: AppStorePayloads.jan1 + 40 * AppStorePayloads.day,
                    signedTransaction: inner))
            requests.append(("notification-inner/\(name)", "/v1/apps/\(appID)/notifications", #"{"signedPayload":"\#(outer)"}"#))
        }
        for (name, receipt) in try forgedReceipts() {
            requests.append(("receipt/\(name)", "/uploadReceipt", #"{"user-id":"alice","data":"\#(receipt)"}"#))
        }
        return requests
    }
}
