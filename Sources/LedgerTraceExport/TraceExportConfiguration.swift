import Foundation

/// What the standard `OTEL_*` variables ask of the ledger's OTLP/HTTP trace export (OpenTelemetry's SDK environment
/// variables, the subset a trace exporter over HTTP uses). gRPC and the other exporters (`console`, `zipkin`) are not
/// built in: asked for, they are refused with what to set instead, rather than silently exporting nothing.
package struct TraceExportConfiguration: Sendable {
    package struct Invalid: Error, CustomStringConvertible, Equatable {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    package enum Encoding: Sendable, Equatable {
        case protobuf
        case json
    }

    /// The URL spans are posted to (`…/v1/traces`).
    package var endpoint: String
    package var encoding: Encoding
    /// Extra request headers (`OTEL_EXPORTER_OTLP_HEADERS`), e.g. a collector's API key; never logged.
    package var headers: [(String, String)]
    package var requestTimeout: Duration
    package var sampler: TraceSampler
    package var scheduleDelay: Duration
    package var maxQueueSize: Int
    package var maxExportBatchSize: Int
    /// The resource's attributes: `service.name` first, then `OTEL_RESOURCE_ATTRIBUTES`, then the SDK's.
    package var resource: [(String, String)]

    package static func configuration(from environment: [String: String]) -> Result<TraceExportConfiguration, Invalid> {
        Result { () throws(Invalid) in try TraceExportConfiguration(environment) }
    }

    private init(_ environment: [String: String]) throws(Invalid) {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0]?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
        func milliseconds(_ name: String, default fallback: Int) throws(Invalid) -> Duration {
            guard let text = value(name) else { return .milliseconds(fallback) }
            guard let number = Int(text), number >= 0, number <= 86_400_000 else {
                throw Invalid("\(name)=\(text) is not a number of milliseconds: give e.g. \(fallback)")
            }
            return .milliseconds(number)
        }
        func count(_ name: String, default fallback: Int) throws(Invalid) -> Int {
            guard let text = value(name) else { return fallback }
            guard let number = Int(text), number > 0, number <= 1_000_000 else {
                throw Invalid("\(name)=\(text) is not a positive count: give e.g. \(fallback)")
            }
            return number
        }

        let exporter = (value("OTEL_TRACES_EXPORTER") ?? "otlp").lowercased()
        guard exporter == "otlp" else {
            throw Invalid("OTEL_TRACES_EXPORTER=\(exporter) is not built in: use otlp (to an OpenTelemetry collector) or none")
        }
        switch (value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf").lowercased() {
        case "http/protobuf": encoding = .protobuf
        case "http/json": encoding = .json
        case let other:
            throw Invalid("OTEL_EXPORTER_OTLP_PROTOCOL=\(other) is not built in: use http/protobuf (a collector's port 4318) or http/json")
        }

        if let traces = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            endpoint = traces
        } else if let base = value("OTEL_EXPORTER_OTLP_ENDPOINT") {
            endpoint = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
        } else {
            endpoint = "http://localhost:4318/v1/traces"
        }
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw Invalid("the OTLP endpoint \(endpoint) is not an http(s) URL: give e.g. http://collector:4318")
        }

        headers = try Self.pairs(value("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"), name: "OTEL_EXPORTER_OTLP_HEADERS")
        let attributes = try Self.pairs(value("OTEL_RESOURCE_ATTRIBUTES"), name: "OTEL_RESOURCE_ATTRIBUTES")
        let serviceName = value("OTEL_SERVICE_NAME") ?? attributes.first { $0.0 == "service.name" }?.1 ?? "subscription-ledger"
        resource =
            [("service.name", serviceName)] + attributes.filter { $0.0 != "service.name" }
            + [("telemetry.sdk.name", "subscription-ledger"), ("telemetry.sdk.language", "swift")]

        requestTimeout = try milliseconds("OTEL_EXPORTER_OTLP_TIMEOUT", default: 10_000)
        sampler = try TraceSampler.named(value("OTEL_TRACES_SAMPLER"), argument: value("OTEL_TRACES_SAMPLER_ARG")).get()
        scheduleDelay = try milliseconds("OTEL_BSP_SCHEDULE_DELAY", default: 5000)
        maxQueueSize = try count("OTEL_BSP_MAX_QUEUE_SIZE", default: 2048)
        maxExportBatchSize = min(maxQueueSize, try count("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", default: 512))
    }

    /// The endpoint without any user or password it holds, for a log line.
    package var endpointDescription: String {
        guard var components = URLComponents(string: endpoint) else { return "(unreadable)" }
        components.user = nil
        components.password = nil
        return components.string ?? "(unreadable)"
    }

    /// `key=value,key=value` with percent-encoded values (the W3C Baggage form OpenTelemetry's variables use).
    static func pairs(_ text: String?, name: String) throws(Invalid) -> [(String, String)] {
        guard let text else { return [] }
        return try text.split(separator: ",").map { item throws(Invalid) in
            let parts = item.split(separator: "=", maxSplits: 1)
            let key = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard parts.count == 2, !key.isEmpty else {
                throw Invalid("\(name) holds an entry that is not key=value: separate entries with commas, e.g. key=value,other=value")
            }
            let raw = parts[1].trimmingCharacters(in: .whitespaces)
            return (key, raw.removingPercentEncoding ?? raw)
        }
    }
}
