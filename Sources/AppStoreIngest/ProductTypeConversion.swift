import AppStoreVerification
import LedgerDomain

extension LedgerDomain.ProductType {
    /// Apple's `type` of a transaction as the domain's product type; nil for a type Apple adds later, so the
    /// caller records no purchase rather than a wrong one.
    public init?(appStore type: AppStoreVerification.ProductType?) {
        switch type {
        case .autoRenewableSubscription?: self = .autoRenewable
        case .nonConsumable?: self = .nonConsumable
        case .consumable?: self = .consumable
        case .nonRenewingSubscription?: self = .nonRenewing
        default: return nil
        }
    }
}
