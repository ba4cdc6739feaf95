import Crypto
import Foundation

/// Identifiers and secrets from the system's cryptographic random source.
package enum RandomToken {
    package static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `prefix` + 24 lowercase hex digits (96 random bits): unguessable and safe in URLs.
    package static func identifier(prefix: String) -> String {
        prefix + Hex.string(bytes(12))
    }

    /// `prefix` + 24 lowercase hex digits like `identifier(prefix:)`'s, but the same for the same `parts`: the first 96
    /// bits of the SHA-256 of the parts, each prefixed with its length. For what a client's retry must find again (a
    /// grant under its `Idempotency-Key`); unguessable as long as one part is.
    package static func identifier(prefix: String, derivedFrom parts: [String]) -> String {
        var hash = SHA256()
        for part in parts {
            let bytes = Array(part.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { hash.update(bufferPointer: $0) }
            hash.update(data: bytes)
        }
        return prefix + Hex.string(Array(hash.finalize().prefix(12)))
    }

    /// 256 random bits, base64url without padding.
    package static func secret() -> String {
        Data(bytes(32)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
