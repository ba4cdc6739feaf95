import Foundation

/// Base64 decoding with the strictness each input needs.
enum Base64 {
    /// Decodes unpadded base64url (RFC 7515 §2) and rejects non-canonical encodings, i.e. text whose unused trailing
    /// bits are not zero. Without that, two different strings decode to the same bytes, and a "changed" signature
    /// segment could still verify.
    static func decodeURLStrict(_ text: Substring) -> [UInt8]? {
        decodeURL(text, requireZeroPadding: true)
    }

    /// Decodes unpadded base64url, tolerating non-zero unused trailing bits. Used for the header and payload, whose
    /// exact text is what the signature covers anyway. Works on the UTF-8 bytes: a notification carries kilobytes
    /// of it, and going through characters cost more than verifying the signatures.
    static func decodeURL(_ text: Substring, requireZeroPadding: Bool = false) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in utf8 {
            let value = urlAlphabet[Int(character)]
            guard value != invalid else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        if requireZeroPadding && accumulator != 0 { return nil }
        return bytes
    }

    private static let invalid: UInt8 = 0xFF

    static func isURLAlphabet(_ byte: UInt8) -> Bool { urlAlphabet[Int(byte)] != invalid }

    /// The value of each byte in the base64url alphabet, `invalid` for every other byte.
    private static let urlAlphabet: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

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
