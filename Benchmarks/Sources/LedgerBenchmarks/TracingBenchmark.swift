import AppStoreSamples
import Foundation
import LedgerTracing
import Tracing

/// What tracing costs (issue 41): off, the work an untraced request does for it, measured in this process (which, like
/// a server started without `OTEL_*`, has no tracer); on, a server exporting by OTLP to a sink on loopback with 10% of
/// traces sampled (`parentbased_traceidratio`) beside a server with tracing off started with it, on the same data.
///
/// The two are loaded at the same time, each with the load of its figure, for a few rounds: whatever the machine and
/// the database do meanwhile (other tenants of a shared host, a checkpoint, a log that grows) falls on both alike. Run
/// one after the other instead, even alternating, identical servers differed by up to 18%. Each round starts a new pair
/// and swaps which of the two starts first and is loaded first: with one pair for every round, the server started
/// first (it holds the exclusive jobs, and its load began a moment earlier) read 7-12% slower than an identical twin.
/// `--tracing-control` runs the traced server with tracing off too, to show the method's own error
/// (Benchmarks/README.md).
struct TracingBenchmark {
    let cluster: BenchCluster
    let signer: AppStoreTestSigner
    let dataset: Dataset
    let readSeconds: Int
    let ingestSeconds: Int
    let notifications: Int
    /// A control run (`--tracing-control`): the traced server has tracing off too, so its ratios show the method's
    /// own error (two identical servers measured in the same arrangement).
    let control: Bool
    /// The traced server's sampling ratio (`OTEL_TRACES_SAMPLER_ARG`; `--tracing-ratio`, 0.1 unless profiling).
    let ratio: String
    /// The figures' name: what the traced server runs with.
    private var label: String { control ? "control, both servers tracing off" : "tracing on (\(Double(ratio).map { "\(Int(($0 * 100).rounded()))%" } ?? ratio) sampled)" }
    let start: @Sendable ([String: String]) async throws -> ServerProcess

    /// Rounds of each comparison, an even number so that each server is first in half of them.
    static let rounds = 4

    /// One load of both servers at once: each side's result and the CPU time its server used meanwhile.
    private struct Pair<T: Sendable>: Sendable {
        var on: T
        var off: T
        var cpuSeconds: (on: Double, off: Double)
    }

    /// One round's results: each figure's (traced, off) pair.
    private struct Round {
        var products: Pair<WrkResult>
        var users: Pair<WrkResult>
        var ingest: Pair<Figure>
        var peakRSSMiB: Double
    }

