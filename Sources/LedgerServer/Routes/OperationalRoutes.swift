import Foundation
import Hummingbird
import NIOCore

/// `/health`, `/ready`, `/openapi.json` and `/metrics`: no credentials.
struct OperationalRoutes {
    let readiness: ReadinessCheck

    func register(on routes: RouteTable) {
        let readiness = readiness
        // Liveness: the process answers; says nothing about the database (restarting would not fix it).
        routes.on(.get, "/health") { _, _ in try JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        // Readiness: the database answers and every migration is applied; load balancers route on this.
        routes.on(.get, "/ready") { _, _ in
            let status = await readiness.check()
            return try JSONResponse.make(status: status.isReady ? .ok : .serviceUnavailable, body: status)
        }
        routes.on(.get, "/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: OpenAPIDocument.body))
        }
        routes.on(.get, "/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: LedgerMetrics.exposition())))
        }
    }
}

extension OpenAPIDocument {
    /// The served bytes, encoded once.
    static let body = ByteBuffer(string: text)
}
