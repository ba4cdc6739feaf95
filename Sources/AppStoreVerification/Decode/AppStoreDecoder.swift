import ExactJSON
import Foundation
import UTCTime

/// Recognizes, verifies and reports on one input, as `ledger appstore decode` does; the command only does I/O.
///
/// Accepts a Notification V2 body (`{"signedPayload": "…"}`), a bare JWS, or a base64 receipt, with surrounding
/// whitespace. With `.auto` the kind is recognized from the input (see `KindDetector`).
public struct AppStoreDecoder: Sendable {
    public let verifier: AppStoreVerifier

    public init(verifier: AppStoreVerifier) { self.verifier = verifier }

    public func decode(_ text: String, kind requested: DecodeKind = .auto, now: Instant = Instant(Date())) async -> DecodeReport {
        if requested == .receipt { return await decodeReceipt(text, now: now) }
        let input: NormalizedInput
        do throws(AppStoreVerificationError) {
            input = try NormalizedInput(text)
        } catch {
            return .failure(requested == .auto ? .unknown : requested, error)
        }
        let kind = requested == .auto ? KindDetector.detect(input) : requested
        if case .receipt = input, kind != .receipt {
            return .failure(
                kind,
                .malformed(
                    "expected a JWS (three base64url parts separated by dots) for \(kind.rawValue); this looks like a base64 receipt, use "
                        + "--kind receipt"))
        }
        do throws(AppStoreVerificationError) {
            return .success(kind, try await verify(input.text, as: kind, now: now))
        } catch {
            return .failure(kind, error)
        }
    }

    private func verify(_ text: String, as kind: DecodeKind, now: Instant) async throws(AppStoreVerificationError) -> JSONValue {
        switch kind {
        case .transaction: return try await verifier.verifyTransaction(text, now: now).raw
        case .renewalInfo: return try await verifier.verifyRenewalInfo(text, now: now).raw
        case .notification: return try await verifier.verifyNotification(text, now: now).payload.raw
        case .appTransaction: return try await verifier.verifyAppTransaction(text, now: now).raw
        case .receipt: return try Self.json(try await verifier.verifyReceipt(base64: text, now: now))
        case .auto, .unknown:
            _ = try await verifier.verifyUnclassifiedJWS(text, now: now)
            throw .malformed("the payload is not a recognizable App Store transaction, renewal info, notification or app transaction; pass --kind")
        }
    }

    private func decodeReceipt(_ text: String, now: Instant) async -> DecodeReport {
        do throws(AppStoreVerificationError) {
            return .success(.receipt, try Self.json(try await verifier.verifyReceipt(base64: text, now: now)))
        } catch {
            return .failure(.receipt, error)
        }
    }

    /// A receipt as a `JSONValue`, through `JSONEncoder` (all its numbers are integers, so nothing is lost).
    static func json(_ receipt: AppReceipt) throws(AppStoreVerificationError) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(receipt), let value = try? JSONParser.parse(Array(data)) else {
            throw .malformed("the receipt's fields could not be encoded")
        }
        return value
    }
}
