import Testing

@testable import LedgerCommands

/// When the standard `OTEL_*` variables turn traces on (`Observability`): only when asked, never by default.
@Suite struct TracingConfigurationTests {
    @Test(arguments: [
        ([:], false),
        (["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"], true),
        (["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"], true),
        (["OTEL_EXPORTER_OTLP_ENDPOINT": ""], false),
        (["OTEL_TRACES_EXPORTER": "otlp"], true),
        (["OTEL_TRACES_EXPORTER": "console"], true),
        (["OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"], false),
        (["OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"], false),
        (["OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"], true),
        (["OTEL_SERVICE_NAME": "ledger"], false)
    ])
    func tracesAreOnOnlyWhenTheEnvironmentAsks(environment: [String: String], on: Bool) {
        #expect(Observability.tracesRequested(environment) == on)
    }
}
