import ExactJSON

/// A JWS in compact serialization (`header.payload.signature`), split and decoded but not yet verified.
///
/// Decoding is deliberately separate from verification: nothing here is trusted until `JWSVerifier` has checked the
/// chain and the signature over `signingInput`, which is the header and payload text exactly as received.
struct CompactJWS: Sendable {
    /// The protected header.
    let header: JSONValue
    /// `alg` from the header, if it is a string.
    let algorithm: String?
    /// `x5c` from the header: base64 (not base64url) DER certificates, leaf first. Nil if absent.
    let certificateChain: [String]?
    /// The payload bytes (normally JSON), or nil if the payload segment is not base64url at all.
    let payloadBytes: [UInt8]?
    /// `ASCII(header) || '.' || ASCII(payload)`, the bytes the signature covers.
    let signingInput: [UInt8]
    /// The signature bytes, or nil if the segment is not canonical base64url.
    let signature: [UInt8]?
    /// The payload parsed as a JSON object once, or why it cannot be (`payloadJSON()`).
    private let payload: Result<JSONValue, AppStoreVerificationError>

    /// Splits and decodes; throws `malformed` when the text cannot be a compact JWS or the header is unusable.
    init(_ text: String) throws(AppStoreVerificationError) {
        let segments = Self.segments(text)
        guard segments.count == 3 else {
            throw .malformed("a JWS has 3 dot-separated parts, this has \(segments.count); pass the signed value exactly as received")
        }
        guard let headerBytes = Base64.decodeURL(segments[0]) else {
            throw .malformed("the JWS header is not base64url")
        }
        let header: JSONValue
        do {
            header = try JSONParser.parse(headerBytes)
        } catch {
            throw .malformed("the JWS header is not JSON (\(error.reason) at byte \(error.offset))")
        }
        guard header.isObject else { throw .malformed("the JWS header is not a JSON object") }
        self.header = header
        self.algorithm = header["alg"]?.stringValue
        if let x5c = header["x5c"] {
            guard case .array(let entries) = x5c else { throw .malformed("the JWS header's x5c is not an array") }
            var chain: [String] = []
            for entry in entries {
                guard let text = entry.stringValue else { throw .malformed("the JWS header's x5c holds a non-string") }
                chain.append(text)
            }
            self.certificateChain = chain
        } else {
            self.certificateChain = nil
        }
        let payloadBytes = Base64.decodeURL(segments[1])
        self.payloadBytes = payloadBytes
        self.signingInput = Array(text.utf8[..<segments[1].endIndex])
        self.signature = Base64.decodeURLStrict(segments[2])
        self.payload = Result { () throws(AppStoreVerificationError) in try Self.parsePayload(payloadBytes) }
    }

    /// The payload as a JSON object, or why it cannot be one (parsed once, when the JWS was split).
    func payloadJSON() throws(AppStoreVerificationError) -> JSONValue { try payload.get() }

    private static func parsePayload(_ payloadBytes: [UInt8]?) throws(AppStoreVerificationError) -> JSONValue {
        guard let payloadBytes else { throw .malformed("the JWS payload is not base64url") }
        let payload: JSONValue
        do {
            payload = try JSONParser.parse(payloadBytes)
        } catch {
            throw .malformed("the JWS payload is not JSON (\(error.reason) at byte \(error.offset))")
        }
        guard payload.isObject else { throw .malformed("the JWS payload is not a JSON object") }
        return payload
    }

    /// `text` split at its dots, by bytes (splitting a String by characters walks grapheme clusters: slow on
    /// kilobytes of base64).
    static func segments(_ text: String) -> [Substring] {
        var segments: [Substring] = []
        var start = text.startIndex
        var index = text.utf8.startIndex
        while let dot = text.utf8[index...].firstIndex(of: UInt8(ascii: ".")) {
            segments.append(text[start..<dot])
            start = text.utf8.index(after: dot)
            index = start
        }
        segments.append(text[start...])
        return segments
    }

    /// Whether `text` has the shape of a compact JWS (three base64url segments), without decoding it.
    static func looksLikeJWS(_ text: String) -> Bool {
        let segments = Self.segments(text)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty else { return false }
        return segments.allSatisfy { segment in segment.utf8.allSatisfy(Base64.isURLAlphabet) }
    }
}
