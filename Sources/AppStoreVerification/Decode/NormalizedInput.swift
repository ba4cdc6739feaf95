import ExactJSON
import Foundation

/// An input file's content, reduced to what is inside: a Notification V2 body `{"signedPayload": "…"}`, a bare JWS,
/// or anything else (treated as a base64 receipt).
enum NormalizedInput: Sendable, Hashable {
    /// The `signedPayload` of a notification body.
    case notificationBody(String)
    case jws(String)
    case receipt(String)

    /// Classifies `text` (surrounding whitespace ignored); throws `malformed` for empty input and for JSON that is not
    /// a notification body.
    init(_ text: String) throws(AppStoreVerificationError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .malformed("the input is empty") }
        if trimmed.hasPrefix("{") {
            guard let body = try? JSONParser.parse(Array(trimmed.utf8)) else {
                throw .malformed("the input looks like JSON but does not parse")
            }
            guard let signedPayload = body["signedPayload"]?.stringValue else {
                throw .malformed("the JSON input has no \"signedPayload\" string; expected an App Store Server Notification V2 body")
            }
            self = .notificationBody(signedPayload.trimmingCharacters(in: .whitespacesAndNewlines))
        } else if trimmed.hasPrefix("\""), let quoted = try? JSONParser.parse(Array(trimmed.utf8)), let inner = quoted.stringValue {
            self = try NormalizedInput(inner)
        } else if CompactJWS.looksLikeJWS(trimmed) {
            self = .jws(trimmed)
        } else {
            self = .receipt(trimmed)
        }
    }

    /// The text to verify.
    var text: String {
        switch self {
        case .notificationBody(let text), .jws(let text), .receipt(let text): text
        }
    }
}
