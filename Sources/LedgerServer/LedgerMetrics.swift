import AppStoreVerification
import Metrics
import Prometheus

/// The process's metrics, exposed on `GET /metrics` in Prometheus' text format: request counts and latency by
/// route, method and status (Hummingbird's `MetricsMiddleware`), events appended, projection lag, and what on-call
/// reads (`OperationsProbe`, the group commits, verification failures, App Store API errors, digests); the alert rules
/// and the dashboard over them are in `Deploy/observability/`.
package enum LedgerMetrics {
    /// The registry, bootstrapped into swift-metrics on first use (once per process, as swift-metrics requires).
    package static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // swift-metrics labels use dots ("http.server.request.duration"); Prometheus names allow [a-zA-Z0-9_:].
        factory.nameAndLabelSanitizer = { name, dimensions in
            (sanitize(name), dimensions.map { (sanitize($0.0), $0.1) })
        }
        // The library's buckets end at 10 s; the default request timeout is 30 s, and an operator wants to see
        // requests that came close to it (or answered 504) apart from the merely slow.
        factory.defaultDurationHistogramBuckets += [.seconds(30), .seconds(60)]
        MetricsSystem.bootstrap(factory)
        declareSeries()
        return registry
    }()

    /// Series that count rare things start at zero, so an alert's `increase()` sees their first occurrence and the
    /// dashboard lists them before anything happened (Prometheus' advice for known label values).
    static func declareSeries() {
        for code in AppStoreVerificationError.Code.allCases {
            Counter(label: "ledger_verification_failures_total", dimensions: [("reason", code.rawValue)]).increment(by: 0)
        }
        Counter(label: "ledger_appstore_api_errors_total", dimensions: [("code", "transport")]).increment(by: 0)
        Counter(label: "ledger_appstore_api_rate_limited_total").increment(by: 0)
        _ = Recorder(label: "ledger_group_commit_size", aggregate: true)  // made, not recorded: no false 0-sized group
        _ = Recorder(label: "ledger_status_read_batch_size", aggregate: true)
        Gauge(label: "ledger_webhook_endpoints_disabled").record(0)
        Gauge(label: "ledger_live_streams").record(0)
        for name in ["ledger_rebuild_running", "ledger_rebuild_events_done", "ledger_rebuild_events_estimated"] { Gauge(label: name).record(0) }
        Counter(label: "ledger_events_appended_total").increment(by: 0)
        for answer in ["hit", "miss"] { Counter(label: "ledger_status_cache_reads", dimensions: [("answer", answer)]).increment(by: 0) }
    }

    /// Makes sure the backend is in place before anything records a metric.
    package static func bootstrap() { _ = registry }

    /// The exposition text.
    package static func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    static func sanitize(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") ? $0 : "_" })
    }
}
