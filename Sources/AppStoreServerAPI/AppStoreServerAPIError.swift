/// Why an App Store Server API call failed, with Apple's own code when Apple answered one.
package enum AppStoreServerAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Apple answered an error status; `errorCode` and `errorMessage` are Apple's `{"errorCode","errorMessage"}`
    /// (absent for a 401, whose body is empty).
    case rejected(status: Int, errorCode: Int?, errorMessage: String?)
    /// No answer: the connection failed or timed out.
    case transport(String)
    /// An answer that is not the JSON the call returns.
    case malformedResponse(String)

    /// Apple's error code, or the HTTP status when Apple gave none (for summaries keyed by code).
    package var code: Int? {
        switch self {
        case .rejected(let status, let errorCode, _): errorCode ?? status
        case .transport, .malformedResponse: nil
        }
    }

    package var description: String {
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
package enum AppStoreServerAPIErrorCode {
    package static let accountNotFoundRetryable = 4_040_002
    package static let appNotFoundRetryable = 4_040_004
    package static let originalTransactionIdNotFoundRetryable = 4_040_006
    package static let generalInternalRetryable = 5_000_001
    package static let rateLimitExceeded = 4_290_000
    package static let transactionIdNotFound = 4_040_010

    /// Apple's codes that say "try again later".
    package static let retryable: Set<Int> = [
        accountNotFoundRetryable, appNotFoundRetryable, originalTransactionIdNotFoundRetryable, generalInternalRetryable
    ]
}
