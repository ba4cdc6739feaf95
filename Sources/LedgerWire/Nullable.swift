import ExactJSON

/// An optional member that is always present in the JSON, as `null` when absent (synthesized `Encodable` would
/// leave the key out), so clients and the OpenAPI document see every member every time.
package struct Nullable<Value: Encodable & Sendable>: Encodable, Sendable {
    package var value: Value?
    package init(_ value: Value?) { self.value = value }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

extension Nullable: JSONWritable where Value: JSONWritable {
    @inlinable package func write(to json: inout JSONOutput) {
        if let value { value.write(to: &json) } else { json.null() }
    }
}
