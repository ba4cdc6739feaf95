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
/// one after the other instead, even alternating, identical servers differed by up to 18% (`--tracing-control` runs
/// the traced server with tracing off too, to show the method's own error; Benchmarks/README.md).
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
    /// The figures' name: what the traced server runs with.
    private var label: String { control ? "control, both servers tracing off" : "tracing on (10% sampled)" }
    let start: @Sendable ([String: String]) async throws -> ServerProcess

    /// `ingest`: the same run's ingest figure with tracing off (its p50 and the single append it is compared with).
    func run(ingest: Figure) async throws -> [Figure] {
        var figures = [offPath(ingest: ingest)]
        let sink = try await Receiver.start(path: "/v1/traces")
        defer { Task { await sink.stop() } }
        let on = try await start(
            control
                ? [:]
                : [
                    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(sink.port)", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
                    "OTEL_TRACES_SAMPLER_ARG": "0.1"
                ])
        defer { on.stop() }
        // The reference is a server started with it, not the suite's server: a server that has served the whole run
        // read 10% faster than a new one beside it in a control run (same code, tracing off on both).
        let off = try await start([:])
        defer { off.stop() }
        let traced = ReadBenchmark(cluster: cluster, server: on, dataset: dataset, seconds: readSeconds)
        let untraced = ReadBenchmark(cluster: cluster, server: off, dataset: dataset, seconds: readSeconds)
        for (mode, name) in [("products", "GET /productsStatus"), ("user", "GET /v1/users/{id}")] {
            on.resetPeak()
            var pairs: [(on: WrkResult, off: WrkResult)] = []
            for _ in 0..<Self.rounds {
                async let onRun = traced.wrk(mode)
                async let offRun = untraced.wrk(mode)
                pairs.append(try await (onRun, offRun))
            }
            guard pairs.allSatisfy({ $0.on.failures + $0.on.socketErrors + $0.off.failures + $0.off.socketErrors == 0 }) else {
                throw ExternalTool.Failed(command: "wrk \(mode) (tracing comparison)", output: "answers that were not 200")
            }
            figures.append(comparison(
                name: name, rates: pairs.map { ($0.on.perSecond, $0.off.perSecond) }, unit: "requests/s", compared: "reads",
                workload: "\(Self.rounds) rounds of \(readSeconds) s, each loading both servers at once (16 connections each)",
                detail: [
                    "p99 ms": pairs.map(\.on.p99Ms).max() ?? 0, "p99 ms off": pairs.map(\.off.p99Ms).max() ?? 0,
                    "server peak RSS MiB": on.peakRSSMiB(), "OTLP exports": Double(sink.count)
                ]))
        }
        figures.append(try await ingestComparison(on: on, off: off, sink: sink, singleAppend: ingest.value))
        return figures
    }

    /// Rounds of each comparison; each round loads both servers at the same time.
    static let rounds = 3

    /// The ingest, both servers at once for up to 20 s per round, each posting a new app's
    /// notifications (more than it can post in that time, signed once and posted to both), so both run for the whole
    /// window and the rate of each is its own notifications over its own first-to-last span in the log.
    private func ingestComparison(on: ServerProcess, off: ServerProcess, sink: Receiver, singleAppend: Double) async throws -> Figure {
        let seconds = min(ingestSeconds, 20)
        let bodies = try IngestBenchmark.writeBodies(signer: signer, count: max(2_000, min(notifications, 800 * seconds)))
        defer { try? FileManager.default.removeItem(atPath: bodies) }
        var pairs: [(on: Figure, off: Figure)] = []
        for _ in 0..<Self.rounds {
            async let onRun = IngestBenchmark(cluster: cluster, server: on, signer: signer, notifications: 0, seconds: seconds, bodies: bodies)
                .run(singleAppendPerSecond: singleAppend)
            async let offRun = IngestBenchmark(cluster: cluster, server: off, signer: signer, notifications: 0, seconds: seconds, bodies: bodies)
                .run(singleAppendPerSecond: singleAppend)
            pairs.append(try await (onRun, offRun))
        }
        return comparison(
            name: "notification ingest", rates: pairs.map { ($0.on.value, $0.off.value) }, unit: "notifications/s", compared: "ingest",
            workload: "\(Self.rounds) rounds of \(seconds) s, each loading both servers at once (wrk, 32 connections each, a new app each)",
            detail: [
                "p99 ms": pairs.compactMap { $0.on.detail["p99 ms"] }.max() ?? 0,
                "p99 ms off": pairs.compactMap { $0.off.detail["p99 ms"] }.max() ?? 0,
                "non-200": pairs.flatMap { [$0.on, $0.off] }.compactMap { $0.detail["non-200"] }.reduce(0, +),
                "server peak RSS MiB": pairs.compactMap { $0.on.detail["server peak RSS MiB"] }.max() ?? 0, "OTLP exports": Double(sink.count)
            ])
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
