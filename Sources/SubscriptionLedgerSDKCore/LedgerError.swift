import Foundation

/// Why an SDK call failed. Server refusals carry the ledger's stable `error.code` as a `LedgerErrorCode`.
public enum LedgerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A call made before `PurchaseManager.configure`, or on a manager set up without a configuration.
    case notConfigured
    /// The ledger could not be reached (no network, connection refused, timed out). Uploads stay queued and are sent
    /// again when the network is back.
    case transport(String)
    /// The ledger answered with an error (`error.code` / `error.message`, and the HTTP status).
    case server(LedgerServerError)
    /// Restore (or an upload that links purchases) was refused by the app's transfer policy: the purchases belong to
    /// another user and the policy keeps them there. Nothing was moved.
    case restoreRefused(conflicts: [RestoreConflict], message: String)
    /// The ledger answered something that is not the documented shape.
    case invalidResponse(String)
    /// The store (StoreKit) failed the purchase or had nothing to upload.
    case store(String)

    /// Whether sending the same request again later may succeed (network loss, 5xx, 429): such uploads stay queued.
    public var isRetryable: Bool {
        switch self {
        case .transport: true
        case .server(let error): error.status >= 500 || error.status == 429 || error.status == 408
        default: false
        }
    }

    public var description: String {
        switch self {
        case .notConfigured: "the PurchaseManager is not configured: call configure(with:) first"
        case .transport(let message): "the ledger is unreachable: \(message)"
        case .server(let error): "the ledger refused (\(error.status) \(error.code.rawValue)): \(error.message)"
        case .restoreRefused(let conflicts, let message): "restore refused (\(conflicts.count) purchase(s) of another user): \(message)"
        case .invalidResponse(let message): "unexpected answer from the ledger: \(message)"
        case .store(let message): "the store failed: \(message)"
        }
    }
}

/// An error answer of the ledger: `{"error":{"code","message"}}` with its HTTP status.
public struct LedgerServerError: Sendable, Equatable {
    public var status: Int
    public var code: LedgerErrorCode
    public var message: String
    /// The `X-Request-Id` to quote when reporting a 5xx.
    public var requestID: String?
    /// The answer's `Retry-After`, in seconds, when it had one.
    public var retryAfterSeconds: Int?

    public init(status: Int, code: LedgerErrorCode, message: String, requestID: String? = nil, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.requestID = requestID
        self.retryAfterSeconds = retryAfterSeconds
    }
}

/// The ledger's stable error codes (the OpenAPI document's `Error.code`); codes added later arrive as `.other`.
/// (Not `RawRepresentable`: its default `==` compares raw values, which `rawValue` itself compares cases with.)
public enum LedgerErrorCode: Sendable, Hashable {
    case unauthorized, forbidden, invalidJSON, invalidRequest, notFound, methodNotAllowed, notAcceptable, payloadTooLarge
    case unsupportedMediaType, tooManyStreams, serviceUnavailable, timeout, internalError
    /// A read after a write (`Ledger-Read-After`) came before the ledger applied the write: retry shortly.
    case readAfterPending
    /// Verification of signed App Store data.
    case malformed, unsupportedAlgorithm, invalidSignature, untrustedChain, missingAppleOID, certificateExpired
    case wrongBundleID, wrongAppAppleID, wrongEnvironment, unrecordable
    /// Restore and consume.
    case restoreRefused, unknownPurchase, alreadyConsumed, notConsumable, refunded, belongsToAnotherUser
    case other(String)

    private static let known: [String: LedgerErrorCode] = [
        "unauthorized": .unauthorized, "forbidden": .forbidden, "invalid_json": .invalidJSON, "invalid_request": .invalidRequest,
        "not_found": .notFound, "method_not_allowed": .methodNotAllowed, "not_acceptable": .notAcceptable,
        "payload_too_large": .payloadTooLarge, "unsupported_media_type": .unsupportedMediaType, "too_many_streams": .tooManyStreams,
        "service_unavailable": .serviceUnavailable, "timeout": .timeout, "internal_error": .internalError, "read_after_pending": .readAfterPending,
        "malformed": .malformed,
        "unsupported_algorithm": .unsupportedAlgorithm, "invalid_signature": .invalidSignature, "untrusted_chain": .untrustedChain,
        "missing_apple_oid": .missingAppleOID, "certificate_expired": .certificateExpired, "wrong_bundle_id": .wrongBundleID,
        "wrong_app_apple_id": .wrongAppAppleID, "wrong_environment": .wrongEnvironment, "unrecordable": .unrecordable,
        "restore_refused": .restoreRefused, "unknown_purchase": .unknownPurchase, "already_consumed": .alreadyConsumed,
        "not_consumable": .notConsumable, "refunded": .refunded, "belongs_to_another_user": .belongsToAnotherUser
    ]

    public init(rawValue: String) {
        self = Self.known[rawValue] ?? .other(rawValue)
    }

    public var rawValue: String {
        if case .other(let code) = self { return code }
        return Self.known.first { $0.value == self }?.key ?? ""
    }
}

/// A purchase a restore could not take: it belongs to `ownerUserID`.
public struct RestoreConflict: Sendable, Equatable, Codable {
    public var originalTransactionID: String
    public var ownerUserID: String?

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "original_transaction_id"
        case ownerUserID = "owner_user_id"
    }
}

extension LedgerError {
    /// The typed error for an error answer's body (`{"error":{"code","message","conflicts"}}`).
    static func fromAnswer(status: Int, body: Data, requestID: String?, retryAfterSeconds: Int? = nil) -> LedgerError {
        struct Envelope: Decodable {
            struct Body: Decodable {
                var code: String
                var message: String
                var conflicts: [RestoreConflict]?
            }
            var error: Body
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: body) else {
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            return .server(
                LedgerServerError(
                    status: status, code: .other("http_\(status)"), message: text, requestID: requestID, retryAfterSeconds: retryAfterSeconds))
        }
        let code = LedgerErrorCode(rawValue: envelope.error.code)
        if code == .restoreRefused { return .restoreRefused(conflicts: envelope.error.conflicts ?? [], message: envelope.error.message) }
        return .server(
            LedgerServerError(
                status: status, code: code, message: envelope.error.message, requestID: requestID, retryAfterSeconds: retryAfterSeconds))
    }
}
