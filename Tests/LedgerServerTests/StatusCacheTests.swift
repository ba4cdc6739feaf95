import AppStoreSamples
import Foundation
import HTTPTypes
import LedgerServer
import LedgerServerTestSupport
import LedgerStore
import PostgresTestSupport
import Testing

/// The status cache's promises through the API (`StatusCache`): a repeated read costs no statement; a read that
/// carries a write's token never sees a state older than the write, on the instance that took the write and on
/// another; a change made through another instance is seen once the cache has looked (its loop looks every
/// `pollInterval`, and a cache that has not looked within `staleness` answers nothing: `StatusCacheTableTests`); an
/// expiry is judged at the read's clock; and the cache holds no more than its budget.
@Suite struct StatusCacheTests {
    /// Looks only when told: a stale entry stays until the test lets the cache look.
    static var idle: StatusCache.Settings {
        var settings = StatusCache.Settings()
        settings.staleness = .seconds(3600)
        settings.pollInterval = .seconds(3600)
        return settings
    }

    static func subscription(_ harness: APIHarness, _ id: String, product: String = "monthly") throws -> String {
        let jws = try harness.signer.sign(AppStorePayloads.transaction(id: id, original: id, product: product))
        return #"{"transactions":[{"signed_transaction":"\#(jws)"}]}"#
    }

    static func products(_ api: APIClient, _ tenant: APIClient.Tenant) async throws {
        for (product, entitlement) in [("monthly", "pro"), ("yearly", "max")] {
            _ = try await api.send(
                .put, "/v1/apps/\(tenant.appID)/products/\(product)", headers: tenant.secret,
                json: #"{"type":"auto_renewable","subscription_group":"main","entitlements":["\#(entitlement)"]}"#)
        }
    }

    /// A write; its token.
    static func write(_ api: APIClient, _ tenant: APIClient.Tenant, user: String, _ body: String) async throws -> String {
        let answer = try await api.send(.post, "/v1/users/\(user)/transactions", headers: tenant.secret, json: body)
        #expect(answer.status == .ok, "\(answer.text)")
        return try #require(answer.headers[HTTPField.Name("Ledger-Read-After")!], "no token: \(answer.headers)")
    }

    struct Read: Equatable, CustomStringConvertible {
        var source: String?
        var subscriptions: [String]
        var entitlements: [String]
        var description: String { "from \(source ?? "?"): subscriptions \(subscriptions), entitlements \(entitlements)" }
    }

    static func read(_ api: APIClient, _ tenant: APIClient.Tenant, _ user: String, token: String? = nil) async throws -> Read {
        var headers = tenant.secret
        if let token { headers[HTTPField.Name("Ledger-Read-After")!] = token }
        let answer = try await api.send(.get, "/v1/users/\(user)", headers: headers)
        #expect(answer.status == .ok, "\(answer.text)")
        return Read(
            source: answer.headers[HTTPField.Name("Ledger-Read-From")!],
            subscriptions: answer.array("subscriptions").compactMap { $0["original_transaction_id"] as? String }.sorted(),
            entitlements: answer.array("entitlements").filter { $0["is_active"] as? Bool == true }.compactMap { $0["id"] as? String }.sorted())
    }

    @Test func aRepeatedReadIsTheCachesAndATokenNeverSeesAnOlderStateOnOneInstance() async throws {
        let harness = try await APIHarness.make(statusCache: Self.idle)
        let cache = harness.api.statusCache
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.products(api, tenant)
            _ = try await Self.write(api, tenant, user: "alice", try Self.subscription(harness, "9001"))
            try await harness.project()
            try await cache.look()

            let first = try await Self.read(api, tenant, "alice")
            #expect(first == Read(source: "primary", subscriptions: ["9001"], entitlements: ["pro"]))
            #expect(try await Self.read(api, tenant, "alice") == Read(source: "cache", subscriptions: ["9001"], entitlements: ["pro"]))
            let products = try await api.send(.get, "/productsStatus?user-id=alice", headers: [HTTPField.Name("APIKey")!: tenant.secretKey])
            #expect(products.status == .ok && products.headers[HTTPField.Name("Ledger-Read-From")!] == "cache", "\(products.headers)")

            // A second purchase, applied but not yet looked at: a read without a token may get the cached state...
            let token = try await Self.write(api, tenant, user: "alice", try Self.subscription(harness, "9002", product: "yearly"))
            try await harness.project()
            #expect(try await Self.read(api, tenant, "alice") == Read(source: "cache", subscriptions: ["9001"], entitlements: ["pro"]))
            // ...a read with the write's token never does (nothing looks here: it waits its while, then reads the database).
            let fresh = Read(source: "primary", subscriptions: ["9001", "9002"], entitlements: ["max", "pro"])
            #expect(try await Self.read(api, tenant, "alice", token: token) == fresh)
            // Once the cache has looked, the change is everyone's, and the cache answers it.
            try await cache.look()
            #expect(
                try await Self.read(api, tenant, "alice") == Read(source: "primary", subscriptions: ["9001", "9002"], entitlements: ["max", "pro"]))
            #expect(
                try await Self.read(api, tenant, "alice", token: token)
                    == Read(source: "cache", subscriptions: ["9001", "9002"], entitlements: ["max", "pro"]))

