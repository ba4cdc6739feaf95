import AsyncHTTPClient
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Requests to a server listening on 127.0.0.1, for tests that run it `.live`. HummingbirdTesting's own live client
/// fails a request with `readTimeout` when its connection has read nothing for 20 s, counted from the previous
/// answer rather than from the request, so a test that spends a while on raw sockets or another client between two
/// requests (while the whole suite starts on two cores) lost its next request. This one bounds each request by itself.
struct LoopbackTransport: Sendable {
    let port: Int

    /// Redirects are answers the tests check, so they are never followed; bodies arrive as sent.
    private static let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(30)), decompression: .disabled))

    func execute(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?
    ) async throws -> APIResponse {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(uri)")
        request.method = HTTPMethod(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body { request.body = .bytes(body) }
        let response = try await Self.client.execute(request, timeout: .minutes(2))
        let bytes = try await response.body.collect(upTo: 256 << 20)
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        return APIResponse(
            status: HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase),
            headers: fields, text: String(buffer: bytes))
    }
}
