import AppStoreIngest
import AppStoreVerification
import LedgerDomain

/// Why a write was not recorded, in the domain's words. Nothing of a refused write is in the log, except where a
/// case says otherwise.
package enum RecordingError: Error, Sendable, Equatable {
    /// No app has this id.
    case unknownApp(String)
    /// Signed App Store data failed offline verification; `path` names the part of the request it came from.
    case unverifiable(AppStoreVerificationError, path: String?)
    /// Verified data the ledger cannot key (a missing id): refused rather than recorded under a made-up key.
    case unrecordable(IngestError)
    /// The app's transfer policy refuses to move purchases that belong to another user. The purchase facts of an
    /// upload are recorded all the same; only the link is refused.
    case restoreRefused(RestoreRefusal)
    /// Consuming is refused by the consumption rules.
    case notConsumed(ConsumeError)
    /// The purchase to consume is a subscription.
    case subscriptionNotConsumable(originalTransactionID: String)
    /// A restore named nothing to restore.
    case nothingToRestore
}
