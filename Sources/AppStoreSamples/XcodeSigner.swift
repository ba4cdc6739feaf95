import Foundation
import X509

/// Signs App Store data the way StoreKit testing in Xcode does: by one self-signed certificate (P-256 for JWS,
/// RSA for receipts), environment `Xcode`. The ledger accepts such data only for apps created with `allow_xcode`,
/// and it never counts as paying: it is for trying the service and for tests, never proof of a real purchase.
public struct XcodeSigner: Sendable {
    let jwsCertificate: Certificate
    let jwsKey: Certificate.PrivateKey
    let receiptCertificate: Certificate
    let receiptKey: Certificate.PrivateKey

    public init() throws {
        (jwsCertificate, jwsKey) = try TestPKI.selfSigned(rsa: false)
        (receiptCertificate, receiptKey) = try TestPKI.selfSigned(rsa: true)
    }

    /// A compact JWS of `json` with `x5c` = [the self-signed certificate].
    public func sign(_ json: String) throws -> String {
        try JWSSigner.sign(json, key: jwsKey, chain: [jwsCertificate])
    }

    /// A base64 Xcode receipt holding `purchases` (each from `ReceiptBuilder.inAppPurchase`).
    public func receipt(bundleID: String, purchases: [[UInt8]]) throws -> String {
        let payload = ReceiptBuilder.payload(type: "Xcode", bundleId: bundleID, inApp: purchases)
        let der = try ReceiptBuilder.sign(payload, signer: receiptCertificate, key: receiptKey, chain: [receiptCertificate])
        return Data(der).base64EncodedString()
    }
}
