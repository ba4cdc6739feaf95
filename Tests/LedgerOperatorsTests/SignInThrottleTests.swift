import Crypto
import LedgerOperators
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

@Suite struct SignInThrottleTests {
    static let start = Instant(secondsSinceEpoch: 1_795_000_000)

    @Test func failuresWaitLongerEachTimeThenLockAndAreForgotten() {
        #expect((0...11).map { SignInThrottle.wait(after: $0) } == [0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        var throttle = SignInThrottle()
        var now = Self.start
        for _ in 0..<3 { throttle.failed(at: now) }
        #expect(throttle.decide(at: now) == .wait(until: now.adding(.seconds(1))))
        #expect(throttle.decide(at: now.adding(.seconds(1))) == .check)
        for _ in 3..<9 {
            now = now.adding(.seconds(61))
            throttle.failed(at: now)
        }
        #expect(throttle.failures == 9 && throttle.decide(at: now.adding(.seconds(59))) == .wait(until: now.adding(.seconds(60))))
        now = now.adding(.seconds(61))
        throttle.failed(at: now)
        #expect(throttle.decide(at: now.adding(.seconds(14 * 60))) == .locked(until: now.adding(.seconds(15 * 60))))
        #expect(throttle.decide(at: now.adding(.seconds(15 * 60))) == .check)
        // After the lock, counting starts again; quiet for 15 minutes, failures are forgotten.
        throttle.failed(at: now.adding(.seconds(15 * 60)))
        #expect(throttle.failures == 1 && throttle.lockedUntil == nil)
        var quiet = SignInThrottle()
        for _ in 0..<5 { quiet.failed(at: Self.start) }
        #expect(quiet.decide(at: Self.start.adding(.seconds(15 * 60))) == .check)
        quiet.failed(at: Self.start.adding(.seconds(15 * 60)))
        #expect(quiet.failures == 1)
    }

    /// A guesser who waits out every slow-down: `attempts` wrong passwords, one a second (or as soon as allowed).
    static func guess(_ store: OperatorStore, names: [String], from address: String?, attempts: Int, from start: Instant)
        async throws -> (checked: Int, throttled: Int, end: Instant)
    {
        var (checked, throttled, now) = (0, 0, start)
        for attempt in 0..<attempts {
            do {
                _ = try await store.signIn(
                    name: names[attempt % names.count], password: "not the password at all", oneTimePassword: nil, from: address, at: now)
            } catch OperatorError.signInRefused {
                checked += 1
            } catch OperatorError.signInThrottled {
                throttled += 1
            }
            now = now.adding(.seconds(1))
        }
        return (checked, throttled, now)
    }

    @Test func guessingOneAccountOrManyFromOneAddressIsSlowedThenLockedWhileOthersSignIn() async throws {
        let pool = try await LedgerDatabase.open(
            connectionString: try await TestDatabase.makeDatabase(prefix: "throttle"), migrations: try SchemaLocation.migrations())
        let store = OperatorStore(pool: pool, masterKey: SymmetricKey(size: .bits256))
        let password = "correct horse battery staple"
        for name in ["victim", "other", "third"] {
            _ = try await store.add(name: name, role: .support, password: password, oneTimePassword: false, by: .shell(user: "test"), at: Self.start)
        }

        // 20 wrong passwords against one account, from changing addresses: slowed, then locked.
        var now = Self.start
        var checked = 0
        for attempt in 0..<20 {
            let (c, _, end) = try await Self.guess(store, names: ["victim"], from: "198.51.100.\(attempt)", attempts: 1, from: now)
            checked += c
            now = end
        }
        #expect(checked < 10, "most attempts were refused unchecked, \(checked) were checked")
        await #expect(throws: OperatorError.self) {
            try await store.signIn(name: "victim", password: password, oneTimePassword: nil, from: "203.0.113.9", at: now)
        }
        // Another operator signs in normally meanwhile.
        #expect(try await store.signIn(name: "other", password: password, oneTimePassword: nil, from: "203.0.113.9", at: now).name == "other")

        // 20 wrong passwords against many names (existing or not) from one address: that address is slowed, then locked.
        let many = try await Self.guess(store, names: ["a", "b", "c", "d", "e", "third", "g"], from: "192.0.2.7", attempts: 20, from: now)
        #expect(many.checked < 10 && many.throttled > 10, "\(many)")
        await #expect(throws: OperatorError.self) {
            try await store.signIn(name: "third", password: password, oneTimePassword: nil, from: "192.0.2.7", at: many.end)
        }
        #expect(try await store.signIn(name: "third", password: password, oneTimePassword: nil, from: "192.0.2.8", at: many.end).name == "third")

        // An admin lifts the locks.
        #expect(try await store.unlock(name: "victim", by: .shell(user: "test"), at: now))
        #expect(try await store.unlock(address: "192.0.2.7", by: .shell(user: "test"), at: now))
        #expect(try await store.signIn(name: "victim", password: password, oneTimePassword: nil, from: "192.0.2.7", at: many.end).name == "victim")
        await pool.shutdown()
    }
}
