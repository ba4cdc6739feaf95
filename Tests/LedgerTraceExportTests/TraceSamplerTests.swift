import LedgerTraceExport
import Testing

@Suite struct TraceSamplerTests {
    static let unsampledParent = SpanContext(traceID: TraceID(high: 1, low: 1), spanID: 7, isSampled: false)
    static let sampledParent = SpanContext(traceID: TraceID(high: 1, low: UInt64.max), spanID: 7, isSampled: true)

    @Test func aRatioSamplesTheTracesWhoseLowerHalfFallsBelowIt() {
        let tenth = TraceSampler.traceIDRatio(0.1)
        #expect(tenth.samples(TraceID(high: 9, low: UInt64.max / 20), parent: nil))
        #expect(!tenth.samples(TraceID(high: 9, low: UInt64.max / 5), parent: nil))
        #expect(TraceSampler.traceIDRatio(1).samples(TraceID(high: 0, low: UInt64.max), parent: nil))
        #expect(!TraceSampler.traceIDRatio(0).samples(TraceID(high: 0, low: 0), parent: nil))
        // Over many random ids, about the ratio.
        var generator = SystemRandomNumberGenerator()
        let sampled = (0..<20_000).filter { _ in tenth.samples(TraceID.random(using: &generator), parent: nil) }.count
        #expect((1_600...2_400).contains(sampled), "\(sampled) of 20000")
    }

    @Test func parentBasedFollowsTheParentAndAsksItsRootSamplerOnlyForARoot() {
        let sampler = TraceSampler.parentBased(root: .traceIDRatio(0))
        #expect(sampler.samples(Self.sampledParent.traceID, parent: Self.sampledParent))
        #expect(!TraceSampler.parentBased(root: .alwaysOn).samples(Self.unsampledParent.traceID, parent: Self.unsampledParent))
        #expect(!sampler.samples(TraceID(high: 1, low: 0), parent: nil))
        #expect(TraceSampler.parentBased(root: .alwaysOn).samples(TraceID(high: 1, low: 0), parent: nil))
        // Not parent-based: the sampler's own rule, whatever the parent said.
        #expect(TraceSampler.alwaysOn.samples(Self.unsampledParent.traceID, parent: Self.unsampledParent))
    }

    @Test func theStandardNamesAndTheirArgument() throws {
        #expect(try TraceSampler.named(nil, argument: nil).get() == .parentBased(root: .alwaysOn))
        #expect(try TraceSampler.named("parentbased_traceidratio", argument: "0.1").get() == .parentBased(root: .traceIDRatio(0.1)))
        #expect(try TraceSampler.named("TRACEIDRATIO", argument: nil).get() == .traceIDRatio(1))
        #expect(try TraceSampler.named("always_off", argument: nil).get() == .alwaysOff)
        #expect(try TraceSampler.named("parentbased_always_off", argument: nil).get() == .parentBased(root: .alwaysOff))
        for (name, argument, says) in [
            ("traceidratio", "1.5", "OTEL_TRACES_SAMPLER_ARG=1.5"), ("traceidratio", "ten", "give a number from 0 to 1"),
            ("jaeger_remote", nil, "OTEL_TRACES_SAMPLER=jaeger_remote")
        ] {
            guard case .failure(let invalid) = TraceSampler.named(name, argument: argument) else {
                Issue.record("\(name) \(argument ?? "") was accepted")
                continue
            }
            #expect(invalid.description.contains(says), "\(invalid)")
        }
    }
}
