import ExactJSON

/// Decoding without verification, for diagnostics and fuzzing only.
///
/// Exposes exactly the parsing the verifier runs on attacker-controlled bytes before any signature is checked, so
/// the fuzz targets exercise it synchronously. Nothing returned here is trustworthy: use `AppStoreVerifier` for
/// anything that matters.
public enum UnverifiedInspection {
    /// Splits a compact JWS and decodes its header and payload JSON.
    public static func jws(_ text: String) throws(AppStoreVerificationError) -> (header: JSONValue, payload: JSONValue) {
        let jws = try CompactJWS(text)
        return (jws.header, try jws.payloadJSON())
    }

    /// Parses a PKCS#7 receipt container (DER or BER) and its attribute payload.
    public static func receipt(der: [UInt8]) throws(AppStoreVerificationError) -> AppReceipt {
        try ReceiptParser.parse(payload: PKCS7SignedData(berEncoded: der).content)
    }

    /// Classifies and decodes receipt text the way `verifyReceipt(base64:)` does before verification.
    public static func receipt(base64 text: String) throws(AppStoreVerificationError) -> AppReceipt {
        try receipt(der: ReceiptInput.decode(text))
    }
}
