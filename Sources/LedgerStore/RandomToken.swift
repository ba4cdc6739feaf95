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

    /// 256 random bits, base64url without padding.
    package static func secret() -> String {
        Data(bytes(32)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
