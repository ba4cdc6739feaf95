import AppStoreSamples
import Foundation
import LedgerTracing
import Tracing

/// What tracing costs (issue 41): off, the work an untraced request does for it, measured in this process (which, like
/// a server started without `OTEL_*`, has no tracer); on, a second server exporting by OTLP to a sink on loopback with
/// 10% of traces sampled (`parentbased_traceidratio`) beside the first, tracing off, on the same data.
///
/// The two are measured in alternation, off, on, on, off for each read (the first off run is the read figure above)
/// and off, on, off for the ingest, so both sides' runs sit at the same mean time; each side's rate is the mean of
/// its runs: a server measured alone after the other's runs reads a
/// different state of the machine and the database (a fresh server's first reads prepare their statements, the log
/// grows with every ingest run), which moved a one-shot comparison by up to 25% with no code change.
struct TracingBenchmark {
    let cluster: BenchCluster
    let signer: AppStoreTestSigner
    let dataset: Dataset
    let readSeconds: Int
    let ingestSeconds: Int
    let notifications: Int
    /// The server with tracing off, whose figures `reads` and `ingest` are.
    let off: ServerProcess
    let start: @Sendable ([String: String]) async throws -> ServerProcess

    /// `reads` and `ingest`: the same run's figures with tracing off, on `off`.
    func run(reads: [Figure], ingest: Figure) async throws -> [Figure] {
        var figures = [offPath(ingest: ingest)]
        let sink = try await Receiver.start(path: "/v1/traces")
        defer { Task { await sink.stop() } }
        let on = try await start([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(sink.port)", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0.1"
        ])
        defer { on.stop() }
        let traced = ReadBenchmark(cluster: cluster, server: on, dataset: dataset, seconds: readSeconds)
        let untraced = ReadBenchmark(cluster: cluster, server: off, dataset: dataset, seconds: readSeconds)
        for (mode, name) in [("products", "GET /productsStatus"), ("user", "GET /v1/users/{id}")] {
            guard let offFigure = reads.first(where: { $0.name == "status reads: \(name)" }) else { continue }
            on.resetPeak()
            // Off (above), on, on, off: both sides' runs sit at the same mean position in time, so a machine that
            // drifts over the phase favours neither.
            let runs = [try await traced.wrk(mode), try await traced.wrk(mode), try await untraced.wrk(mode)]
            let offRate = (offFigure.value + runs[2].perSecond) / 2
            let onRate = (runs[0].perSecond + runs[1].perSecond) / 2
            guard runs.allSatisfy({ $0.failures + $0.socketErrors == 0 }) else {
                throw ExternalTool.Failed(command: "wrk \(mode) (traced)", output: "answers that were not 200")
            }
            figures.append(Figure(
                name: "tracing on (10% sampled): \(name)",
                workload: "as the status reads above, alternating with tracing off; OTLP export to a sink on loopback",
                value: onRate, unit: "requests/s", reference: "the same reads with tracing off, in alternation", referenceValue: offRate,
                target: "≥ 90% of off", detail: [
                    "p99 ms": max(runs[0].p99Ms, runs[1].p99Ms), "p99 ms off": max(offFigure.detail["p99 ms"] ?? 0, runs[2].p99Ms),
                    "on runs requests/s": runs[0].perSecond, "on runs requests/s (second)": runs[1].perSecond,
                    "off runs requests/s": offFigure.value, "off runs requests/s (second)": runs[2].perSecond,
                    "server peak RSS MiB": on.peakRSSMiB(), "OTLP exports": Double(sink.count)
                ]))
        }
        var tracedIngest = try await IngestBenchmark(
            cluster: cluster, server: on, signer: signer, notifications: notifications, seconds: ingestSeconds
        ).run(singleAppendPerSecond: ingest.value)
        let offAgain = try await IngestBenchmark(
            cluster: cluster, server: off, signer: signer, notifications: notifications, seconds: ingestSeconds
        ).run(singleAppendPerSecond: ingest.value)
        tracedIngest.name = "tracing on (10% sampled): notification ingest"
        tracedIngest.reference = "the same ingest with tracing off, before and after"
        tracedIngest.referenceValue = (ingest.value + offAgain.value) / 2
        tracedIngest.target = "≥ 90% of off"
        tracedIngest.detail["p99 ms off"] = max(ingest.detail["p99 ms"] ?? 0, offAgain.detail["p99 ms"] ?? 0)
        tracedIngest.detail["off runs notifications/s (second)"] = offAgain.value
        tracedIngest.detail["OTLP exports"] = Double(sink.count)
        figures.append(tracedIngest)
        return figures
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
