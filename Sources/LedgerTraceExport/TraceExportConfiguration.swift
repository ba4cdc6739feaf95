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
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0]?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
        func milliseconds(_ name: String, default fallback: Int) -> Result<Duration, Invalid> {
            guard let text = value(name) else { return .success(.milliseconds(fallback)) }
            guard let number = Int(text), number >= 0, number <= 86_400_000 else {
                return .failure(Invalid("\(name)=\(text) is not a number of milliseconds: give e.g. \(fallback)"))
            }
            return .success(.milliseconds(number))
        }
        func count(_ name: String, default fallback: Int) -> Result<Int, Invalid> {
            guard let text = value(name) else { return .success(fallback) }
            guard let number = Int(text), number > 0, number <= 1_000_000 else {
                return .failure(Invalid("\(name)=\(text) is not a positive count: give e.g. \(fallback)"))
            }
            return .success(number)
        }

        let exporter = (value("OTEL_TRACES_EXPORTER") ?? "otlp").lowercased()
        guard exporter == "otlp" else {
            return .failure(Invalid("OTEL_TRACES_EXPORTER=\(exporter) is not built in: use otlp (to an OpenTelemetry collector) or none"))
        }
        let encoding: Encoding
        switch (value("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf").lowercased() {
        case "http/protobuf": encoding = .protobuf
        case "http/json": encoding = .json
        case let other:
            return .failure(
                Invalid("OTEL_EXPORTER_OTLP_PROTOCOL=\(other) is not built in: use http/protobuf (a collector's port 4318) or http/json"))
        }

        let endpoint: String
        if let traces = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            endpoint = traces
        } else if let base = value("OTEL_EXPORTER_OTLP_ENDPOINT") {
            endpoint = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
        } else {
            endpoint = "http://localhost:4318/v1/traces"
        }
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            return .failure(Invalid("the OTLP endpoint \(endpoint) is not an http(s) URL: give e.g. http://collector:4318"))
        }

        let headers: [(String, String)]
        switch pairs(value("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"), name: "OTEL_EXPORTER_OTLP_HEADERS") {
        case .success(let list): headers = list
        case .failure(let invalid): return .failure(invalid)
        }
        var resource: [(String, String)] = []
        switch pairs(value("OTEL_RESOURCE_ATTRIBUTES"), name: "OTEL_RESOURCE_ATTRIBUTES") {
        case .success(let list): resource = list.filter { $0.0 != "service.name" }
        case .failure(let invalid): return .failure(invalid)
        }
        let named = (try? pairs(value("OTEL_RESOURCE_ATTRIBUTES"), name: "").get())?.first { $0.0 == "service.name" }?.1
        resource.insert(("service.name", value("OTEL_SERVICE_NAME") ?? named ?? "subscription-ledger"), at: 0)
        resource += [("telemetry.sdk.name", "subscription-ledger"), ("telemetry.sdk.language", "swift")]

        return Result {
            let queueSize = try count("OTEL_BSP_MAX_QUEUE_SIZE", default: 2048).get()
            return TraceExportConfiguration(
                endpoint: endpoint, encoding: encoding, headers: headers,
                requestTimeout: try milliseconds("OTEL_EXPORTER_OTLP_TIMEOUT", default: 10_000).get(),
                sampler: try TraceSampler.named(value("OTEL_TRACES_SAMPLER"), argument: value("OTEL_TRACES_SAMPLER_ARG")).get(),
                scheduleDelay: try milliseconds("OTEL_BSP_SCHEDULE_DELAY", default: 5000).get(),
                maxQueueSize: queueSize,
                maxExportBatchSize: min(queueSize, try count("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", default: 512).get()),
                resource: resource)
        }.mapError { $0 as? Invalid ?? Invalid("\($0)") }
    }

    /// The endpoint without any user or password it holds, for a log line.
    package var endpointDescription: String {
        guard var components = URLComponents(string: endpoint) else { return "(unreadable)" }
        components.user = nil
        components.password = nil
        return components.string ?? "(unreadable)"
    }

    /// `key=value,key=value` with percent-encoded values (the W3C Baggage form OpenTelemetry's variables use).
    static func pairs(_ text: String?, name: String) -> Result<[(String, String)], Invalid> {
        guard let text else { return .success([]) }
        var list: [(String, String)] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            let key = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard parts.count == 2, !key.isEmpty else {
                return .failure(Invalid("\(name) holds an entry that is not key=value: separate entries with commas, e.g. key=value,other=value"))
            }
            let raw = parts[1].trimmingCharacters(in: .whitespaces)
            list.append((key, raw.removingPercentEncoding ?? raw))
        }
        return .success(list)
    }
}
