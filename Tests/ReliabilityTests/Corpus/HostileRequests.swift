import Foundation
import HTTPTypes
import LedgerServerTestSupport

/// The hostile requests for one operation: each path id, each query value and each body member replaced by each
/// hostile string, plus the hostile bodies; the other parts of the request stay valid.
struct HostileRequests {
    struct Request {
        var name: String
        var uri: String
        var body: [UInt8]?
        var mustReject: Bool
    }

    let all: [Request]

    init(operation: Operation, values: [String: String], limit: Int) {
        let validBody = operation.exampleBody.map { Array($0.utf8) }
        var requests: [Request] = []
        for parameter in operation.pathParameters {
            for string in HostileString.corpus {
                var changed = values
                changed[parameter] = string.encoded
                requests.append(
                    Request(
                        name: "path \(parameter)=\(string.name)", uri: operation.uri(changed), body: validBody,
                        mustReject: string.rejectInURL))
            }
        }
        for parameter in operation.queryParameters + ["unknown_parameter"] {
            for string in HostileString.corpus {
                let must = string.rejectInURL && parameter != "unknown_parameter"
                requests.append(
                    Request(
                        name: "query \(parameter)=\(string.name)", uri: operation.uri(values, query: [(parameter, string.encoded)]),
                        body: validBody, mustReject: must))
            }
        }
        if let example = operation.exampleBody {
            for body in HostileBody.corpus(example: example, strings: HostileString.corpus, limit: limit) {
                requests.append(Request(name: "body \(body.name)", uri: operation.uri(values), body: body.bytes, mustReject: body.mustReject))
            }
        }
        all = requests
    }
}

/// The credentials each operation is tried with: the right one, and missing or wrong ones (which must be refused).
struct Credentials {
    var name: String
    var headers: HTTPFields
    var isValid: Bool

    static func all(for operation: Operation, tenant: APIClient.Tenant) -> [Credentials] {
        let apiKey = HTTPField.Name("APIKey")!
        let wrong: [Credentials] = [
            Credentials(name: "no key", headers: [:], isValid: false),
            Credentials(name: "forged key", headers: APIClient.bearer("sk_forged0000000000000000"), isValid: false),
            Credentials(name: "injected key", headers: [apiKey: "pk_' OR '1'='1"], isValid: false),
            Credentials(name: "basic auth", headers: [.authorization: "Basic YWRtaW46YWRtaW4="], isValid: false)
        ]
        switch operation.security {
        case .none: return [Credentials(name: "none needed", headers: [:], isValid: true)]
        case .admin:
            return [
                Credentials(name: "admin", headers: APIClient.admin, isValid: true),
                Credentials(name: "app secret on admin", headers: tenant.secret, isValid: false)
            ] + wrong
        case .appKey:
            return [
                Credentials(name: "secret", headers: tenant.secret, isValid: true),
                Credentials(name: "admin on app", headers: APIClient.admin, isValid: false)
            ] + wrong
        }
    }
}
