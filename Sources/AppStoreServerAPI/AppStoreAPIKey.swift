import Crypto
import Foundation

/// The app's In-App Purchase key for the App Store Server API: the key id and issuer id App Store Connect shows, the
/// app's bundle id, and the P-256 private key of the `.p8` file.
///
/// The private key lives only in memory: it is read from a file or an environment variable at start, never written to
/// the event log, and `description` never shows it (so a logged key or error cannot leak it).
package struct AppStoreAPIKey: Sendable, CustomStringConvertible {
    package let keyID: String
    package let issuerID: String
    package let bundleID: String
    let privateKey: P256.Signing.PrivateKey

    package init(keyID: String, issuerID: String, bundleID: String, privateKey: P256.Signing.PrivateKey) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
        self.privateKey = privateKey
    }

    /// A key from the text of an `AuthKey_<key id>.p8` file (PKCS#8 PEM, `-----BEGIN PRIVATE KEY-----`).
    package init(keyID: String, issuerID: String, bundleID: String, pkcs8PEM: String) throws(AppStoreAPIKeyError) {
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pkcs8PEM.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            // The underlying error could quote key material: say only what to fix.
            throw AppStoreAPIKeyError(
                "the private key is not a P-256 key in PKCS#8 PEM (the AuthKey_\(keyID).p8 file App Store Connect downloads)")
        }
        self.init(keyID: keyID, issuerID: issuerID, bundleID: bundleID, privateKey: key)
    }

    /// The public half, to check a token's signature (the fake App Store Server of the tests does).
    package var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    package var description: String { "AppStoreAPIKey(key id \(keyID), issuer \(issuerID), bundle \(bundleID), private key hidden)" }
}

/// A key that cannot be used, with what to fix.
package struct AppStoreAPIKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
