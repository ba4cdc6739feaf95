import AppStoreSamples
import AppStoreVerification
import InMemoryTracing
import Testing
import Tracing

/// Inside a trace, each signed payload of a notification is a span of its own that says whether its certificate
/// chain was already known; outside a trace, verification makes no span.
@Suite struct VerificationTracingTests {
    @Test func eachSignedPayloadIsASpanWithTheChainCacheOutcome() async throws {
        let signer = try AppStoreTestSigner()
        let verifiers = AppStoreVerifierSet(
            bundleId: "com.example.app", appAppleId: 1234, environments: [.production, .sandbox], roots: TrustRoots(certificates: signer.roots))
        func notification() throws -> String {
            try signer.notification(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: AppStorePayloads.jan1,
                transactionJSON: AppStorePayloads.transaction(id: "7", original: "7", environment: "Production"), environment: "Production")
        }
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            try await withSpan("first") { _ in _ = try await verifiers.verifyNotification(try notification()) }
            try await withSpan("second") { _ in _ = try await verifiers.verifyNotification(try notification()) }
        }
        let spans = tracer.finishedSpans
        for (request, cache) in [("first", "miss"), ("second", "hit")] {
            let parent = try #require(spans.first { $0.operationName == request })
            let children = spans.filter { $0.parentSpanID == parent.spanID }
            #expect(
                Set(children.map(\.operationName)) == ["appstore.verify notification", "appstore.verify transaction"],
                "\(children.map(\.operationName))")
            // The notification's chain is checked first: a cold cache misses once, then every payload hits.
            let notificationSpan = try #require(children.first { $0.operationName == "appstore.verify notification" })
            #expect(notificationSpan.attributes["appstore.chain_cache"]?.toSpanAttribute() == .string(cache))
        }
        // Untraced: no span.
        tracer.clearAll()
        try await withTracer(tracer) { _ = try await verifiers.verifyNotification(try notification()) }
        #expect(tracer.finishedSpans.isEmpty)
    }
}
