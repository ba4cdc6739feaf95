import AppStoreServerTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// An OTLP/HTTP trace receiver on loopback for the tests: it accepts `POST /v1/traces` in OTLP's JSON encoding
/// (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) and keeps every span it was sent, ids as lower-case hex.
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
            let spans = try Self.decode(Data(body.readableBytesView))
            received.withLock { $0 += spans }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .connection: "close"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
        }
        let started = try await TestServer.start(router, label: "test.otlp")
        server.withLock { $0 = started }
    }

    package func stop() async { await server.withLock({ $0 })?.stop() }

    /// OTLP JSON: `resourceSpans[].scopeSpans[].spans[]`, ids in base64 (protobuf's JSON mapping of bytes).
    static func decode(_ data: Data) throws -> [Span] {
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

    private static func hex(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        guard let bytes = Data(base64Encoded: text) else { return text.lowercased() }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}
