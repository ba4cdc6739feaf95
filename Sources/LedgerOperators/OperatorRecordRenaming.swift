import Foundation
import PostgresClient

/// The operator record's part of the log's migration to pseudonyms (`ledger migrate --seal-history`, docs/erasure.md
/// "Upgrading"). Rows written before pseudonyms name users by id: in request paths (`/v1/admin/apps/<app>/users/<id>…`)
/// and in the console's details (`… to <id> in <app> for N days`, `of <id> in <app>`). Each is renamed to the form
/// rows take today (`user:<pseudonym>`), and the record's chain is recomputed from its first row by the database's
/// own `ledger.operator_action_hash`, in the caller's transaction. The caller signs a new digest of the record.
package enum OperatorRecordRenaming {
    package struct Outcome: Sendable, Equatable {
        package var rowsRewritten: Int
        /// The record's length, and its head's hash before and after (nil: the record is empty).
        package var count: Int64
        package var headBefore: [UInt8]?
        package var headAfter: [UInt8]?
    }

    /// Renames the users of `pseudonyms` (per app: id → pseudonym) wherever a row names them.
    package static func rename(_ pseudonyms: [String: [String: String]], on connection: PostgresConnection) throws -> Outcome {
        func head() throws -> (Int64, [UInt8])? {
            try connection.query("SELECT seq, hash FROM ledger.operator_actions ORDER BY seq DESC LIMIT 1").first.map {
                (try $0.decode(Int64.self, at: 0), try $0.decode([UInt8].self, at: 1))
            }
        }
        let before = try head()
        var changed: [(seq: Int64, target: String, detail: String)] = []
        if !pseudonyms.isEmpty {
            for row in try connection.query("SELECT seq, action, target, detail FROM ledger.operator_actions ORDER BY seq") {
                let (seq, action) = (try row.decode(Int64.self, at: 0), try row.decode(String.self, at: 1))
                let (target, detail) = (try row.decode(String.self, at: 2), try row.decode(String.self, at: 3))
                let renamed = (path(target, pseudonyms), Self.detail(detail, action: action, pseudonyms))
                if renamed != (target, detail) { changed.append((seq, renamed.0, renamed.1)) }
            }
        }
        guard !changed.isEmpty else { return Outcome(rowsRewritten: 0, count: before?.0 ?? 0, headBefore: before?.1, headAfter: before?.1) }
        try connection.execute("ALTER TABLE ledger.operator_actions DISABLE TRIGGER operator_actions_refuse_update_delete")
        try connection.query(
            """
            UPDATE ledger.operator_actions a SET target = c.target, detail = c.detail
            FROM unnest(\(Int64Array(changed.map(\.seq))), \(TextArray(changed.map(\.target))), \(TextArray(changed.map(\.detail))))
                AS c(seq, target, detail)
            WHERE a.seq = c.seq
            """)
        try connection.query(
            """
            WITH RECURSIVE chained AS (
                SELECT a.seq, decode(repeat('00', 32), 'hex') AS previous_hash,
                       ledger.operator_action_hash(decode(repeat('00', 32), 'hex'), a.seq, a.at, a.operator_id, a.actor, a.role,
                           a.channel, a.action, a.target, a.detail, a.source_address, a.request_id) AS hash
                FROM ledger.operator_actions a WHERE a.seq = 1
              UNION ALL
                SELECT a.seq, c.hash,
                       ledger.operator_action_hash(c.hash, a.seq, a.at, a.operator_id, a.actor, a.role, a.channel, a.action, a.target,
                           a.detail, a.source_address, a.request_id)
                FROM chained c JOIN ledger.operator_actions a ON a.seq = c.seq + 1
            )
            UPDATE ledger.operator_actions a SET previous_hash = c.previous_hash, hash = c.hash
            FROM chained c WHERE a.seq = c.seq AND (a.previous_hash, a.hash) IS DISTINCT FROM (c.previous_hash, c.hash)
            """)
        try connection.execute("ALTER TABLE ledger.operator_actions ENABLE TRIGGER operator_actions_refuse_update_delete")
        let after = try head()
        return Outcome(rowsRewritten: changed.count, count: after?.0 ?? 0, headBefore: before?.1, headAfter: after?.1)
    }

    /// A request path naming a user of `app` by id, with `user:<pseudonym>` in its place (as `recordedPath` writes).
    static func path(_ text: String, _ pseudonyms: [String: [String: String]]) -> String {
        var parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let apps = parts.firstIndex(of: "apps"), apps + 3 < parts.count, parts[apps + 2] == "users",
            let pseudonym = pseudonyms[parts[apps + 1]]?[parts[apps + 3]]
        else { return text }
        parts[apps + 3] = "user:" + pseudonym
        return parts.joined(separator: "/")
    }

    /// A console detail naming a user by id (`<entitlement> to <id> in <app> for N days`, `of <id> in <app>`), in the
    /// form it takes today.
    static func detail(_ text: String, action: String, _ pseudonyms: [String: [String: String]]) -> String {
        switch action {
        case "grant.give":
            guard let to = text.firstRange(of: " to "), let inApp = text.range(of: " in ", options: .backwards), to.upperBound <= inApp.lowerBound,
                let days = text.range(of: " for ", options: .backwards), inApp.upperBound <= days.lowerBound
            else { return text }
            let (id, app) = (String(text[to.upperBound..<inApp.lowerBound]), String(text[inApp.upperBound..<days.lowerBound]))
            guard let pseudonym = pseudonyms[app]?[id] else { return text }
            return text[..<to.upperBound] + "user:" + pseudonym + text[inApp.lowerBound...]
        case "grant.revoke", "purchase.consume":
            guard text.hasPrefix("of "), let inApp = text.range(of: " in ", options: .backwards),
                inApp.lowerBound > text.index(text.startIndex, offsetBy: 3)
            else { return text }
            let id = String(text[text.index(text.startIndex, offsetBy: 3)..<inApp.lowerBound])
            guard let pseudonym = pseudonyms[String(text[inApp.upperBound...])]?[id] else { return text }
            return "of user:" + pseudonym + text[inApp.lowerBound...]
        default:
            return path(text, pseudonyms)
        }
    }
}
