import Foundation

/// Whether and when to try a failed App Store Server API call again: pure (the attempt number, the answer and a random
/// number in, a decision out), so it is tested directly.
///
/// Retried: 429 (waiting what `Retry-After` says, at most `maximumRetryAfter`), 5xx, Apple's retryable error codes
/// (`AppStoreServerAPIErrorCode.retryable`) and transport failures, with exponential backoff and full jitter
/// (a random wait up to `base · 2^(attempt-1)`, at most `maximumBackoff`) so that many clients do not retry in step.
/// Everything else (a 4xx that says what is wrong) fails at once. At most `maximumAttempts` attempts in all.
package struct AppStoreRetryPolicy: Sendable, Equatable {
    package var maximumAttempts: Int
    package var base: Duration
    package var maximumBackoff: Duration
    package var maximumRetryAfter: Duration

    package init(
        maximumAttempts: Int = 6, base: Duration = .milliseconds(500), maximumBackoff: Duration = .seconds(30),
        maximumRetryAfter: Duration = .seconds(60)
    ) {
        self.maximumAttempts = maximumAttempts
        self.base = base
        self.maximumBackoff = maximumBackoff
        self.maximumRetryAfter = maximumRetryAfter
    }

    package enum Decision: Sendable, Equatable {
        case retry(after: Duration)
        case giveUp
    }

    /// What to do after attempt number `attempt` (1-based) failed with `error`; `retryAfter` is the answer's
    /// `Retry-After` header, `random` a number in 0..<1.
    package func decision(attempt: Int, error: AppStoreServerAPIError, retryAfter: String?, random: Double) -> Decision {
        guard attempt < maximumAttempts, Self.isRetryable(error) else { return .giveUp }
        if case .rejected(429, _, _) = error, let seconds = retryAfter.flatMap(Self.retryAfterSeconds) {
            return .retry(after: min(.seconds(seconds), maximumRetryAfter))
        }
        let ceiling = min(base * Double(1 << min(attempt - 1, 20)), maximumBackoff)
        return .retry(after: ceiling * min(max(random, 0), 1))
    }

    package static func isRetryable(_ error: AppStoreServerAPIError) -> Bool {
        switch error {
        case .rejected(let status, let code, _):
            status == 429 || status >= 500 || code.map(AppStoreServerAPIErrorCode.retryable.contains) == true
        case .transport: true
        case .malformedResponse: false
        }
    }

    /// `Retry-After` in seconds (Apple sends delta-seconds); an HTTP date or garbage is ignored (backoff applies).
    static func retryAfterSeconds(_ text: String) -> Int? {
        guard let seconds = Int(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return seconds
    }
}
