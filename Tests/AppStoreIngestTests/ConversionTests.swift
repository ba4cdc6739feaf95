import AppStoreIngest
import AppStoreSamples
import AppStoreVerification
import Foundation
import LedgerDomain
import Testing
import UTCTime

@Suite("Field conversions")
struct ConversionTests {
    @Test func datesAreWholeMillisecondsRoundedDown() throws {
        let fractional = try #require(Decimal(string: "1697679936049.7297", locale: Locale(identifier: "en_US_POSIX")))
        #expect(Instant(appStore: AppStoreTimestamp(milliseconds: fractional)) == instant(1_697_679_936_049))
        let beforeEpoch = try #require(Decimal(string: "-1.5", locale: Locale(identifier: "en_US_POSIX")))
        #expect(Instant(appStore: AppStoreTimestamp(milliseconds: beforeEpoch)) == instant(-2))
    }

    @Test func productTypes() {
        #expect(LedgerDomain.ProductType(appStore: .autoRenewableSubscription) == .autoRenewable)
        #expect(LedgerDomain.ProductType(appStore: .nonRenewingSubscription) == .nonRenewing)
        #expect(LedgerDomain.ProductType(appStore: .consumable) == .consumable)
        #expect(LedgerDomain.ProductType(appStore: .nonConsumable) == .nonConsumable)
        #expect(LedgerDomain.ProductType(appStore: AppStoreVerification.ProductType(rawValue: "Bundle")) == nil)
        #expect(LedgerDomain.ProductType(appStore: nil) == nil)
    }

    @Test(arguments: [(1, LedgerDomain.OfferType.introductory), (2, .promotional), (3, .offerCode), (4, .winBack)])
    func offers(_ code: Int, _ kind: LedgerDomain.OfferType) throws {
        let t = try transaction(AppStorePayloads.transaction(id: "1", original: "1", offerType: code))
        #expect(try TransactionFacts(t, appUserID: nil).offer == Offer(type: kind, paymentMode: "FREE_TRIAL", period: "P1W"))
    }

    @Test func unknownOfferTypeIsLeftOut() throws {
        let t = try transaction(AppStorePayloads.transaction(id: "1", original: "1", offerType: 9))
        #expect(try TransactionFacts(t, appUserID: nil).offer == nil)
    }

    @Test func tokenPolicies() {
        #expect(AppAccountTokenPolicy.ignore.appUserID(forToken: "t") == nil)
        #expect(AppAccountTokenPolicy.tokenIsAppUserID.appUserID(forToken: "t") == "t")
        #expect(AppAccountTokenPolicy.tokenIsAppUserID.appUserID(forToken: "") == nil)
        #expect(AppAccountTokenPolicy.mapping { $0 == "t" ? "u" : nil }.appUserID(forToken: "t") == "u")
        #expect(AppAccountTokenPolicy.mapping { _ in nil }.appUserID(forToken: "x") == nil)
    }
}
