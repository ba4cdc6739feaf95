/// Why an App Store Server API call failed, with Apple's own code when Apple answered one.
public enum AppStoreServerAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Apple answered an error status; `errorCode` and `errorMessage` are Apple's `{"errorCode","errorMessage"}`
    /// (absent for a 401, whose body is empty).
    case rejected(status: Int, errorCode: Int?, errorMessage: String?)
    /// No answer: the connection failed or timed out.
    case transport(String)
    /// An answer that is not the JSON the call returns.
    case malformedResponse(String)

    /// Apple's error code, or the HTTP status when Apple gave none (for summaries keyed by code).
    public var code: Int? {
        switch self {
        case .rejected(let status, let errorCode, _): errorCode ?? status
        case .transport, .malformedResponse: nil
        }
    }

    public var description: String {
        switch self {
        case .rejected(401, _, _):
            "the App Store Server API refused the request's token (401): check the app's key_id, issuer_id and private key, and "
                + "that the app's bundle id in the ledger is the key's app"
        case .rejected(let status, let code?, let message):
            "the App Store Server API answered \(status) with error \(code)" + (message.map { ": \($0)" } ?? "")
        case .rejected(let status, nil, let message):
            "the App Store Server API answered \(status)" + (message.map { ": \($0)" } ?? "")
        case .transport(let why): "the App Store Server API could not be reached: \(why)"
        case .malformedResponse(let why): "the App Store Server API answered something unexpected: \(why)"
        }
    }
}

/// Apple's error codes the client acts on (the full list: Apple's "Error codes" of the App Store Server API).
public enum AppStoreServerAPIErrorCode {
    public static let accountNotFoundRetryable = 4_040_002
    public static let appNotFoundRetryable = 4_040_004
    public static let originalTransactionIdNotFoundRetryable = 4_040_006
    public static let generalInternalRetryable = 5_000_001
    public static let rateLimitExceeded = 4_290_000
    public static let transactionIdNotFound = 4_040_010

    /// Apple's codes that say "try again later".
    public static let retryable: Set<Int> = [
        accountNotFoundRetryable, appNotFoundRetryable, originalTransactionIdNotFoundRetryable, generalInternalRetryable,
    ]
}
