import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP answer: status, headers and the body as text, with its JSON error code if it is an API error.
struct HTTPAnswer: Sendable {
    let status: Int
    let headers: [String: String]
    let text: String

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    func string(_ key: String) -> String? { json[key] as? String }
    var isSuccess: Bool { (200..<300).contains(status) }
}

/// A plain-HTTP client for a real `ledger serve` (URLSession, one ephemeral session per client).
struct HTTPClient: Sendable {
    let base: URL
    let session: URLSession

    init(base: URL, timeout: TimeInterval = 30) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 16
        session = URLSession(configuration: configuration)
    }

    /// Sends one request; throws on a transport failure (refused, reset, timed out), returns any HTTP answer.
    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) async throws -> HTTPAnswer {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.utf8)
            if headers["Content-Type"] == nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)".lowercased()] = "\(value)" }
        return HTTPAnswer(status: http.statusCode, headers: fields, text: String(decoding: data, as: UTF8.self))
    }
}
