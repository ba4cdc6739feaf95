import Foundation
import HTTPTypes

/// Every operation of the OpenAPI document the server serves (`GET /openapi.json`), so that a new endpoint is in
/// the hostile-input corpus and the isolation matrix without anyone adding it there.
struct Operation: Sendable, CustomStringConvertible {
    enum Security: Sendable { case none, admin, appKey }

    var method: HTTPRequest.Method
    /// The path template, e.g. `/v1/users/{user_id}/events`.
    var template: String
    var pathParameters: [String]
    var queryParameters: [String]
    var security: Security
    /// The documented example body, as JSON text, when the operation takes a body.
    var exampleBody: String?

    var description: String { "\(method) \(template)" }

    /// The path with `values` substituted (each already percent-encoded), and `query` appended.
    func uri(_ values: [String: String], query: [(String, String)] = []) -> String {
        var path = template
        for name in pathParameters { path = path.replacingOccurrences(of: "{\(name)}", with: values[name] ?? "x") }
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// Reads the operations out of an OpenAPI 3 document.
    static func catalog(openAPI text: String) throws -> [Operation] {
        guard let document = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let paths = document["paths"] as? [String: [String: Any]]
        else { throw CatalogError.notAnOpenAPIDocument }
        let components = (document["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]] ?? [:]
        func resolve(_ parameter: [String: Any]) -> [String: Any] {
            guard let ref = parameter["$ref"] as? String else { return parameter }
            return components[String(ref.split(separator: "/").last ?? "")] ?? [:]
        }
        var operations: [Operation] = []
        for (template, item) in paths.sorted(by: { $0.key < $1.key }) {
            for (verb, value) in item.sorted(by: { $0.key < $1.key }) {
                guard let method = HTTPRequest.Method(verb.uppercased()), let operation = value as? [String: Any],
                    ["GET", "POST", "PUT", "DELETE", "PATCH"].contains(method.rawValue)
                else { continue }
                let parameters = ((operation["parameters"] as? [[String: Any]]) ?? []).map(resolve)
                let named = { (place: String) in parameters.filter { $0["in"] as? String == place }.compactMap { $0["name"] as? String } }
                let schemes = ((operation["security"] as? [[String: Any]]) ?? []).flatMap(\.keys)
                let security: Security = schemes.contains("adminToken") ? .admin : schemes.isEmpty ? .none : .appKey
                let content = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
                let example = try content?["example"].map {
                    String(
                        decoding: try JSONSerialization.data(
                            withJSONObject: $0,
                            options: [.fragmentsAllowed]), as: UTF8.self)
                }
                operations.append(
                    Operation(
                        method: method, template: template, pathParameters: named("path"),
                        queryParameters: named("query"), security: security,
                        exampleBody: content == nil ? nil : example ?? "{}"))
            }
        }
        return operations
    }

    enum CatalogError: Error { case notAnOpenAPIDocument }
}
