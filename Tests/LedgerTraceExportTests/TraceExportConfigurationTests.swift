import LedgerTraceExport
import Testing

@Suite struct TraceExportConfigurationTests {
    static func configuration(_ environment: [String: String]) throws -> TraceExportConfiguration {
        try TraceExportConfiguration.configuration(from: environment).get()
    }

    @Test func theEndpointIsTheTracesOneAsGivenOrTheBaseWithItsPath() throws {
        #expect(try Self.configuration([:]).endpoint == "http://localhost:4318/v1/traces")
        #expect(try Self.configuration(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"]).endpoint == "http://collector:4318/v1/traces")
        #expect(
            try Self.configuration([
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example/in"
            ]).endpoint == "https://traces.example/in")
    }

    @Test func protobufByDefaultAndJSONWhenAsked() throws {
        #expect(try Self.configuration([:]).encoding == .protobuf)
        #expect(try Self.configuration(["OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"]).encoding == .json)
        #expect(try Self.configuration(["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]).encoding == .json)
    }

    @Test func batchingSamplingHeadersAndTheResourceComeFromTheirVariables() throws {
        let configuration = try Self.configuration([
            "OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_BSP_MAX_QUEUE_SIZE": "64", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "512",
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1",
            "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s%3Dcret, x-tenant=ops", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=ignored,deployment.environment=prod", "OTEL_SERVICE_NAME": "ledger-eu"
        ])
        #expect(configuration.scheduleDelay == .milliseconds(100) && configuration.requestTimeout == .milliseconds(2500))
        #expect(configuration.maxQueueSize == 64 && configuration.maxExportBatchSize == 64)
        #expect(configuration.sampler == .parentBased(root: .traceIDRatio(0.1)))
        #expect(configuration.headers.map { "\($0.0)=\($0.1)" } == ["api-key=s=cret", "x-tenant=ops"])
        #expect(configuration.resource.prefix(2).map { "\($0.0)=\($0.1)" } == ["service.name=ledger-eu", "deployment.environment=prod"])
        let named = try Self.configuration(["OTEL_RESOURCE_ATTRIBUTES": "service.name=ledger-us"])
        #expect(named.resource.first.map { "\($0.0)=\($0.1)" } == "service.name=ledger-us")
        #expect(try Self.configuration([:]).resource.first.map { $0.1 } == "subscription-ledger")
    }

    @Test(arguments: [
        (["OTEL_EXPORTER_OTLP_PROTOCOL": "http/xml"], "OTEL_EXPORTER_OTLP_PROTOCOL=http/xml"),
        (["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"], "use http/protobuf"),
        (["OTEL_TRACES_EXPORTER": "console"], "OTEL_TRACES_EXPORTER=console is not built in"),
        (["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"], "not an http(s) URL"),
        (["OTEL_BSP_SCHEDULE_DELAY": "soon"], "OTEL_BSP_SCHEDULE_DELAY=soon"),
        (["OTEL_BSP_MAX_QUEUE_SIZE": "0"], "OTEL_BSP_MAX_QUEUE_SIZE=0"),
        (["OTEL_EXPORTER_OTLP_HEADERS": "api-key"], "not key=value"),
        (["OTEL_TRACES_SAMPLER": "sometimes"], "OTEL_TRACES_SAMPLER=sometimes")
    ])
    func aMistakeIsNamedWithHowToMendIt(environment: [String: String], says: String) {
        guard case .failure(let invalid) = TraceExportConfiguration.configuration(from: environment) else {
            Issue.record("\(environment) was accepted")
            return
        }
        #expect(invalid.description.contains(says), "\(invalid)")
    }
}
