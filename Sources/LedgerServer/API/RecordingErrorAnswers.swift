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
            switch refusal {
            case .unknownPurchase(let id):
                self = APIError(.notFound, "unknown_purchase", "no purchase \(id) is recorded; upload the transaction first")
            case .notConsumable(let id, let type):
                self = APIError(.conflict, "not_consumable", "purchase \(id) is a \(type.apiName) product; only consumables are consumed")
            case .belongsToAnotherUser(let id):
                self = APIError(.conflict, "belongs_to_another_user", "purchase \(id) belongs to another user; restore it to this user first")
            case .alreadyConsumed(let id, let at):
                self = APIError(.conflict, "already_consumed", "purchase \(id) was already consumed at \(at.rfc3339); deliver it once")
            case .refunded(let id):
                self = APIError(.conflict, "refunded", "purchase \(id) was refunded or revoked; do not deliver it")
            }
        }
    }
}
