@testable import LedgerCommands
import Synchronization
import Testing

/// The progress text (bar, plain line, rate, time left) and when the reporter shows it.
@Suite struct ProgressTests {
    static func snapshot(done: Int, total: Int?, seconds: Double) -> ProgressSnapshot {
        ProgressSnapshot(label: "verify", unit: "events", done: done, total: total, elapsed: .seconds(seconds))
    }

    @Test func aKnownTotalGivesTheBarThePercentageTheRateAndTheTimeLeft() {
        let halfway = Self.snapshot(done: 500, total: 1000, seconds: 5)
        #expect(halfway.rate == 100)
        #expect(halfway.remaining == .seconds(5))
        #expect(halfway.bar() == "verify [############------------]  50% 500/1000 events 100/s 5s left")
        #expect(halfway.line() == "verify: 500 of 1000 events (50%), 100/s, 5s left")
        let end = Self.snapshot(done: 1000, total: 1000, seconds: 10)
        #expect(end.line(final: true) == "verify: done, 1000 of 1000 events (100%) in 10s, 100/s")
        #expect(end.bar(final: true) == "verify [########################] 100% 1000/1000 events 100/s in 10s")
    }

    @Test func anUnknownTotalGivesCountAndRateOnly() {
        let snapshot = ProgressSnapshot(label: "import", unit: "events", done: 1500, total: nil, elapsed: .seconds(5))
        #expect(snapshot.remaining == nil)
        #expect(snapshot.bar() == "import 1500 events 300/s")
        #expect(snapshot.line() == "import: 1500 events, 300/s")
        #expect(snapshot.line(final: true) == "import: done, 1500 events in 5s, 300/s")
    }

    @Test func nothingDoneYetHasNoRateAndWorkThatGrewPastItsTotalStopsAtTheEnd() {
        let start = Self.snapshot(done: 0, total: 10, seconds: 0)
        #expect(start.rate == nil && start.remaining == nil)
        #expect(start.bar() == "verify [------------------------]   0% 0/10 events")
        #expect(start.line() == "verify: 0 of 10 events (0%)")
        let grown = Self.snapshot(done: 12, total: 10, seconds: 4)
        #expect(grown.fraction == 1)
        #expect(grown.remaining == .zero)
        #expect(grown.bar(width: 4) == "verify [####] 100% 12/10 events 3.0/s 0s left")
        #expect(Self.snapshot(done: 0, total: 0, seconds: 1).line() == "verify: 0 of 0 events (100%)")
    }

    @Test func durationsAndRatesReadForPeople() {
        #expect(ProgressSnapshot.duration(.seconds(4.9)) == "4s")
        #expect(ProgressSnapshot.duration(.seconds(65)) == "1m05s")
        #expect(ProgressSnapshot.duration(.seconds(7_500)) == "2h05m")
        #expect(ProgressSnapshot.rate(2.5) == "2.5")
        #expect(ProgressSnapshot.rate(1234.4) == "1234")
        #expect(Self.snapshot(done: 1, total: 3_601, seconds: 1).remaining == .seconds(3_600))
    }

    /// What a reporter wrote, in order.
    final class Written: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ text: String) { lines.withLock { $0.append(text) } }
    }

    @Test func plainLinesAtEveryStepWithAZeroIntervalAndOneFinalLine() {
        let written = Written()
        let reporter = ProgressReporter(label: "export", unit: "events", total: 3, style: .lines, interval: .zero, write: written.append)
        reporter.update(done: 1)
        reporter.update(done: 2)
        reporter.finish(done: 3)
        reporter.finish(done: 3)
        reporter.update(done: 4)
        let lines = written.all
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix("export: ") && $0.hasSuffix("\n") })
        #expect(lines[0].hasPrefix("export: 1 of 3 events (33%)"))
        #expect(lines[1].hasPrefix("export: 2 of 3 events (66%)"))
        #expect(lines[2].hasPrefix("export: done, 3 of 3 events (100%) in "))
    }

    @Test func withinTheIntervalOnlyTheFinalLineIsShown() {
        let written = Written()
        let reporter = ProgressReporter(label: "finalize", unit: "accounts", style: .lines, interval: .seconds(3_600), write: written.append)
        for done in 1...50 { reporter.update(done: done, total: 50) }
        reporter.finish()
        #expect(written.all.count == 1)
        #expect(written.all.first?.hasPrefix("finalize: done, 50 of 50 accounts (100%) in ") == true)
    }

    @Test func partsAddUpAndTheBarIsRedrawnInPlaceThenEnded() {
        let written = Written()
        let reporter = ProgressReporter(label: "replay", unit: "events", total: 20, style: .bar, interval: .zero, write: written.append)
        reporter.update(part: "purchases", done: 5)
        reporter.update(part: "subscription_status", done: 4)
        reporter.update(part: "purchases", done: 10)
        reporter.finish()
        let writes = written.all
        #expect(writes.count == 4)
        #expect(writes.allSatisfy { $0.hasPrefix("\r") })
        #expect(writes[2].contains(" 14/20 events"))
        #expect(writes.dropLast().allSatisfy { !$0.contains("\n") })
        #expect(writes.last?.hasSuffix("\n") == true && writes.last?.contains(" 14/20 events") == true)
        #expect(writes.last?.contains(" in ") == true && writes.last?.contains(" left") == false)
    }
}
