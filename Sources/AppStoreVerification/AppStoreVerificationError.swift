/// Why a piece of App Store data was rejected.
///
/// The set of codes is closed on purpose: the CLI prints `code` and the HTTP API returns it, so clients and support
/// staff can branch on it. `message` is for humans and says what to fix; its wording may change, the codes never do.
public struct AppStoreVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable, machine-readable reason.
    public enum Code: String, Sendable, Hashable, CaseIterable, Codable {
        /// The input could not be decoded (not a JWS, not base64, not PKCS#7, not JSON, wrong field types, ...).
        case malformed
        /// The JWS header does not say `ES256`, the only algorithm the App Store uses.
        case unsupportedAlgorithm = "unsupported_algorithm"
        /// The signature does not match the signed bytes and the signing certificate.
        case invalidSignature = "invalid_signature"
        /// The certificates do not chain to a configured root (or cannot be parsed, or are not the expected shape).
        case untrustedChain = "untrusted_chain"
        /// The chain is trusted but lacks Apple's App Store receipt-signing / WWDR intermediate OIDs.
        case missingAppleOID = "missing_apple_oid"
        /// The chain is trusted but a certificate was not valid at the data's signing date.
        case certificateExpired = "certificate_expired"
        /// The data is for another app.
        case wrongBundleId = "wrong_bundle_id"
        /// The data is for another App Store app id (checked in production only).
        case wrongAppAppleId = "wrong_app_apple_id"
        /// The data comes from another environment (Production, Sandbox, Xcode, LocalTesting).
        case wrongEnvironment = "wrong_environment"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    static func malformed(_ message: String) -> Self { .init(.malformed, message) }

    /// The same error, its message prefixed with where it happened (e.g. a nested JWS in a notification).
    func located(at path: String) -> Self { .init(code, "\(path): \(message)") }
}
