import HTTPTypes
import Hummingbird
import LedgerStore
import PostgresClient

/// `Ledger-Read-After`: what a write answers with and a read sends back unchanged, so the read sees the write on any
/// instance, from the status cache, the primary or a replica.
///
/// Its parts, separated by `;`: the log position of the newest event the write appended (`<transaction id>-<position>`,
/// as the live streams' cursors), which the status cache must have followed before it answers (`StatusCache`); and,
/// with a read replica, the primary's WAL position after the write (`16/B374D848`), which the replica must have
/// replayed (`StatusReads`). A write that appended nothing has only the second part, or no token.
struct ReadToken: Sendable, Equatable {
    static let header = HTTPField.Name("Ledger-Read-After")!

    var checkpoint: LogCheckpoint?
    var walPosition: String?

    var text: String? {
        let parts = [checkpoint.map { "\($0.transactionID)-\($0.position)" }, walPosition].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ";")
    }

    /// The request's token, checked; nil without one.
    static func parse(_ request: Request) throws(APIError) -> ReadToken? {
        guard let value = request.headers[header] else { return nil }
        return try parse(value)
    }

    static func parse(_ value: String) throws(APIError) -> ReadToken {
        var token = ReadToken()
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { throw refusal }
        for part in parts {
            if token.walPosition == nil, isWALPosition(part) {
                token.walPosition = String(part)
            } else if token.checkpoint == nil, let checkpoint = logPosition(part) {
                token.checkpoint = checkpoint
            } else {
                throw refusal
            }
        }
        return token
    }

    private static let refusal = APIError.badRequest(
        "Ledger-Read-After must be the token a write answered with (such as 7514-1203 or 7514-1203;16/B374D848); send it back unchanged")

    /// A WAL position as PostgreSQL writes it.
    private static func isWALPosition(_ text: Substring) -> Bool {
        let halves = text.split(separator: "/", omittingEmptySubsequences: false)
        return halves.count == 2 && halves.allSatisfy { (1...8).contains($0.count) && $0.allSatisfy(\.isHexDigit) }
    }

    private static func logPosition(_ text: Substring) -> LogCheckpoint? {
        let halves = text.split(separator: "-", omittingEmptySubsequences: false)
        guard halves.count == 2, halves.allSatisfy({ (1...20).contains($0.count) && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let transaction = UInt64(halves[0]), let position = Int64(halves[1])
        else { return nil }
        return LogCheckpoint(transactionID: transaction, position: position)
    }
}

/// Adds `Ledger-Read-After` to every successful write (any method but GET and HEAD) that has one to give: the newest
/// event it appended (`WrittenCheckpoint`) and, with a read replica, the primary's WAL position once the projections
/// include the write.
struct ReadTokenMiddleware: RouterMiddleware {
    typealias Context = LedgerRequestContext
    /// The primary, when status reads may go to a replica.
    let primaryWithReplica: PostgresPool?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method != .get, request.method != .head else { return try await next(request, context) }
        let written = WrittenCheckpoint()
        var response = try await WrittenCheckpoint.$current.withValue(written) { try await next(request, context) }
        guard (200..<300).contains(response.status.code) else { return response }
        var token = ReadToken(checkpoint: written.value)
        // A write that succeeded is not failed for want of its token: without it, the next read may lag. A replica
        // that replayed this position holds the write's read models only if the projections had it by now; a token
        // without one sends its reads to the primary (`StatusReads`).
        if let primaryWithReplica, !written.answeredBeforeProjections {
            token.walPosition = try? await ReplicaPosition.current(on: primaryWithReplica)
        }
        if let text = token.text { response.headers[ReadToken.header] = text }
        return response
    }
}
