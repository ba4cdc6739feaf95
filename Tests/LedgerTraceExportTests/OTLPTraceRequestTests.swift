import Foundation
@testable import LedgerTraceExport
import LedgerServerTestSupport
import Testing
import Tracing

/// The two encodings, read back by readers written independently of the writer (the test receiver's).
@Suite struct OTLPTraceRequestTests {
    static let parent = SpanContext(
        traceID: TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736), spanID: 0x00f0_67aa_0ba9_02b7, isSampled: true)

    static var request: OTLPTraceRequest {
        var attributes = SpanAttributes()
        attributes["db.system"] = "postgresql"
        attributes["db.statement"] = "SELECT status FROM read_models.users WHERE app_id = $1"
        attributes["db.rows"] = 3
        attributes["cache.hit"] = true
        attributes["ratio"] = 0.25
        attributes["db.operation.batch"] = ["a", "b"]
        var child = SpanContext(traceID: parent.traceID, spanID: 0x1122_3344_5566_7788, parentSpanID: parent.spanID, isSampled: true)
        child.traceState = "vendor=abc"
        let span = FinishedSpan(
            context: child, name: "SELECT ledger", kind: .client, startNanoseconds: 1_764_300_000_000_000_001,
            endNanoseconds: 1_764_300_000_000_500_000, attributes: attributes,
            events: [SpanEvent(name: "retry", at: DefaultTracerClock.now)],
            links: [FinishedSpan.Link(context: parent, attributes: [:])], status: SpanStatus(code: .error, message: "refused"))
        let root = FinishedSpan(
            context: parent, name: "GET /v1/users/{id}", kind: .server, startNanoseconds: 1, endNanoseconds: 2, attributes: [:],
            events: [], links: [], status: nil)
        return OTLPTraceRequest(resource: [("service.name", "subscription-ledger")], scopeName: "subscription-ledger", spans: [span, root])
    }

    static func check(_ spans: [OTLPReceiver.Span]) throws {
        try #require(spans.count == 2)
        let (child, root) = (spans[0], spans[1])
        #expect(child.traceID == "4bf92f3577b34da6a3ce929d0e0e4736" && root.traceID == child.traceID)
        #expect(child.spanID == "1122334455667788" && child.parentSpanID == "00f067aa0ba902b7")
        #expect(root.spanID == "00f067aa0ba902b7" && root.parentSpanID == "")
        #expect(child.name == "SELECT ledger" && child.kind == 3 && root.kind == 2)
        #expect(child.attributes["db.system"] == "postgresql")
        #expect(child.attributes["db.statement"] == "SELECT status FROM read_models.users WHERE app_id = $1")
        #expect(child.attributes["db.rows"] == "3")
        #expect(child.attributes["cache.hit"] == "true" || child.attributes["cache.hit"] == "1")
        #expect(child.attributes["ratio"] == "0.25")
        #expect(child.links == ["00f067aa0ba902b7"])
    }

    @Test func protobufReadsBackFieldByField() throws {
        let bytes = Self.request.protobuf
        try Self.check(try OTLPReceiver.decodeProtobuf(bytes))
        // What the receiver's reader leaves out: the resource, the scope, times, status, events, trace state, arrays.
        let resourceSpans = try ProtobufFields(bytes).message(1)
        let resource = try resourceSpans.message(1).messages(1)
        #expect(try resource.map { try [$0.text(1), $0.message(2).anyValueText] } == [["service.name", "subscription-ledger"]])
        let scopeSpans = try resourceSpans.message(2)
        #expect(try scopeSpans.message(1).text(1) == "subscription-ledger")
        let span = try #require(try scopeSpans.messages(2).first)
        #expect(span.fixed64(7) == 1_764_300_000_000_000_001 && span.fixed64(8) == 1_764_300_000_000_500_000)
        #expect(span.text(3) == "vendor=abc")
        #expect(try span.message(15).varint(3) == 2 && span.message(15).text(2) == "refused")
        #expect(try span.messages(11).map { $0.text(2) } == ["retry"])
        let batch = try span.messages(9).first { $0.text(1) == "db.operation.batch" }
        #expect(try batch?.message(2).anyValueText == "a,b")
    }

    @Test func theWireFormatsVarintsAndFixedWidthsAsProtobufDoes() {
        var writer = ProtobufWriter()
        writer.varint(1, 300)
        writer.varint(2, 0)  // a default value is left out
        writer.fixed64(3, 1)
        writer.string(4, "hé")
        #expect(writer.bytes == [0x08, 0xAC, 0x02, 0x19, 1, 0, 0, 0, 0, 0, 0, 0, 0x22, 3, 0x68, 0xC3, 0xA9])
        var negative = ProtobufWriter()
        negative.anyValue(.int(-1))
        #expect(negative.bytes == [0x18] + Array(repeating: 0xFF, count: 9) + [0x01])
    }

    @Test func jsonReadsBackWithHexIdsAndIntegersAsStrings() throws {
        let data = Self.request.json
        try Self.check(try OTLPReceiver.decode(data))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""traceId":"4bf92f3577b34da6a3ce929d0e0e4736""#))
        #expect(text.contains(#""startTimeUnixNano":"1764300000000000001""#))
        #expect(text.contains(#""intValue":"3""#))
    }
}
