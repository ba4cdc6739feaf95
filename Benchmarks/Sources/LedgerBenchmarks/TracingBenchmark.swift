import AppStoreSamples
import Foundation
import LedgerTracing
import Tracing

/// What tracing costs (issue 41): off, the work an untraced request does for it, measured in this process (which, like
/// a server started without `OTEL_*`, has no tracer); on, a second server exporting by OTLP to a sink on loopback with
/// 10% of traces sampled (`parentbased_traceidratio`), running the status reads and the ingest again, each beside the
/// same figure with tracing off earlier in the run.
struct TracingBenchmark {
    let cluster: BenchCluster
    let signer: AppStoreTestSigner
    let dataset: Dataset
    let readSeconds: Int
    let ingestSeconds: Int
    let notifications: Int
    let start: @Sendable ([String: String]) async throws -> ServerProcess

    /// `reads` and `ingest`: the same run's figures with tracing off.
    func run(reads: [Figure], ingest: Figure) async throws -> [Figure] {
        var figures = [offPath(ingest: ingest)]
        let sink = try await Receiver.start(path: "/v1/traces")
        defer { Task { await sink.stop() } }
        let server = try await start([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(sink.port)", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0.1"
        ])
        defer { server.stop() }
        let reader = ReadBenchmark(cluster: cluster, server: server, dataset: dataset, seconds: readSeconds)
        for (mode, name) in [("products", "GET /productsStatus"), ("user", "GET /v1/users/{id}")] {
            guard let off = reads.first(where: { $0.name == "status reads: \(name)" }) else { continue }
            server.resetPeak()
            let on = try await reader.wrk(mode)
            guard on.failures + on.socketErrors == 0 else {
                throw ExternalTool.Failed(command: "wrk \(mode) (traced)", output: "\(on.failures + on.socketErrors) answers were not 200")
            }
            figures.append(Figure(
                name: "tracing on (10% sampled): \(name)", workload: "as the status reads above, OTLP export to a sink on loopback",
                value: on.perSecond, unit: "requests/s", reference: "the same reads with tracing off, above", referenceValue: off.value,
                target: "≥ 90% of off", detail: [
                    "p99 ms": on.p99Ms, "p99 ms off": off.detail["p99 ms"] ?? 0, "server peak RSS MiB": server.peakRSSMiB(),
                    "OTLP exports": Double(sink.count)
                ]))
        }
        var traced = try await IngestBenchmark(
            cluster: cluster, server: server, signer: signer, notifications: notifications, seconds: ingestSeconds
        ).run(singleAppendPerSecond: ingest.value)
        traced.name = "tracing on (10% sampled): notification ingest"
        traced.reference = "the same ingest with tracing off, above"
        traced.target = "≥ 90% of off"
        traced.detail["p99 ms off"] = ingest.detail["p99 ms"] ?? 0
        traced.detail["OTLP exports"] = Double(sink.count)
        figures.append(traced)
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
