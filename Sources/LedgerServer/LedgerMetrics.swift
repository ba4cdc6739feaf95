import Metrics
import Prometheus

/// The process's metrics, exposed on `GET /metrics` in Prometheus' text format: request counts and latency by
/// route, method and status (Hummingbird's `MetricsMiddleware`), events appended, projection lag.
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
        return registry
    }()

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
