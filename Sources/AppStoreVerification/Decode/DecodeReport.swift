import ExactJSON
import Foundation

/// The outcome of `ledger appstore decode`: `{"valid", "kind", "error"?, "message"?, "payload"?}`.
///
/// `payload` is the verified payload verbatim (for a receipt, its decoded fields). It is present only when the data
/// is valid: the content of unverified data is not to be relied upon, and support staff should not see it as fact.
public struct DecodeReport: Sendable, Hashable, Encodable {
    public var valid: Bool
    public var kind: DecodeKind
    public var error: AppStoreVerificationError.Code?
    public var message: String?
    public var payload: JSONValue?

    public init(valid: Bool, kind: DecodeKind, error: AppStoreVerificationError.Code? = nil, message: String? = nil, payload: JSONValue? = nil) {
        self.valid = valid
        self.kind = kind
        self.error = error
        self.message = message
        self.payload = payload
    }

    static func success(_ kind: DecodeKind, _ payload: JSONValue) -> Self {
        DecodeReport(valid: true, kind: kind, payload: payload)
    }

    static func failure(_ kind: DecodeKind, _ error: AppStoreVerificationError) -> Self {
        DecodeReport(valid: false, kind: kind, error: error.code, message: error.message)
    }

    /// The report as one line of JSON, numbers in `payload` exactly as signed (see `JSONWriter`).
    public func jsonString() -> String {
        var members = [JSONMember(key: "valid", value: .bool(valid)), JSONMember(key: "kind", value: .string(kind.rawValue))]
        if let error { members.append(JSONMember(key: "error", value: .string(error.rawValue))) }
        if let message { members.append(JSONMember(key: "message", value: .string(message))) }
        if let payload { members.append(JSONMember(key: "payload", value: payload)) }
        return JSONWriter.string(.object(members))
    }

    /// Exit status for the CLI: 0 valid, 1 invalid.
    public var exitCode: Int32 { valid ? 0 : 1 }
}
