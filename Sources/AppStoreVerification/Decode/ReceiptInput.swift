import Foundation

/// Turns the text a client sent as a "receipt" into PKCS#7 bytes, with a distinct message for each common mistake.
public enum ReceiptInput {
    public static func decode(_ text: String) throws(AppStoreVerificationError) -> [UInt8] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw .malformed("the receipt is empty; the app sent no receipt data (on a device without a receipt, refresh it first)")
        }
        if CompactJWS.looksLikeJWS(trimmed) {
            throw .malformed(
                "this is a JWS (StoreKit 2 signed transaction or notification), not a legacy receipt; verify it as a transaction, renewal info, "
                    + "notification or app transaction instead"
            )
        }
        guard let bytes = Base64.decodeReceipt(trimmed) else {
            throw .malformed("the receipt is not base64; send the receipt file's bytes base64-encoded")
        }
        guard !bytes.isEmpty else { throw .malformed("the receipt is empty") }
        if Base64.looksLikeBase64Text(bytes) {
            throw .malformed("the receipt was base64-encoded twice; decode it once on the client before sending")
        }
        guard bytes.first == 0x30 else {
            throw .malformed("the decoded receipt is not PKCS#7 (it does not start with an ASN.1 SEQUENCE)")
        }
        return bytes
    }
}
