import ExactJSON
import Foundation
import Hummingbird
import NIOCore

/// Request bodies, read within the server's size limit and decoded with errors that name the offending field.
struct RequestBodyReader: Sendable {
    /// Largest body accepted, in bytes (receipts of long-lived apps reach a few hundred kilobytes).
    let limit: Int

    func bytes(_ request: Request) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw Self.tooLarge(limit)
        } catch is NIOTooManyBytesError {
            throw Self.tooLarge(limit)
        }
    }

    static func tooLarge(_ limit: Int) -> APIError {
        APIError(.contentTooLarge, "payload_too_large", "the request body is larger than \(limit) bytes; send less per request")
    }

    /// Decodes a JSON body into `T`; an empty body is an error naming what was expected. A `StrictBody` is first
    /// checked for members it does not have and for `null` where null is not allowed (Codable would silently accept
    /// both), so a typo in a member name is an error rather than an ignored setting.
    func json<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let data = try await bytes(request)
        guard !data.isEmpty else { throw APIError.invalidJSON("the request needs a JSON body; see GET /openapi.json") }
        if let strict = T.self as? any StrictBody.Type {
            guard let value = try? JSONParser.parse(data) else {
                throw APIError.invalidJSON("the body is not valid JSON; send a JSON object (Content-Type: application/json)")
            }
            guard value.isObject else { throw APIError.invalidJSON("the body must be a JSON object") }
            try Self.check(value, against: strict, path: "")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(data))
        } catch let error as DecodingError {
            throw APIError.invalidJSON(Self.describe(error))
        } catch let error as APIError {
            throw error
        }
    }

    static func check(_ value: JSONValue, against body: any StrictBody.Type, path: String) throws(APIError) {
        guard case .object(let members) = value else { return }  // a wrong type is reported by the decoder
        for member in members {
            let name = path.isEmpty ? member.key : "\(path).\(member.key)"
            guard let rule = body.members[member.key] else {
                throw .invalidJSON("`\(name)` is not a member of this body; expected \(body.members.keys.sorted().joined(separator: ", "))")
            }
            if member.value == .null {
                if rule.nullable { continue }
                throw .invalidJSON("`\(name)` must not be null; leave it out instead")
            }
            guard let nested = rule.nested else { continue }
            if case .array(let items) = member.value {
                for (index, item) in items.enumerated() { try check(item, against: nested, path: "\(name)[\(index)]") }
            } else {
                try check(member.value, against: nested, path: name)
            }
        }
    }

    /// What is wrong, as a path into the body, e.g. "`transactions[0].signed_transaction` is required".
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let all = keys + (last.map { [$0] } ?? [])
            guard !all.isEmpty else { return "the body" }
            var text = ""
            for key in all {
                if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
            }
            return "`\(text)`"
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath, key)) is required"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) must be \(Self.name(type))"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)) must be \(Self.name(type)), not null"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the body is not valid JSON; send a JSON object (Content-Type: application/json)" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "the body does not match the expected shape; see GET /openapi.json"
        }
    }

    static func name(_ type: Any.Type) -> String {
        let text = String(describing: type)
        if text.hasPrefix("Array") { return "an array" }
        if text.hasPrefix("Dictionary") || text.hasPrefix("KeyedDecodingContainer") { return "an object" }
        switch text {
        case "String": return "a string"
        case "Int", "Int64", "Int32": return "an integer"
        case "Bool": return "true or false"
        default: return "a \(text)"
        }
    }
}

/// A request body whose members are checked before decoding: no unknown members, `null` only where allowed.
/// `members` is keyed by wire name, the raw values of the type's `CodingKeys`.
protocol StrictBody: Decodable, Sendable {
    static var members: [String: BodyMember] { get }
}

/// One member of a `StrictBody`: whether it may be `null`, and the shape of its object (or array elements).
struct BodyMember: Sendable {
    var nullable = false
    var nested: (any StrictBody.Type)? = nil

    static let plain = BodyMember()
    static let nullable = BodyMember(nullable: true)
    static func object(_ type: any StrictBody.Type) -> BodyMember { BodyMember(nested: type) }
}

extension StrictBody {
    /// Members none of which may be null.
    static func plain(_ names: String...) -> [String: BodyMember] {
        Dictionary(uniqueKeysWithValues: names.map { ($0, BodyMember.plain) })
    }
}

/// Field checks shared by the request types: each throws a 400 that says what to fix.
enum Check {
    static func text(_ value: String, _ field: String, max: Int, min: Int = 1) throws(APIError) -> String {
        // Counted in code points, as JSON Schema's maxLength counts (a combining mark is one more).
        guard value.unicodeScalars.count >= min else { throw .badRequest("`\(field)` must not be empty") }
        guard value.unicodeScalars.count <= max else { throw .badRequest("`\(field)` is longer than \(max) characters") }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .badRequest("`\(field)` must not contain control characters")
        }
        return value
    }

    static func items<T>(_ values: [T], _ field: String, max: Int, min: Int = 0) throws(APIError) -> [T] {
        guard values.count >= min else { throw .badRequest("`\(field)` needs at least \(min) item(s)") }
        guard values.count <= max else { throw .badRequest("`\(field)` has more than \(max) items; send them in several requests") }
        return values
    }
}
