import InMemoryTracing
import LedgerStore
import LedgerStoreTestSupport
@testable import LedgerTracing
import Testing
import Tracing

/// The spans of an append: each caller's `ledger.append` under its own span, the group commit it joined (the child of
/// the first traced append in the group, linking the others), and the group's statement beneath the group commit.
@Suite struct AppendTracingTests {
    @Test func appendsThatCommitTogetherShareOneGroupCommitSpan() async throws {
        let fixture = try await StoreFixture.make()
        let held = GroupCommitTests.HeldStore(fixture: fixture)
        let tracer = InMemoryTracer()
        let results = try await withTracer(tracer) {
            try await held.appendTogether(
                [
                    ("t", .init(streamID: "a", expected: .any, events: [event("a1")])),
                    ("t", .init(streamID: "b", expected: .any, events: [event("b1"), event("b2")]))
                ], traced: true)
        }
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        let spans = tracer.finishedSpans
        let appends = spans.filter { $0.operationName == "ledger.append" }
        #expect(appends.count == 2)
        for append in appends {
            let parent = try #require(spans.first { $0.spanID == append.parentSpanID })
            #expect(parent.operationName.hasPrefix("request "))
            #expect(append.attributes["ledger.app_id"]?.toSpanAttribute() == .string("t"))
        }
        let groups = spans.filter { $0.operationName == "ledger.group_commit" }
        let group = try #require(groups.first, "\(spans.map(\.operationName))")
        #expect(groups.count == 1)
        #expect(group.attributes["ledger.group_commit.appends"]?.toSpanAttribute() == .int64(2))
        // Child of one append, linked to the other.
        let leader = try #require(appends.first { $0.spanID == group.parentSpanID })
        let other = try #require(appends.first { $0.spanID != leader.spanID })
        #expect(group.links.map { tracerSpanID($0.context) } == [other.spanID])
        #expect(spans.contains { $0.parentSpanID == group.spanID && $0.attributes["db.system.name"] != nil })
    }

    /// The span id the in-memory tracer keeps in a context.
    private func tracerSpanID(_ context: InstrumentationContext) -> String? { context.inMemorySpanContext?.spanID }

    @Test(arguments: [
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", true),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00", false),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03", true),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-zz", false), ("", false), ("garbage", false)
    ])
    func aTraceparentIsKeptOnlyWhenSampled(traceparent: String, sampled: Bool) {
        #expect(TraceContext.isSampled(traceparent) == sampled)
    }

    /// W3C Trace Context's `traceparent`: what a receiver takes, and what it must ignore (then starting a new trace).
    @Test(arguments: [
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", true),
        ("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-comes-later", true),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra", false),
        ("ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", false),
        ("00-00000000000000000000000000000000-b7ad6b7169203331-01", false),
        ("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", false),
        ("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", false),
        ("00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01", false),
        ("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331", false), ("", false), ("--", false), ("00-é-b-01", false)
    ])
    func onlyAWellFormedTraceparentIsRead(traceparent: String, wellFormed: Bool) {
        #expect(TraceContext.isWellFormed(traceparent) == wellFormed)
    }

    /// Without a tracer (tracing off) an event's metadata names no trace, and nothing is injected anywhere.
    @Test func withoutATracerNothingIsInjectedOrKept() {
        #expect(TraceContext.headers(of: .topLevel).isEmpty)
        #expect(TraceContext.sampledTraceparent(of: .topLevel) == nil)
        #expect(!TraceContext.isEnabled)
    }
}