    /// `ingest`: the same run's ingest figure with tracing off (its p50 and the single append it is compared with).
    func run(ingest: Figure) async throws -> [Figure] {
        let sink = try await Receiver.start(path: "/v1/traces")
        defer { Task { await sink.stop() } }
        // The ingest posts for up to 20 s per round, each server a new app's notifications (more than it can post in
        // that time, signed once for every round), so both run for the whole window and the rate of each is its own
        // notifications over its own first-to-last span in the log.
        let ingestWindow = min(ingestSeconds, 20)
        let bodies = try IngestBenchmark.writeBodies(signer: signer, count: max(2_000, min(notifications, 800 * ingestWindow)))
        defer { try? FileManager.default.removeItem(atPath: bodies) }
        let tracedEnvironment =
            control
            ? [:]
            : [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(sink.port)", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
                "OTEL_TRACES_SAMPLER_ARG": ratio
            ]
        var rounds: [Round] = []
        for index in 0..<Self.rounds {
            let tracedFirst = index % 2 == 0
            let first = try await start(tracedFirst ? tracedEnvironment : [:])
            defer { first.stop() }
            let second = try await start(tracedFirst ? [:] : tracedEnvironment)
            defer { second.stop() }
            let (on, off) = tracedFirst ? (first, second) : (second, first)
            let reads = (
                on: ReadBenchmark(cluster: cluster, server: on, dataset: dataset, seconds: readSeconds),
                off: ReadBenchmark(cluster: cluster, server: off, dataset: dataset, seconds: readSeconds)
            )
            on.resetPeak()
            let products = try await Self.atOnce(
                on, off, tracedFirst: tracedFirst, on: { try await reads.on.wrk("products") }, off: { try await reads.off.wrk("products") })
            let users = try await Self.atOnce(
                on, off, tracedFirst: tracedFirst, on: { try await reads.on.wrk("user") }, off: { try await reads.off.wrk("user") })
            for pair in [products, users] where pair.on.failures + pair.on.socketErrors + pair.off.failures + pair.off.socketErrors > 0 {
                throw ExternalTool.Failed(command: "wrk (tracing comparison, round \(index + 1))", output: "answers that were not 200")
            }
            let (cluster, signer, singleAppend) = (cluster, signer, ingest.value)
            let posting = { @Sendable (server: ServerProcess) in
                try await IngestBenchmark(cluster: cluster, server: server, signer: signer, notifications: 0, seconds: ingestWindow, bodies: bodies)
                    .run(singleAppendPerSecond: singleAppend)
            }
            let ingests = try await Self.atOnce(on, off, tracedFirst: tracedFirst, on: { try await posting(on) }, off: { try await posting(off) })
            rounds.append(Round(products: products, users: users, ingest: ingests, peakRSSMiB: on.peakRSSMiB()))
        }
        let order = "a new pair of servers each round, the traced one started and loaded first in rounds 1 and 3, second in 2 and 4"
        var figures = [offPath(ingest: ingest)]
        for (name, pairs) in [("GET /productsStatus", rounds.map(\.products)), ("GET /v1/users/{id}", rounds.map(\.users))] {
            let requests = (on: Double(pairs.map(\.on.requests).reduce(0, +)), off: Double(pairs.map(\.off.requests).reduce(0, +)))
            let cpu = (on: pairs.map(\.cpuSeconds.on).reduce(0, +), off: pairs.map(\.cpuSeconds.off).reduce(0, +))
            figures.append(
                Figure(
                    name: "\(label): server CPU per read, \(name)",
                    workload: "the same rounds: the server's own CPU time (user and system, /proc) over the requests it answered",
                    value: cpu.on / requests.on * 1e6, unit: "µs per request",
                    reference: "the same on the server with tracing off, at the same time", referenceValue: cpu.off / requests.off * 1e6,
                    target: "≥ 90% of off (requests per CPU-second)",
                    detail: Dictionary(
                        uniqueKeysWithValues: pairs.enumerated().flatMap { index, pair in
                            [
                                ("round \(index + 1) on µs", pair.cpuSeconds.on / Double(pair.on.requests) * 1e6),
                                ("round \(index + 1) off µs", pair.cpuSeconds.off / Double(pair.off.requests) * 1e6)
                            ]
                        }),
                    lowerIsBetter: true))
            figures.append(
                comparison(
                    name: name, rates: pairs.map { ($0.on.perSecond, $0.off.perSecond) }, unit: "requests/s", compared: "reads",
                    workload: "\(Self.rounds) rounds of \(readSeconds) s, each loading both servers at once (16 connections each); \(order)",
                    detail: [
                        "p99 ms": pairs.map(\.on.p99Ms).max() ?? 0, "p99 ms off": pairs.map(\.off.p99Ms).max() ?? 0,
                        "server peak RSS MiB": rounds.map(\.peakRSSMiB).max() ?? 0, "OTLP exports": Double(sink.count)
                    ]))
        }
        let ingests = rounds.map(\.ingest)
        figures.append(
            comparison(
                name: "notification ingest", rates: ingests.map { ($0.on.value, $0.off.value) }, unit: "notifications/s", compared: "ingest",
                workload:
                    "\(Self.rounds) rounds of \(ingestWindow) s, each loading both servers at once (wrk, 32 connections each, a new app each); \(order)",
                detail: [
                    "p99 ms": ingests.compactMap { $0.on.detail["p99 ms"] }.max() ?? 0,
                    "p99 ms off": ingests.compactMap { $0.off.detail["p99 ms"] }.max() ?? 0,
                    "non-200": ingests.flatMap { [$0.on, $0.off] }.compactMap { $0.detail["non-200"] }.reduce(0, +),
                    "server peak RSS MiB": ingests.compactMap { $0.on.detail["server peak RSS MiB"] }.max() ?? 0,
                    // Blurred: each server's projection worker and exclusive jobs also work for the other's events.
                    "server CPU µs per notification": Self.cpuPerNotification(ingests.map { ($0.cpuSeconds.on, $0.on) }),
                    "server CPU µs per notification off": Self.cpuPerNotification(ingests.map { ($0.cpuSeconds.off, $0.off) }),
                    "OTLP exports": Double(sink.count)
                ]))
        return figures
    }

