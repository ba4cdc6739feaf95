import AppStoreServerTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// An OTLP/HTTP trace receiver on loopback for the tests: it accepts `POST /v1/traces` in OTLP's JSON encoding
/// (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) or as protobuf (`http/protobuf`, read with its own small wire-format
/// reader, independent of the exporter's writer) and keeps every span it was sent, ids as lower-case hex.
package final class OTLPReceiver: Sendable {
    package struct Span: Sendable, CustomStringConvertible {
        package var traceID: String
        package var spanID: String
        package var parentSpanID: String
        package var name: String
        /// 1 internal, 2 server, 3 client (OTLP's `SpanKind`).
        package var kind: Int
        /// Each attribute's value as text.
        package var attributes: [String: String]
        /// The span ids this span links to.
        package var links: [String]

        package var description: String { "\(name) [\(spanID) ← \(parentSpanID.isEmpty ? "root" : parentSpanID)] \(attributes)" }
    }

    private let received = Mutex<[Span]>([])
    private let server = Mutex<TestServer?>(nil)
    package var port: Int { server.withLock { $0?.port ?? 0 } }

    package init() {}

    /// `OTEL_EXPORTER_OTLP_ENDPOINT` for a service that exports here.
    package var endpoint: String { "http://127.0.0.1:\(port)" }

    package var spans: [Span] { received.withLock { $0 } }

    package func start() async throws {
        let router = Router()
        router.post("/v1/traces") { [self] request, _ -> Response in
            let body = try await request.body.collect(upTo: 64 << 20)
            let protobuf = request.headers[.contentType]?.hasPrefix("application/x-protobuf") == true
            let spans = try protobuf ? Self.decodeProtobuf(Array(body.readableBytesView)) : Self.decode(Data(body.readableBytesView))
            received.withLock { $0 += spans }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .connection: "close"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
        }
        let started = try await TestServer.start(router, label: "test.otlp")
        server.withLock { $0 = started }
    }

    package func stop() async { await server.withLock({ $0 })?.stop() }

    /// OTLP JSON: `resourceSpans[].scopeSpans[].spans[]`.
    package static func decode(_ data: Data) throws -> [Span] {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
        let spans = (root["resourceSpans"] as? [[String: Any]] ?? []).flatMap { resource in
            (resource["scopeSpans"] as? [[String: Any]] ?? []).flatMap { $0["spans"] as? [[String: Any]] ?? [] }
        }
        return spans.map { span in
            Span(
                traceID: hex(span["traceId"]), spanID: hex(span["spanId"]), parentSpanID: hex(span["parentSpanId"]),
                name: span["name"] as? String ?? "", kind: span["kind"] as? Int ?? 0,
                attributes: Dictionary(
                    (span["attributes"] as? [[String: Any]] ?? []).compactMap { attribute in
                        guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any],
                            let first = value.values.first
                        else { return nil }
                        return (key, "\(first)")
                    }, uniquingKeysWith: { first, _ in first }),
                links: (span["links"] as? [[String: Any]] ?? []).map { hex($0["spanId"]) })
        }
    }

    /// OTLP/JSON writes ids in hex (the specification); swift-otel's exporter wrote base64 (protobuf's JSON mapping).
    private static func hex(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if [16, 32].contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) {
            return text
        }
        guard let bytes = Data(base64Encoded: text) else { return text.lowercased() }
        return Array(bytes).hex
    }

    /// OTLP protobuf: `ExportTraceServiceRequest.resource_spans` (1) → `ResourceSpans.scope_spans` (2) →
    /// `ScopeSpans.spans` (2) → `Span`; a `KeyValue`'s `AnyValue` as text (ints and bools as their decimal, doubles
    /// by Swift's description).
    package static func decodeProtobuf(_ bytes: [UInt8]) throws -> [Span] {
        let request = try ProtobufFields(bytes)
        return try request.messages(1).flatMap { resourceSpans in
            try resourceSpans.messages(2).flatMap { scopeSpans in
                try scopeSpans.messages(2).map { span in
                    Span(
                        traceID: span.bytes(1).hex, spanID: span.bytes(2).hex, parentSpanID: span.bytes(4).hex,
                        name: span.text(5), kind: Int(span.varint(6)),
                        attributes: Dictionary(try span.messages(9).map { try ($0.text(1), $0.message(2).anyValueText) }) { first, _ in first },
                        links: try span.messages(13).map { $0.bytes(2).hex })
                }
            }
        }
    }
}

/// A protobuf message's fields by number (wire types varint, 64-bit, length-delimited, 32-bit), for reading in tests.
package struct ProtobufFields {
    package struct Malformed: Error {}

    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes([UInt8])
        case fixed32(UInt32)
    }

    let fields: [(number: Int, value: Value)]

    package init(_ bytes: [UInt8]) throws {
        var fields: [(Int, Value)] = []
        var index = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else { throw Malformed() }
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        func take(_ count: Int) throws -> [UInt8] {
            guard count >= 0, index + count <= bytes.count else { throw Malformed() }
            defer { index += count }
            return Array(bytes[index..<index + count])
        }
        while index < bytes.count {
            let key = try varint()
            let number = Int(key >> 3)
            switch key & 7 {
            case 0: fields.append((number, .varint(try varint())))
            case 1: fields.append((number, .fixed64(try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) })))
            case 2: fields.append((number, .bytes(try take(Int(try varint())))))
            case 5: fields.append((number, .fixed32(try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) })))
            default: throw Malformed()
            }
        }
        self.fields = fields
    }

    package func messages(_ number: Int) throws -> [ProtobufFields] {
        try fields.compactMap { field in
            guard field.number == number, case .bytes(let bytes) = field.value else { return nil }
            return try ProtobufFields(bytes)
        }
    }

    package func message(_ number: Int) throws -> ProtobufFields { try messages(number).last ?? ProtobufFields([]) }

    package func bytes(_ number: Int) -> [UInt8] {
        for field in fields.reversed() where field.number == number { if case .bytes(let bytes) = field.value { return bytes } }
        return []
    }

    package func text(_ number: Int) -> String { String(decoding: bytes(number), as: UTF8.self) }

    package func varint(_ number: Int) -> UInt64 {
        for field in fields.reversed() where field.number == number { if case .varint(let value) = field.value { return value } }
        return 0
    }

    package func fixed64(_ number: Int) -> UInt64 {
        for field in fields.reversed() where field.number == number { if case .fixed64(let value) = field.value { return value } }
        return 0
    }

    /// `AnyValue` (string 1, bool 2, int 3, double 4, array 5) as text; an array as its values' texts joined by ",".
    package var anyValueText: String {
        get throws {
            guard let field = fields.last else { return "" }
            switch (field.number, field.value) {
            case (1, .bytes(let bytes)): return String(decoding: bytes, as: UTF8.self)
            case (2, .varint(let value)): return value == 0 ? "false" : "true"
            case (3, .varint(let value)): return String(Int64(bitPattern: value))
            case (4, .fixed64(let bits)): return String(Double(bitPattern: bits))
            case (5, .bytes):
                return try message(5).messages(1).map { try $0.anyValueText }.joined(separator: ",")
            default: throw Malformed()
            }
        }
    }
}

extension [UInt8] {
    fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}
