import Foundation

/// Stored JSON re-emitted as JSON (not as a string).
struct RawJSON: Encodable {
    var text: String

    func encode(to encoder: any Encoder) throws {
        let value = try JSONDecoder().decode(AnyJSON.self, from: Data(text.utf8))
        try value.encode(to: encoder)
    }
}

/// Any JSON value, for re-encoding stored payloads.
indirect enum AnyJSON: Codable {
    case null
    case bool(Bool)
    case number(Decimal)
    case string(String)
    case array([AnyJSON])
    case object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Decimal.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([AnyJSON].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: AnyJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
