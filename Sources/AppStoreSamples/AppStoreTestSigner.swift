import Foundation
import X509

/// Signs App Store data with in-process test PKIs shaped like Apple's: JWS (transactions, renewal infos,
/// notifications) by a P-256 chain, receipts by an RSA chain. A verifier trusting `roots` accepts what it signs.
public struct AppStoreTestSigner: Sendable {
    public let jws: TestPKI
    public let receipts: TestPKI

    public init() throws {
        jws = try TestPKI(name: "Test JWS")
        var rsa = TestPKI.Options()
        rsa.rsaLeaf = true
        receipts = try TestPKI(rsa, name: "Test Receipts")
    }

    /// The roots a verifier must trust to accept this signer's data.
    public var roots: [Certificate] { [jws.root, receipts.root] }

    /// A compact JWS of `json`.
    public func sign(_ json: String) throws -> String { try JWSSigner.sign(json, pki: jws) }

    /// A notification's `signedPayload`, with its transaction (and renewal info) signed inside it.
    public func notification(
        type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), signed: Int64,
        transactionJSON: String?, renewalInfoJSON: String? = nil, environment: String = "Sandbox",
        bundleID: String = "com.example.app"
    ) throws -> String {
        try sign(
            AppStorePayloads.notification(
                type: type, subtype: subtype, uuid: uuid, signed: signed, environment: environment, bundleID: bundleID,
                signedTransaction: try transactionJSON.map(sign), signedRenewalInfo: try renewalInfoJSON.map(sign)))
    }

    /// A base64 app receipt holding `purchases` (each from `ReceiptBuilder.inAppPurchase`).
    public func receipt(type: String = "ProductionSandbox", bundleID: String = "com.example.app", purchases: [[UInt8]]) throws -> String {
        let payload = ReceiptBuilder.payload(type: type, bundleId: bundleID, inApp: purchases)
        let der = try ReceiptBuilder.sign(payload, signer: receipts.leaf, key: receipts.leafKey, chain: receipts.chain)
        return Data(der).base64EncodedString()
    }
}
