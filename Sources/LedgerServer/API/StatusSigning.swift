import HTTPTypes
import Hummingbird
import LedgerPrivacy
import UTCTime

/// Status answers an app may keep and trust offline (`GET /v1/users/{id}`, `GET /productsStatus`): the body as sent,
/// signed in `Ledger-Signature` (a detached ES256 JWS naming the user and the time of the answer; the keys are at
/// `/.well-known/jwks.json`). Signed for public-key callers (the app, which is who keeps them), and for a secret-key
/// caller that asks with `Ledger-Sign: true` (a backend that hands snapshots to its app); other backend reads do not
/// pay for a signature nobody checks.
struct StatusSigning: Sendable {
    static let signatureHeader = HTTPField.Name("Ledger-Signature")!
    static let requestHeader = HTTPField.Name("Ledger-Sign")!

    let keys: StatusSigningKeys

    func response(
        _ request: Request, caller: AppCaller, user: String, at now: Instant, headers: HTTPFields = [:], body: some Encodable
    ) throws -> Response {
        let asked = try Self.asked(request)
        let buffer = try JSONResponse.encode(body)
        var headers = headers
        if !caller.isSecret || asked {
            headers[Self.signatureHeader] = try keys.sign(body: buffer.readableBytesView, subject: user, issuedAt: now.secondsSinceEpoch)
        }
        return JSONResponse.make(status: .ok, buffer: buffer, headers: headers)
    }

    /// `Ledger-Sign`: absent, `true` or `false`.
    static func asked(_ request: Request) throws(APIError) -> Bool {
        switch request.headers[requestHeader]?.lowercased() {
        case nil, "false": false
        case "true": true
        default: throw .badRequest("`Ledger-Sign` must be `true` (sign the answer) or `false`")
        }
    }
}

/// `GET /.well-known/jwks.json`: the keys status signatures name (no credentials: they are public).
struct StatusKeyRoutes {
    let keys: StatusSigningKeys

    func register(on routes: RouteTable) {
        let keys = keys
        routes.on(.get, "/.well-known/jwks.json") { _, _ in
            // Short-lived in caches: a rotation's new key must reach apps that refetch on an unknown key id.
            try JSONResponse.make(status: .ok, body: keys.keySet(), headers: [.cacheControl: "public, max-age=300"])
        }
    }
}
