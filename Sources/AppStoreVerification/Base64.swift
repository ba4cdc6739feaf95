import Foundation

/// Base64 decoding with the strictness each input needs.
enum Base64 {
    /// Decodes unpadded base64url (RFC 7515 §2) and rejects non-canonical encodings, i.e. text whose unused trailing
    /// bits are not zero. Without that, two different strings decode to the same bytes, and a "changed" signature
    /// segment could still verify.
    static func decodeURLStrict(_ text: Substring) -> [UInt8]? {
        guard let bytes = decodeURL(text), encodeURL(bytes) == text else { return nil }
        return bytes
    }

    /// Decodes unpadded base64url, tolerating non-zero unused trailing bits. Used for the header and payload, whose
    /// exact text is what the signature covers anyway.
    static func decodeURL(_ text: Substring) -> [UInt8]? {
        guard text.utf8.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for character in text.unicodeScalars {
            switch character {
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(character)
            case "-": standard += "+"
            case "_": standard += "/"
            default: return nil
            }
        }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    static func encodeURL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes standard base64 as found in `x5c` entries (RFC 7515 §4.1.6); JSON may have escaped `/` as `\/`,
    /// which the JSON parser already undid.
    static func decodeStandard(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text).map { [UInt8]($0) }
    }

    /// Decodes a base64 receipt: whitespace and line breaks (as mail and forms introduce) are ignored, nothing else.
    static func decodeReceipt(_ text: String) -> [UInt8]? {
        let compact = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
        guard !compact.isEmpty else { return nil }
        var padded = compact
        if padded.utf8.count % 4 != 0 && !padded.contains("=") {
            padded += String(repeating: "=", count: 4 - padded.utf8.count % 4)
        }
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }

    /// Whether `bytes` look like base64 text themselves (the signature of a receipt encoded twice).
    static func looksLikeBase64Text(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8 else { return false }
        let allowed = bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="),
                 0x0A, 0x0D, 0x20:
                return true
            default:
                return false
            }
        }
        return allowed && decodeReceipt(String(decoding: bytes, as: UTF8.self)) != nil
    }
}