    /// One side's server CPU over the notifications it recorded, in µs, across the rounds.
    private static func cpuPerNotification(_ rounds: [(cpuSeconds: Double, figure: Figure)]) -> Double {
        rounds.map(\.cpuSeconds).reduce(0, +) / max(1, rounds.compactMap { $0.figure.detail["notifications recorded"] }.reduce(0, +)) * 1e6
    }

    /// Runs both loads at once, the traced server's started first when `tracedFirst`, the other's otherwise, and
    /// the CPU time each server used meanwhile.
    private static func atOnce<T: Sendable>(
        _ onServer: ServerProcess, _ offServer: ServerProcess, tracedFirst: Bool, on: @escaping @Sendable () async throws -> T,
        off: @escaping @Sendable () async throws -> T
    ) async throws -> Pair<T> {
        let before = (on: onServer.cpuSeconds(), off: offServer.cpuSeconds())
        let results: (on: T, off: T)
        if tracedFirst {
            async let onRun = on()
            async let offRun = off()
            results = try await (onRun, offRun)
        } else {
            async let offRun = off()
            async let onRun = on()
            results = try await (onRun, offRun)
        }
        return Pair(
            on: results.on, off: results.off, cpuSeconds: (onServer.cpuSeconds() - before.on, offServer.cpuSeconds() - before.off))
    }

    /// One comparison's figure: each side's rate the mean of its rounds, every round's pair in the detail.
    private func comparison(
        name: String, rates: [(on: Double, off: Double)], unit: String, compared: String, workload: String, detail: [String: Double]
    ) -> Figure {
        var detail = detail
        for (index, pair) in rates.enumerated() {
            detail["round \(index + 1) on \(unit)"] = pair.on
            detail["round \(index + 1) off \(unit)"] = pair.off
        }
        return Figure(
            name: "\(label): \(name)", workload: workload + "; OTLP export to a sink on loopback",
            value: rates.map(\.on).reduce(0, +) / Double(rates.count), unit: unit,
            reference: "the same \(compared) on the server with tracing off, at the same time",
            referenceValue: rates.map(\.off).reduce(0, +) / Double(rates.count), target: "≥ 90% of off", detail: detail)
    }

    /// With no tracer, each step and statement of a request checks the task-local trace context once (about 20 in a
    /// notification: verifications, the append, the group commit, the projection wait, each pooled call and
    /// statement) and each new event asks for a sampled `traceparent` to keep: that work, per notification, against
    /// the notification's p50 latency with tracing off.
    private func offPath(ingest: Figure) -> Figure {
        let iterations = 2_000_000
        var seen = 0
        let clock = ContinuousClock()
        let reads = clock.measure {
            for _ in 0..<iterations where InstrumentationContext.current != nil { seen += 1 }
        }
        let lookups = clock.measure {
            for _ in 0..<iterations where TraceContext.sampledTraceparent() != nil { seen += 1 }
        }
        let readNanoseconds = Self.nanoseconds(reads) / Double(iterations)
        let lookupNanoseconds = Self.nanoseconds(lookups) / Double(iterations)
        let perNotification = 20 * readNanoseconds + 2 * lookupNanoseconds
        let p50Nanoseconds = (ingest.detail["p50 ms"] ?? 0) * 1_000_000
        return Figure(
            name: "tracing off: its work per notification", workload: "20 context checks and 2 traceparent lookups, no tracer (\(seen) found)",
            value: perNotification, unit: "ns", target: "nothing measurable (< 1% of a request)",
            detail: [
                "context check ns": readNanoseconds, "traceparent lookup ns": lookupNanoseconds,
                "share of ingest p50 %": p50Nanoseconds > 0 ? perNotification / p50Nanoseconds * 100 : 0
            ])
    }

    private static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }
}
