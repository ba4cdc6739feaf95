import ExactJSON
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An error answered to the client: `{"error": {"code", "message", …}}` with a stable `code` to branch on and a
/// `message` that says what to fix.
package struct APIError: Error, HTTPResponseError, Sendable {
    package var status: HTTPResponse.Status
    package var code: String
    package var message: String
    /// Extra members of the error object (e.g. a refused restore's conflicts).
    package var details: [String: AnyEncodableValue]
    package var headers: HTTPFields

    package init(
        _ status: HTTPResponse.Status, _ code: String, _ message: String,
        details: [String: AnyEncodableValue] = [:], headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    /// `{"error": {"code", "message", …details}}`.
    var body: [String: [String: AnyEncodableValue]] {
        var error: [String: AnyEncodableValue] = details
        error["code"] = .string(code)
        error["message"] = .string(message)
        return ["error": error]
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONResponse.make(status: status, body: body)
        response.headers.append(contentsOf: headers)
        return response
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, "invalid_request", message) }
    static func invalidJSON(_ message: String) -> APIError { APIError(.badRequest, "invalid_json", message) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, "not_found", message) }
    /// A read of an erased user: what they had is no longer theirs to read.
    /// A read whose `Ledger-Read-After` names a write the projections have not applied yet (`StatusReads`).
    static let readAfterPending = APIError(
        .serviceUnavailable, "read_after_pending",
        "the ledger has not yet applied the write this read's Ledger-Read-After names; retry after Retry-After seconds",
        headers: [.retryAfter: "1"])
    static let userErased = APIError(
        .notFound, "user_erased", "this user was erased; the ledger keeps their purchases' facts but nothing that ties them to this id")
    static func unauthorized(_ message: String) -> APIError {
        APIError(.unauthorized, "unauthorized", message, headers: [.wwwAuthenticate: "Bearer"])
    }
    static func forbidden(_ message: String) -> APIError { APIError(.forbidden, "forbidden", message) }
}

/// A JSON value for the free-form parts of error bodies.
package enum AnyEncodableValue: Encodable, Sendable, Equatable {
    case string(String)
    case int(Int64)
    case array([AnyEncodableValue])
    case object([String: AnyEncodableValue])

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// JSON responses: sorted keys so answers are byte-stable, and every body ends with a newline so that an answer
/// printed in a terminal (curl) does not run into the next prompt. The one place JSON bodies are made.
enum JSONResponse {
    static func make(status: HTTPResponse.Status, body: some Encodable, headers: HTTPFields = [:]) throws -> Response {
        make(status: status, buffer: try encode(body), headers: headers)
    }

    /// JSON already written (the invoices' canonical text).
    static func make(status: HTTPResponse.Status, encoded json: some Collection<UInt8>, headers: HTTPFields = [:]) -> Response {
        make(status: status, buffer: line(json), headers: headers)
    }

    /// An answer's bytes: `body` with sorted keys, then a newline.
    static func encode(_ body: some Encodable) throws -> ByteBuffer { line(try SortedKeysEncoder().encode(body)) }

    private static func line(_ json: some Collection<UInt8>) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(json.count + 1)
        buffer.writeBytes(json)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }

    /// Bytes `encode` made (a signed answer signs exactly these).
    static func make(status: HTTPResponse.Status, buffer: ByteBuffer, headers: HTTPFields) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: buffer))
    }
}
