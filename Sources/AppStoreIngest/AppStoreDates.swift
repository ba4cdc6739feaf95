import AppStoreVerification
import LedgerDomain
import UTCTime

extension Instant {
    /// An App Store date as the ledger stores it: whole milliseconds, rounded toward negative infinity.
    ///
    /// Why not keep the sub-millisecond part Xcode writes (`…049.7297`): receipts carry whole milliseconds only,
    /// and the same purchase must produce the same payload by every path.
    public init(appStore timestamp: AppStoreTimestamp) {
        self.init(epochMilliseconds: timestamp.wholeMilliseconds)
    }
}
