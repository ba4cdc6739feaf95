import Foundation
import Tracing

/// One OTLP `ExportTraceServiceRequest` (opentelemetry-proto `collector/trace/v1`): one resource, one scope, the batch's
/// spans, written as protobuf (`http/protobuf`, field numbers of `trace/v1/trace.proto` and `common/v1/common.proto`)
/// or as OTLP/JSON (`http/json`: ids in hex, 64-bit integers as strings, enums as numbers).
package struct OTLPTraceRequest {
    package var resource: [(String, String)]
    package var scopeName: String
    package var spans: [FinishedSpan]

    package init(resource: [(String, String)], scopeName: String, spans: [FinishedSpan]) {
        self.resource = resource
        self.scopeName = scopeName
        self.spans = spans
    }

    /// A span attribute as OTLP's `AnyValue`; nil for a value the Tracing API added after this was written.
    enum Value {
        case string(String)
        case bool(Bool)
        case int(Int64)
        case double(Double)
        case array([Value])

        init?(_ attribute: SpanAttribute) {
            switch attribute {
            case .int32(let value): self = .int(Int64(value))
            case .int64(let value): self = .int(value)
            case .int32Array(let values): self = .array(values.map { .int(Int64($0)) })
            case .int64Array(let values): self = .array(values.map { .int($0) })
            case .double(let value): self = .double(value)
            case .doubleArray(let values): self = .array(values.map { .double($0) })
            case .bool(let value): self = .bool(value)
            case .boolArray(let values): self = .array(values.map { .bool($0) })
            case .string(let value): self = .string(value)
            case .stringArray(let values): self = .array(values.map { .string($0) })
            case .stringConvertible(let value): self = .string(value.description)
            case .stringConvertibleArray(let values): self = .array(values.map { .string($0.description) })
            default: return nil
            }
        }
    }

    static func attributes(_ attributes: SpanAttributes) -> [(String, Value)] {
        var list: [(String, Value)] = []
        list.reserveCapacity(attributes.count)
        attributes.forEach { key, attribute in
            if let value = Value(attribute) { list.append((key, value)) }
        }
        return list
    }

    /// OTLP's `Span.SpanKind`.
    static func number(_ kind: SpanKind) -> UInt64 {
        switch kind {
        case .internal: 1
        case .server: 2
        case .client: 3
        case .producer: 4
        case .consumer: 5
        }
    }

    /// OTLP's `Status.StatusCode`: 1 ok, 2 error.
    static func number(_ code: SpanStatus.Code) -> UInt64 {
        switch code {
        case .ok: 1
        case .error: 2
        }
    }
}

// MARK: - http/protobuf

extension OTLPTraceRequest {
    package var protobuf: [UInt8] {
        var request = ProtobufWriter()
        request.message(1) { resourceSpans in  // ResourceSpans
            resourceSpans.message(1) { resource in  // Resource
                for (key, value) in self.resource { resource.keyValue(1, key, .string(value)) }
            }
            resourceSpans.message(2) { scopeSpans in  // ScopeSpans
                scopeSpans.message(1) { scope in scope.string(1, scopeName) }  // InstrumentationScope
                for span in spans { scopeSpans.message(2) { Self.write(span, into: &$0) } }
            }
        }
        return request.bytes
    }

    private static func write(_ span: FinishedSpan, into writer: inout ProtobufWriter) {
        writer.bytes(1, span.context.traceID.bytes)
        writer.bytes(2, bigEndianBytes(span.context.spanID))
        writer.string(3, span.context.traceState)
        if span.context.parentSpanID != 0 { writer.bytes(4, bigEndianBytes(span.context.parentSpanID)) }
        writer.string(5, span.name)
        writer.varint(6, number(span.kind))
        writer.fixed64(7, span.startNanoseconds)
        writer.fixed64(8, span.endNanoseconds)
        for (key, value) in attributes(span.attributes) { writer.keyValue(9, key, value) }
        for event in span.events {
            writer.message(11) { written in
                written.fixed64(1, event.nanosecondsSinceEpoch)
                written.string(2, event.name)
                for (key, value) in attributes(event.attributes) { written.keyValue(3, key, value) }
            }
        }
        for link in span.links {
            writer.message(13) { written in
                written.bytes(1, link.context.traceID.bytes)
                written.bytes(2, bigEndianBytes(link.context.spanID))
                written.string(3, link.context.traceState)
                for (key, value) in attributes(link.attributes) { written.keyValue(4, key, value) }
            }
        }
        if let status = span.status {
            writer.message(15) { written in
                written.string(2, status.message ?? "")
                written.varint(3, number(status.code))
            }
        }
    }
}

