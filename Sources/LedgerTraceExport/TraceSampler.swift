/// Which traces are recorded: OpenTelemetry's standard samplers, named as `OTEL_TRACES_SAMPLER` names them.
package enum TraceSampler: Sendable, Equatable {
    case alwaysOn
    case alwaysOff
    /// A trace is recorded when its id's lower 8 bytes, as a number, fall below `ratio` of their range, so every
    /// service with the same ratio decides alike for the same trace (swift-otel's and OpenTelemetry Java's rule).
    case traceIDRatio(Double)
    /// A span with a parent (local or a caller's `traceparent`) follows the parent's decision; a root asks `root`.
    indirect case parentBased(root: TraceSampler)

    /// Whether a span of trace `traceID` is recorded, under `parent` when it has one.
    package func samples(_ traceID: TraceID, parent: SpanContext?) -> Bool {
        switch self {
        case .alwaysOn: return true
        case .alwaysOff: return false
        case .traceIDRatio(let ratio):
            if ratio >= 1 { return true }
            if ratio <= 0 { return false }
            return traceID.low < UInt64(ratio * Double(UInt64.max))
        case .parentBased(let root):
            if let parent { return parent.isSampled }
            return root.samples(traceID, parent: nil)
        }
    }

    /// The sampler `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` name (default `parentbased_always_on`), or a
    /// message saying what is wrong.
    package static func named(_ name: String?, argument: String?) -> Result<TraceSampler, TraceExportConfiguration.Invalid> {
        func ratio() -> Result<Double, TraceExportConfiguration.Invalid> {
            guard let argument, !argument.isEmpty else { return .success(1) }
            guard let value = Double(argument), value >= 0, value <= 1 else {
                return .failure(.init("OTEL_TRACES_SAMPLER_ARG=\(argument) is not a ratio: give a number from 0 to 1, e.g. 0.1"))
            }
            return .success(value)
        }
        switch (name ?? "").lowercased() {
        case "", "parentbased_always_on": return .success(.parentBased(root: .alwaysOn))
        case "parentbased_always_off": return .success(.parentBased(root: .alwaysOff))
        case "parentbased_traceidratio": return ratio().map { .parentBased(root: .traceIDRatio($0)) }
        case "always_on": return .success(.alwaysOn)
        case "always_off": return .success(.alwaysOff)
        case "traceidratio": return ratio().map { .traceIDRatio($0) }
        default:
            return .failure(
                .init(
                    "OTEL_TRACES_SAMPLER=\(name ?? "") is not a sampler the ledger knows: use always_on, always_off, traceidratio, "
                        + "parentbased_always_on, parentbased_always_off or parentbased_traceidratio"))
        }
    }
}
