import Foundation
import Glibc
import Synchronization
import UTCTime

/// How far a long command has got, as text: pure (no clock, no terminal), so the bar, the rate and the time left are
/// tested directly.
struct ProgressSnapshot: Sendable, Equatable {
    var label: String
    var unit: String
    var done: Int
    /// nil when the amount of work is not known in advance.
    var total: Int?
    var elapsed: Duration

    private var seconds: Double { Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 }

    /// Items per second so far; nil until something was done in a measurable time.
    var rate: Double? { done > 0 && seconds > 0 ? Double(done) / seconds : nil }

    /// The time left at the rate so far; nil without a total or a rate.
    var remaining: Duration? {
        guard let total, let rate else { return nil }
        return .seconds(Double(max(0, total - done)) / rate)
    }

    /// Done out of total, at most 1 (work can grow while it is counted); nil without a total.
    var fraction: Double? { total.map { $0 > 0 ? min(1, Double(done) / Double($0)) : 1 } }

    /// For a terminal, redrawn in place: `verify [##########----------]  50% 500/1000 events 100/s 5s left`; the
    /// final one says how long it took instead.
    func bar(width: Int = 24, final: Bool = false) -> String {
        var parts = [label]
        if let fraction, let total {
            let filled = Int(fraction * Double(width))
            parts.append("[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]")
            parts.append(Self.percent(fraction).leftPadded(to: 4))
            parts.append("\(done)/\(total) \(unit)")
        } else {
            parts.append("\(done) \(unit)")
        }
        if let rate { parts.append("\(Self.rate(rate))/s") }
        if final {
            parts.append("in \(Self.duration(elapsed))")
        } else if let remaining {
            parts.append("\(Self.duration(remaining)) left")
        }
        return parts.joined(separator: " ")
    }

    /// For logs and pipes, one line at a time: `verify: 500 of 1000 events (50%), 100/s, 5s left`; the final one
    /// `verify: done, 1000 of 1000 events (100%) in 10s, 100/s`.
    func line(final: Bool = false) -> String {
        var text = "\(label): " + (final ? "done, " : "")
        if let total, let fraction {
            text += "\(done) of \(total) \(unit) (\(Self.percent(fraction)))"
        } else {
            text += "\(done) \(unit)"
        }
        if final { text += " in \(Self.duration(elapsed))" }
        if let rate { text += ", \(Self.rate(rate))/s" }
        if !final, let remaining { text += ", \(Self.duration(remaining)) left" }
        return text
    }

    static func percent(_ fraction: Double) -> String { "\(Int(fraction * 100))%" }

    static func rate(_ perSecond: Double) -> String {
        perSecond >= 10 ? "\(Int(perSecond.rounded()))" : String(format: "%.1f", perSecond)
    }

    /// `4s`, `3m05s`, `2h07m`: whole seconds are precise enough for people.
    static func duration(_ duration: Duration) -> String {
        let total = max(0, Int(duration.components.seconds))
        let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60)
        if hours > 0 { return "\(hours)h" + String(format: "%02dm", minutes) }
        if minutes > 0 { return "\(minutes)m" + String(format: "%02ds", seconds) }
        return "\(seconds)s"
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

/// Shows a long command's progress on standard error, never on standard output, which carries the command's data
/// (an export's JSON Lines, a report). On a terminal it redraws one bar line; otherwise (a log file, CI, a pipe) it
/// writes a plain line at most every `interval` (default 10 s), so logs stay short, and always a final line with
/// what was done. `LEDGER_PROGRESS_INTERVAL` (seconds; 0: at every step) overrides the interval, e.g. for tests.
final class ProgressReporter: Sendable {
    enum Style: Sendable { case bar, lines }

    private struct State {
        var done = 0
        var total: Int?
        /// The counts of the parts of work reported separately (`update(part:done:)`), summed into `done`.
        var parts: [String: Int] = [:]
        var lastShown: ContinuousClock.Instant
        var finished = false
    }

    let label: String
    let unit: String
    let style: Style
    let interval: Duration
    private let started: ContinuousClock.Instant
    private let state: Mutex<State>
    private let write: @Sendable (String) -> Void

    init(
        label: String, unit: String, total: Int? = nil, style: Style? = nil, interval: Duration? = nil,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        let style = style ?? (isatty(STDERR_FILENO) == 1 ? .bar : .lines)
        let configured = ProcessInfo.processInfo.environment["LEDGER_PROGRESS_INTERVAL"].flatMap(Double.init).map { Duration.seconds($0) }
        self.label = label
        self.unit = unit
        self.style = style
        self.interval = interval ?? configured ?? (style == .bar ? .milliseconds(200) : .seconds(10))
        self.write = write
        let now = ContinuousClock.now
        started = now
        state = Mutex(State(total: total, lastShown: now))
    }

    /// Records that `done` items are done (of `total`, when it becomes known) and shows it if the interval has passed.
    func update(done: Int, total: Int? = nil) {
        state.withLock { state in
            state.done = done
            if let total { state.total = total }
            show(&state, final: false)
        }
    }

    /// For work done in parts that count separately (replay: one count per projection): the sum is what is done.
    func update(part: String, done: Int) {
        state.withLock { state in
            state.parts[part] = done
            state.done = state.parts.values.reduce(0, +)
            show(&state, final: false)
        }
    }

    /// Shows the final line (on a terminal: the bar, then a new line), with `done` when given. Once.
    func finish(done: Int? = nil) {
        state.withLock { state in
            if let done { state.done = done }
            show(&state, final: true)
        }
    }

    private func show(_ state: inout State, final: Bool) {
        guard !state.finished else { return }
        let now = ContinuousClock.now
        guard final || now - state.lastShown >= interval else { return }
        state.lastShown = now
        state.finished = final
        let snapshot = ProgressSnapshot(label: label, unit: unit, done: state.done, total: state.total, elapsed: now - started)
        switch style {
        case .bar: write("\r" + snapshot.bar(final: final) + "\u{1B}[K" + (final ? "\n" : ""))
        case .lines: write(snapshot.line(final: final) + "\n")
        }
    }
}
