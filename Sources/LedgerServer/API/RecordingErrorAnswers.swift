import AppStoreIngest
import AppStoreVerification
import HTTPTypes
import LedgerDomain
import LedgerRecording
import LedgerStore
import LedgerTenancy
import UTCTime

extension APIError {
    /// A write the application layer refused, as the HTTP answer that says what to fix.
    init(_ error: RecordingError) {
        switch error {
        case .unknownApp(let id):
            self = .notFound("there is no app \(id)")
        case .unverifiable(let failure, let path):
            // The verifier's stable code (`invalid_signature`, `untrusted_chain`, `wrong_bundle_id`…) is the API's.
            self = APIError(.badRequest, failure.code.rawValue, path.map { "\($0): \(failure.message)" } ?? failure.message)
        case .unrecordable(let failure):
            self = APIError(.badRequest, "unrecordable", failure.description)
        case .restoreRefused(let refusal):
            self = APIError(
                .conflict, "restore_refused", refusal.message,
                details: [
                    "conflicts": .array(
                        refusal.conflicts.map {
                            .object(["original_transaction_id": .string($0.originalTransactionID), "owner_user_id": .string($0.ownerUserID)])
                        })
                ])
        case .subscriptionNotConsumable(let id):
            self = APIError(.conflict, "not_consumable", "purchase \(id) is a subscription; only consumables are consumed")
        case .nothingToRestore:
            self = .badRequest("send `signed_transactions`, a `receipt`, or (secret key) `original_transaction_ids` to restore")
        case .notConsumed(let refusal):
            let (status, code): (HTTPResponse.Status, String) =
                switch refusal {
                case .unknownPurchase: (.notFound, "unknown_purchase")
                case .notConsumable: (.conflict, "not_consumable")
                case .belongsToAnotherUser: (.conflict, "belongs_to_another_user")
                case .alreadyConsumed: (.conflict, "already_consumed")
                case .refunded: (.conflict, "refunded")
                }
            self = APIError(status, code, refusal.description(productType: \.apiName))
        }
    }
}

extension APIError {
    /// A grant or revocation `GrantRules` refused.
    init(_ error: GrantError) {
        let (status, code): (HTTPResponse.Status, String) =
            switch error {
            case .unknownEntitlement: (.badRequest, "unknown_entitlement")
            case .reasonMissing, .reasonTooLong, .reasonHasControlCharacters, .expiryNotInFuture, .expiryTooFar: (.badRequest, "invalid_request")
            case .unknownGrant: (.notFound, "unknown_grant")
            case .alreadyRevoked: (.conflict, "already_revoked")
            case .alreadyExpired: (.conflict, "already_expired")
            case .idempotencyKeyReused: (.unprocessableContent, "idempotency_key_reused")
            }
        self = APIError(status, code, error.description)
    }
}
