import LedgerDomain
import Testing
import UTCTime

/// Support grants in the domain: the events round-trip, the reducer converges in any order, and a grant gives its
/// entitlement until its expiry or revocation, as the clock and as-of judge it, without making anyone a paying user.
@Suite("Support grants")
struct GrantTests {
    static let grant = EntitlementGrant(
        grantID: "grt_1", appUserID: "u1", entitlementID: "pro", expiresAt: day(10), reason: "outage make-good", grantedBy: "op_sam",
        grantedAt: day(1))
    static let revocation = GrantRevocation(grantID: "grt_1", appUserID: "u1", reason: "given by mistake", revokedBy: "op_ada", revokedAt: day(3))

    @Test func theEventsRoundTripAndLieInTheUsersStream() throws {
        for event in [LedgerEvent.grantGiven(Self.grant), .grantRevoked(Self.revocation)] {
            let stored = event.encoded()
            #expect(try LedgerEvent.decode(type: stored.type, schemaVersion: stored.schemaVersion, payload: stored.payload) == event)
            #expect(event.appUserID == "u1" && event.originalTransactionIDs.isEmpty)
        }
        #expect(LedgerEvent.grantGiven(Self.grant).encoded().type == "user.grant_given")
        #expect(LedgerEvent.grantGiven(Self.grant).idempotencyKey != LedgerEvent.grantRevoked(Self.revocation).idempotencyKey)
    }

    @Test func theReducerConvergesInAnyOrderAndWithDuplicates() {
        var given = Log()
        given.append([.grantGiven(Self.grant), .grantRevoked(Self.revocation)])
        var reversed = Log()
        reversed.append([.grantRevoked(Self.revocation), .grantGiven(Self.grant), .grantGiven(Self.grant)])
        let a = fold(GrantsReducer.self, key: "u1", events: given.events, asOf: nil)
        let b = fold(GrantsReducer.self, key: "u1", events: reversed.events, asOf: nil)
        #expect(a == b)
        #expect(a.summaries.map(\.revokedAt) == [day(3)])
        #expect(fold(GrantsReducer.self, key: "u2", events: given.events, asOf: nil).summaries.isEmpty, "another user has none")
    }

    @Test func aGrantGivesItsEntitlementUntilItsExpiryAsTheClockAndAsOfJudge() {
        var log = Log()
        log.append(.grantGiven(Self.grant), recorded: day(1))
        let catalog = Catalog(entitlementsByProduct: ["monthly": ["pro"]])
        let during = UserSnapshot(appUserID: "u1", events: log.events, asOf: nil, catalog: catalog, at: day(5))
        #expect(during.entitlements["pro"] == Entitlement(entitlementID: "pro", isActive: true, expiresAt: day(10), grantingProductID: "grant:grt_1"))
        let after = UserSnapshot(appUserID: "u1", events: log.events, asOf: nil, catalog: catalog, at: day(10))
        #expect(after.entitlements["pro"]?.isActive == false, "expired at its expiry, by the read's clock")
        let before = UserSnapshot(appUserID: "u1", events: log.events, asOf: day(0), catalog: catalog, at: day(0))
        #expect(before.entitlements.isEmpty, "as of before the grant, nothing")
        #expect(during.productsStatus.isEmpty && during.activatedSubscriptions.isEmpty, "a grant is not a product or a subscription")

        log.append(.grantRevoked(Self.revocation), recorded: day(3))
        #expect(UserSnapshot(appUserID: "u1", events: log.events, asOf: nil, catalog: catalog, at: day(5)).entitlements["pro"]?.isActive == false)
        #expect(UserSnapshot(appUserID: "u1", events: log.events, asOf: day(2), catalog: catalog, at: day(2)).entitlements["pro"]?.isActive == true)
    }

    @Test func aUserWhoOnlyHoldsGrantsIsNotAPayingUser() {
        var log = Log()
        log.append(.grantGiven(Self.grant))
        #expect(foldAll(PayingUsersReducer.self, events: log.events, asOf: nil).isEmpty)
        #expect(!log.user("u1").hasActive(at: day(5)), "nor does a grant count as holding a purchase for transfers")
    }
}