            // A token that is not one is the caller's mistake.
            var bad = tenant.secret
            bad[HTTPField.Name("Ledger-Read-After")!] = "12-x"
            let refused = try await api.send(.get, "/v1/users/alice", headers: bad)
            #expect(refused.status == .badRequest && refused.errorMessage?.contains("Ledger-Read-After") == true, "\(refused.text)")

            // An erased user is never answered from the cache.
            #expect(try await api.send(.delete, "/v1/users/alice?reason=ticket-9", headers: tenant.secret).status == .ok)
            #expect(try await api.send(.get, "/v1/users/alice", headers: tenant.secret).errorCode == "user_erased")
        }
    }

    @Test(.timeLimit(.minutes(10))) func aTokenFromOneInstanceHoldsOnAnotherAndALookBringsTheOthersChanges() async throws {
        let database = try await TestDatabase.makeDatabase(prefix: "status_cache")
        let first = try await APIHarness.make(database: database, statusCache: Self.idle)
        let second = try await APIHarness.make(database: database, statusCache: Self.idle)
        // The second instance's cache runs its loop, which looks only when a read's token wakes it.
        let loop = Task { await second.api.statusCache.run() }
        defer { loop.cancel() }
        try await first.test { a in
            try await second.test { b in
                #expect(await second.api.statusCache.firstLook(within: .seconds(60)))
                let tenant = try await a.tenant()
                try await Self.products(a, tenant)
                _ = try await Self.write(a, tenant, user: "bob", try Self.subscription(first, "7001"))
                try await first.project()
                try await second.api.statusCache.look()
                #expect(try await Self.read(b, tenant, "bob").source == "primary")
                #expect(try await Self.read(b, tenant, "bob") == Read(source: "cache", subscriptions: ["7001"], entitlements: ["pro"]))

                // Through the first instance; the second has not looked since.
                let token = try await Self.write(a, tenant, user: "bob", try Self.subscription(first, "7002", product: "yearly"))
                try await first.project()
                #expect(try await Self.read(b, tenant, "bob") == Read(source: "cache", subscriptions: ["7001"], entitlements: ["pro"]))
                let withToken = try await Self.read(b, tenant, "bob", token: token)
                #expect(withToken.subscriptions == ["7001", "7002"] && withToken.source != "cache", "\(withToken)")
                // What the token's read found replaced the stale entry, or the look it woke dropped it.
                let after = try await Self.read(b, tenant, "bob")
                #expect(after.subscriptions == ["7001", "7002"] && after.entitlements == ["max", "pro"], "\(after)")

                // Without a token: the second instance sees the first's change once it has looked.
                let refund = try first.signer.sign(
                    AppStorePayloads.transaction(
                        id: "7002", original: "7002", product: "yearly", revocation: AppStorePayloads.jan1 + 200, revocationReason: 0))
                _ = try await Self.write(a, tenant, user: "bob", #"{"transactions":[{"signed_transaction":"\#(refund)"}]}"#)
                try await first.project()
                #expect(try await Self.read(b, tenant, "bob").entitlements == ["max", "pro"], "not looked yet")
                try await second.api.statusCache.look()
                #expect(try await Self.read(b, tenant, "bob").entitlements == ["pro"])
            }
        }
    }

    /// A write answered before the projections applied it (its own wait gave up, here: none) gives a token the
    /// projections are behind; a read with it, cached or not, is refused with 503 `read_after_pending` and Retry-After
    /// until they include it, never answered with the state before the write.
    @Test(arguments: [true, false]) func aTokenAheadOfTheProjectionsIsRefusedNotAnsweredOlder(cached: Bool) async throws {
        var settings = Self.idle
        if !cached { settings.budgetBytes = 0 }
        let harness = try await APIHarness.make(statusCache: settings)
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.products(api, tenant)
            _ = try await Self.write(api, tenant, user: "dave", try Self.subscription(harness, "5001"))
            try await harness.project()
            try await harness.api.statusCache.look()
            #expect(try await Self.read(api, tenant, "dave").subscriptions == ["5001"])

            let token = try await Self.write(api, tenant, user: "dave", try Self.subscription(harness, "5002", product: "yearly"))
            var headers = tenant.secret
            headers[HTTPField.Name("Ledger-Read-After")!] = token
            for path in ["/v1/users/dave", "/productsStatus?user-id=dave"] {
                let refused = try await api.send(.get, path, headers: headers)
                #expect(refused.status == .serviceUnavailable && refused.errorCode == "read_after_pending", "\(path): \(refused.text)")
                #expect(refused.headers[.retryAfter] == "1")
            }
            // Without the token, the state before the write is what there is to read (the projections are behind).
            #expect(try await Self.read(api, tenant, "dave").subscriptions == ["5001"])

            try await harness.project()
            let fresh = try await Self.read(api, tenant, "dave", token: token)
            #expect(fresh.subscriptions == ["5001", "5002"] && fresh.entitlements == ["max", "pro"], "\(fresh)")
        }
    }

    @Test func anEntitlementPastItsExpiryReadsExpiredFromTheCache() async throws {
        let harness = try await APIHarness.make(statusCache: Self.idle)
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.products(api, tenant)
            _ = try await Self.write(api, tenant, user: "carol", try Self.subscription(harness, "8001"))  // expires 1 February
            try await harness.project()
            try await harness.api.statusCache.look()
            _ = try await Self.read(api, tenant, "carol")
            #expect(try await Self.read(api, tenant, "carol") == Read(source: "cache", subscriptions: ["8001"], entitlements: ["pro"]))
            harness.clock.advance(seconds: 30 * 86_400)  // 5 February
            #expect(try await Self.read(api, tenant, "carol") == Read(source: "cache", subscriptions: ["8001"], entitlements: []))
            let user = try await api.send(.get, "/v1/users/carol", headers: tenant.secret)
            #expect(user.array("subscriptions").first?["status"] as? String == "expired", "\(user.text)")
        }
    }

    @Test func theCacheHoldsNoMoreThanItsBudgetWithMoreUsersThanFit() async throws {
        var settings = Self.idle
        // About four users' entries.
        settings.budgetBytes = 4 * 1_100
        let budget = settings.budgetBytes
        let harness = try await APIHarness.make(statusCache: settings)
        let cache = harness.api.statusCache
        try await harness.test { api in
            let tenant = try await api.tenant()
            try await Self.products(api, tenant)
            let users = (0..<12).map { "user-\($0)" }
            for (n, user) in users.enumerated() { _ = try await Self.write(api, tenant, user: user, try Self.subscription(harness, "\(6000 + n)")) }
            try await harness.project()
            try await cache.look()
            for _ in 0..<2 {
                for (n, user) in users.enumerated() {
                    let read = try await Self.read(api, tenant, user)
                    #expect(read.subscriptions == ["\(6000 + n)"] && read.entitlements == ["pro"], "\(user): \(read)")
                    #expect(cache.usage.bytes <= budget)
                }
            }
            #expect(cache.usage.entries > 0 && cache.usage.entries < users.count, "\(cache.usage)")
            // The most recently read are held.
            #expect(try await Self.read(api, tenant, users.last!).source == "cache")
            #expect(try await Self.read(api, tenant, users.first!).source == "primary")
        }
    }
}
