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

    /// The rules: an entitlement of the catalog, a reason on one line, an expiry after now and within the longest; a
    /// revocation of a grant that exists and has not ended, once.
    @Test func theRulesRefuseWhatSupportShouldFix() throws {
        let catalog = Catalog(entitlementsByProduct: ["monthly": ["pro"], "lifetime": ["pro", "extras"]])
        func give(_ entitlement: String = "pro", until: Instant = day(30), reason: String = "make-good") -> Result<EntitlementGrant, GrantError> {
            GrantRules.give(
                grantID: "g", appUserID: "u1", entitlementID: entitlement, expiresAt: until, reason: reason, by: "op_sam", at: day(1),
                catalog: catalog)
        }
        #expect(
            try give().get()
                == EntitlementGrant(
                    grantID: "g", appUserID: "u1", entitlementID: "pro", expiresAt: day(30), reason: "make-good", grantedBy: "op_sam",
                    grantedAt: day(1)))
        #expect(give("por") == .failure(.unknownEntitlement("por", known: ["extras", "pro"])))
        #expect(
            GrantRules.give(
                grantID: "g", appUserID: "u", entitlementID: "pro", expiresAt: day(2), reason: "r", by: "o", at: day(1), catalog: Catalog())
                == .failure(.unknownEntitlement("pro", known: [])))
        #expect(give(reason: " \n") == .failure(.reasonMissing))
        #expect(give(reason: "line one\nline two") == .failure(.reasonHasControlCharacters))
        #expect(give(reason: String(repeating: "x", count: 501)) == .failure(.reasonTooLong(maximum: 500)))
        #expect(give(until: day(1)) == .failure(.expiryNotInFuture(expiresAt: day(1))))
        #expect(give(until: day(1 + 3_661)) == .failure(.expiryTooFar(expiresAt: day(1 + 3_661), latest: day(1 + 3_660))))
        #expect((try? give(until: day(1 + 3_660)).get()) != nil, "the longest grant is allowed")

        var log = Log()
        log.append(.grantGiven(Self.grant))
        let grants = fold(GrantsReducer.self, key: "u1", events: log.events, asOf: nil)
        #expect(GrantRules.revoke(grants, grantID: "nope", reason: "", by: "op_ada", at: day(2)) == .failure(.unknownGrant(grantID: "nope")))
        #expect(
            GrantRules.revoke(grants, grantID: "grt_1", reason: "", by: "op_ada", at: day(10))
                == .failure(.alreadyExpired(grantID: "grt_1", expiredAt: day(10))))
        #expect(
            try GrantRules.revoke(grants, grantID: "grt_1", reason: "", by: "op_ada", at: day(2)).get().revokedAt == day(2), "a reason is optional")
        log.append(.grantRevoked(Self.revocation))
        let revoked = fold(GrantsReducer.self, key: "u1", events: log.events, asOf: nil)
        #expect(
            GrantRules.revoke(revoked, grantID: "grt_1", reason: "", by: "op_ada", at: day(4))
                == .failure(.alreadyRevoked(grantID: "grt_1", revokedAt: day(3))))
    }
}
