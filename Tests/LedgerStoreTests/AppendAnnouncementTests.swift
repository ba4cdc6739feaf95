import Foundation
import LedgerConcurrency
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Synchronization
import Testing
import UTCTime

/// How appends reach their readers: this process's at once (`LocalAppendSignals`), other processes' by NOTIFYs
/// spaced apart (`AppendAnnouncer`).
@Suite struct AppendAnnouncementTests {
    /// An append wakes this process's readers of its database before `append` returns, with no NOTIFY between;
    /// readers of another database and a refused append wake nobody.
    @Test func anAppendWakesThisProcesssReadersOfItsDatabaseAtOnce() async throws {
        let fixture = try await StoreFixture.make()
        let database = fixture.store.pool.configuration.connectionString
        let (ours, theirs) = (WakeSignal(), WakeSignal())
        LocalAppendSignals.register(ours, database: database)
        LocalAppendSignals.register(theirs, database: database + " (another database)")
        defer {
            LocalAppendSignals.unregister(ours, database: database)
            LocalAppendSignals.unregister(theirs, database: database + " (another database)")
        }

        _ = try await fixture.store.append(app: "app", stream: "s", expected: .noStream, events: [event("first")])
        #expect(ours.isPending)
        #expect(!theirs.isPending)

        await ours.wait(timeout: .seconds(1))  // takes the fire
        await #expect(throws: EventStoreError.self) {
            try await fixture.store.append(app: "app", stream: "s", expected: .noStream, events: [event("refused")])
        }
        #expect(!ours.isPending)

        LocalAppendSignals.unregister(ours, database: database)
        _ = try await fixture.store.append(app: "app", stream: "s", events: [event("after unregistering")])
        #expect(!ours.isPending)
        await fixture.close()
    }

    /// A reader's wake-up (the projection worker's, a subscription's) hears this process's appends without their
    /// NOTIFY, and another process's NOTIFY. Each wait's timeout is far beyond the rest of the test: a wait that
    /// ends by its timeout means the wake-up was not heard.
    @Test func aReadersWakeUpHearsThisProcesssAppendsAndOtherProcessesNotifies() async throws {
        let fixture = try await StoreFixture.make()
        let timeout = Duration.seconds(60)
        // A store whose next NOTIFY is an hour away once its first has gone out, heard here before the wake-up
        // begins listening: the append below can then wake it only directly.
        let store = EventStore(pool: fixture.store.pool, notifySpacing: .seconds(3600))
        let listener = PostgresListener(configuration: store.pool.configuration, channels: [EventStore.notificationChannel])
        var heard = listener.events().makeAsyncIterator()
        #expect(await heard.next() == .connected)
        _ = try await store.append(app: "app", stream: "s", events: [event("first, announced")])
        guard case .notification = await heard.next() else { Issue.record("the first append was not announced"); return }
        await listener.stop()

        let wakeUp = AppendWakeUp(configuration: fixture.store.pool.configuration)
        // Its LISTEN connecting wakes it first (appends may have gone unheard before).
        var started = ContinuousClock.now
        await wakeUp.wait(timeout: timeout)
        #expect(ContinuousClock.now - started < timeout / 2, "the LISTEN connecting did not wake the reader")

        _ = try await store.append(app: "app", stream: "s", events: [event("second, not announced for an hour")])
        started = ContinuousClock.now
        await wakeUp.wait(timeout: timeout)
        #expect(ContinuousClock.now - started < timeout / 2, "this process's append did not wake the reader")

        // Another process's append reaches this one as a NOTIFY only; repeated, since the LISTEN connects meanwhile.
        let notifying = Task {
            while !Task.isCancelled {
                await fixture.store.notifyAppended(app: "app")
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        started = ContinuousClock.now
        await wakeUp.wait(timeout: timeout)
        #expect(ContinuousClock.now - started < timeout / 2, "no NOTIFY woke the reader")
        notifying.cancel()
        await notifying.value

        await wakeUp.stop()
        await fixture.close()
    }

    /// A stream of appends shares NOTIFYs at least `spacing` apart, and the last append is still announced.
    /// The spacing is long beside an append even on a starved machine (appends of 400 ms each, in a full test run on
    /// two cores, once made every append's NOTIFY its own).
    @Test func notifiesAreSpacedAndTheLastAppendIsAnnounced() async throws {
        let fixture = try await StoreFixture.make()
        let spacing = Duration.seconds(5)
        let store = EventStore(pool: fixture.store.pool, notifySpacing: spacing)
        let listener = PostgresListener(configuration: store.pool.configuration, channels: [EventStore.notificationChannel])
        let received = Mutex<[ContinuousClock.Instant]>([])
        var events = listener.events().makeAsyncIterator()
        #expect(await events.next() == .connected)
        let listening = Task { [events] in
            var events = events
            while let event = await events.next() {
                if case .notification = event { received.withLock { $0.append(.now) } }
            }
        }

        let started = ContinuousClock.now
        let appends = 40
        for index in 0..<appends {
            _ = try await store.append(app: "app", stream: "s", events: [event("append \(index)")])
        }
        let finished = ContinuousClock.now
        // The last append's NOTIFY comes at most one spacing (plus its round trip) after it.
        let deadline = finished + .seconds(30)
        while received.withLock({ $0.last.map { $0 <= finished } ?? true }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let times = received.withLock { $0 }
        #expect(times.last.map { $0 > finished } == true, "no NOTIFY came after the last append")
        // Each NOTIFY but the first began at least `spacing` after the one before; arrival times jitter, so the
        // count is what is held: at most one per spacing over the whole run, and one to start.
        let periods = Int(((times.last ?? finished) - started) / spacing)
        #expect(times.count <= periods + 2, "\(times.count) NOTIFYs in \(periods) spacings")
        #expect(times.count < appends, "\(appends) appends were not coalesced")
        listening.cancel()
        await listener.stop()
        await fixture.close()
    }
}
