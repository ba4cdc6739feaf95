import Hummingbird
import LedgerOperators
import LedgerStore
import NIOCore
import UTCTime

/// `/v1/admin/operator-record…`: the operator record (who did what, `OperatorActionLog`), for every role to read
/// (auditors above all): a filtered page, newest first, and the whole record as JSON lines for download. Nothing here
/// writes, so no role is named for writes.
struct OperatorRecordRoutes {
    let record: OperatorActionLog

    struct PageBody: Encodable {
        var actions: [OperatorActionJSON]
        /// Pass as `before` for the next (older) page; absent on the last.
        var nextBefore: Int64?

        enum CodingKeys: String, CodingKey {
            case actions
            case nextBefore = "next_before"
        }
    }

    func register(on routes: RouteTable, auth: Authenticator) {
        let admin = routes.group("/v1/admin/operator-record", AdminAuthentication(auth: auth, writers: []))
        let record = record
        admin.on(.get, "/v1/admin/operator-record") { request, _ in
            let filter = try Self.filter(request)
            let limit = try Self.limit(request)
            let rows = try await record.list(filter, limit: limit)
            let next = rows.count == limit ? rows.last?.seq : nil
            return try JSONResponse.make(status: .ok, body: PageBody(actions: rows.map(OperatorActionJSON.init), nextBefore: next))
        }
        admin.on(.get, "/v1/admin/operator-record/export") { _, _ in
            var headers: HTTPFields = [.contentType: "application/x-ndjson; charset=utf-8", .cacheControl: "no-store"]
            headers[.contentDisposition] = "attachment; filename=\"operator-record.jsonl\""
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    try await record.exportLines { try await writer.write(ByteBuffer(string: $0)) }
                    try await writer.finish(nil)
                })
        }
    }

    static func filter(_ request: Request) throws(APIError) -> OperatorActionFilter {
        func instant(_ name: String) throws(APIError) -> Instant? {
            guard let text = try request.query(name) else { return nil }
            guard let instant = Instant(rfc3339: text) else {
                throw .badRequest("`\(name)` must be an RFC 3339 time in UTC, e.g. 2026-03-01T00:00:00Z")
            }
            return instant
        }
        var before: Int64? = nil
        if let text = try request.query("before") {
            guard let value = Int64(text), value > 0 else { throw .badRequest("`before` must be a row number ≥ 1 (`next_before`)") }
            before = value
        }
        return OperatorActionFilter(
            operator: try request.query("operator").map { value throws(APIError) in try Check.text(value, "operator", max: 200) },
            action: try request.query("action").map { value throws(APIError) in try Check.text(value, "action", max: 200) },
            since: try instant("since"), until: try instant("until"), before: before)
    }

    static func limit(_ request: Request) throws(APIError) -> Int {
        guard let text = try request.query("limit") else { return 100 }
        guard let value = Int(text), (1...1_000).contains(value) else { throw .badRequest("`limit` must be from 1 to 1000") }
        return value
    }
}