/// Protocol Buffers' wire format, the few field kinds OTLP's trace messages use. Default values (0, "") are left out,
/// as proto3 does, except inside `AnyValue`'s oneof, where presence is the value.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    mutating func varint(_ field: Int, _ value: UInt64) {
        if value != 0 { writeVarint(field, value) }
    }

    mutating func fixed64(_ field: Int, _ value: UInt64) {
        key(field, wireType: 1)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func string(_ field: Int, _ value: String) {
        if !value.isEmpty { writeString(field, value) }
    }

    mutating func bytes(_ field: Int, _ value: [UInt8]) {
        if !value.isEmpty { writeLengthDelimited(field, value) }
    }

    mutating func message(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        body(&inner)
        writeLengthDelimited(field, inner.bytes)
    }

    /// `KeyValue { string key = 1; AnyValue value = 2; }`.
    mutating func keyValue(_ field: Int, _ key: String, _ value: OTLPTraceRequest.Value) {
        message(field) { keyValue in
            keyValue.string(1, key)
            keyValue.message(2) { $0.anyValue(value) }
        }
    }

    /// `AnyValue`'s oneof: string 1, bool 2, int 3, double 4, array 5 (`ArrayValue { repeated AnyValue values = 1; }`);
    /// written even when empty, false or zero.
    mutating func anyValue(_ value: OTLPTraceRequest.Value) {
        switch value {
        case .string(let text): writeString(1, text)
        case .bool(let flag): writeVarint(2, flag ? 1 : 0)
        case .int(let number): writeVarint(3, UInt64(bitPattern: number))
        case .double(let number): fixed64(4, number.bitPattern)
        case .array(let values):
            message(5) { array in
                for value in values { array.message(1) { $0.anyValue(value) } }
            }
        }
    }

    private mutating func writeVarint(_ field: Int, _ value: UInt64) {
        key(field, wireType: 0)
        rawVarint(value)
    }

    private mutating func writeString(_ field: Int, _ value: String) {
        var value = value
        value.withUTF8 { writeLengthDelimited(field, $0) }
    }

    private mutating func writeLengthDelimited(_ field: Int, _ value: some Collection<UInt8>) {
        key(field, wireType: 2)
        rawVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    private mutating func key(_ field: Int, wireType: UInt8) {
        rawVarint(UInt64(field) << 3 | UInt64(wireType))
    }

    private mutating func rawVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}

// MARK: - http/json

extension OTLPTraceRequest {
    package var json: Data {
        let object: [String: Any] = [
            "resourceSpans": [
                [
                    "resource": ["attributes": resource.map { Self.json(key: $0.0, .string($0.1)) }],
                    "scopeSpans": [["scope": ["name": scopeName], "spans": spans.map(Self.json)]]
                ]
            ]
        ]
        // Every value above is a JSON type, so serialization cannot fail; an empty body would be refused, not crash.
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    private static func json(_ span: FinishedSpan) -> [String: Any] {
        var object: [String: Any] = [
            "traceId": span.context.traceID.hex, "spanId": hex(span.context.spanID), "name": span.name,
            "kind": number(span.kind), "startTimeUnixNano": String(span.startNanoseconds),
            "endTimeUnixNano": String(span.endNanoseconds),
            "attributes": attributes(span.attributes).map { json(key: $0.0, $0.1) }
        ]
        if span.context.parentSpanID != 0 { object["parentSpanId"] = hex(span.context.parentSpanID) }
        if !span.context.traceState.isEmpty { object["traceState"] = span.context.traceState }
        if !span.events.isEmpty {
            object["events"] = span.events.map { event in
                [
                    "timeUnixNano": String(event.nanosecondsSinceEpoch), "name": event.name,
                    "attributes": attributes(event.attributes).map { json(key: $0.0, $0.1) }
                ] as [String: Any]
            }
        }
        if !span.links.isEmpty {
            object["links"] = span.links.map { link in
                [
                    "traceId": link.context.traceID.hex, "spanId": hex(link.context.spanID),
                    "attributes": attributes(link.attributes).map { json(key: $0.0, $0.1) }
                ] as [String: Any]
            }
        }
        if let status = span.status {
            var written: [String: Any] = ["code": number(status.code)]
            if let message = status.message { written["message"] = message }
            object["status"] = written
        }
        return object
    }

    private static func json(key: String, _ value: Value) -> [String: Any] {
        ["key": key, "value": json(value)]
    }

    private static func json(_ value: Value) -> [String: Any] {
        switch value {
        case .string(let text): ["stringValue": text]
        case .bool(let flag): ["boolValue": flag]
        case .int(let number): ["intValue": String(number)]
        case .double(let number): number.isFinite ? ["doubleValue": number] : ["stringValue": String(number)]
        case .array(let values): ["arrayValue": ["values": values.map(json)]]
        }
    }
}
