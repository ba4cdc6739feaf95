import AppStoreVerification
import LedgerDomain
import UTCTime

extension RenewalInfo {
    /// The parts of a verified renewal info the notification mapping uses.
    public init(_ payload: RenewalInfoPayload) {
        self.init(
            autoRenewProductID: payload.autoRenewProductId,
            autoRenewEnabled: payload.autoRenewStatus.flatMap(Self.enabled),
            gracePeriodExpiresAt: payload.gracePeriodExpiresDate.map(Instant.init(appStore:)),
            renewalDate: payload.renewalDate.map(Instant.init(appStore:)))
    }

    /// `autoRenewStatus` 1 / 0 as a flag; nil for a value Apple adds later.
    static func enabled(_ status: AutoRenewStatus) -> Bool? {
        switch status {
        case .on: true
        case .off: false
        default: nil
        }
    }
}
