import HummingbirdOTP
import LedgerStore
import UTCTime

/// Time-based one-time passwords (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps, as authenticator apps expect),
/// computed by hummingbird-auth's `TOTP`. A code is accepted for its own step and one step either side (clock drift),
/// and only for a step newer than the last one accepted, so a code works once.
package struct OneTimePassword: Sendable {
    package static let stepSeconds: Int64 = 30
    let totp: TOTP

    /// `secret`: the shared secret's text (its UTF-8 bytes are the HMAC key; the authenticator URL carries it base32).
    package init(secret: String) { totp = TOTP(secret: secret) }

    /// A new secret: 20 random bytes (160 bits, RFC 4226's recommended length), hex.
    package static func newSecret() -> String { Hex.string(RandomToken.bytes(20)) }

    /// The `otpauth://` URI an authenticator app reads (as text, or from a QR code of it).
    package func authenticatorURI(operator name: String, issuer: String = "Subscription Ledger") -> String {
        totp.createAuthenticatorURL(label: "\(issuer):\(name)", issuer: issuer)
    }

    package static func step(at instant: Instant) -> Int64 {
        let seconds = instant.secondsSinceEpoch
        return seconds >= 0 ? seconds / stepSeconds : 0
    }

    /// The code of `step`, six digits.
    package func code(step: Int64) -> String {
        let value = totp.compute(date: Instant(secondsSinceEpoch: step * Self.stepSeconds).date)
        let digits = String(value)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// The step whose code `code` is, among `now`'s step and one either side, newer than `after`; nil when none.
    /// Compared in constant time.
    package func matchingStep(_ code: String, at now: Instant, after: Int64) -> Int64? {
        let current = Self.step(at: now)
        var found: Int64?
        for step in (current - 1)...(current + 1) where step > after {
            if Self.equal(Array(code.utf8), Array(self.code(step: step).utf8)) && found == nil { found = step }
        }
        return found
    }

    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
