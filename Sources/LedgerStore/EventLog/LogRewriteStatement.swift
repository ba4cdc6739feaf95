import Crypto
import Foundation
import PostgresClient
import UTCTime

/// The signed statement a rewrite of the log leaves (`ledger migrate --seal-history`, schema/027): per app, the log as
/// it was (event count, stream-heads hash, and the newest signed digest it still matched) and the log as stored after
/// (the same count, the new stream-heads hash), both measured below `horizon`, the rewriting transaction's id. Every
/// event stored then lies below it and every later one above, so the "after" side can be recomputed from the rows
/// for as long as the log exists (`verify`). What it proves is written in docs/erasure.md, "Upgrading".
public struct LogRewriteStatement: Sendable, Equatable, Codable {
    public struct App: Sendable, Equatable, Codable {
        public var appID: String
        public var eventCount: Int64
        /// Hex SHA-256 over the streams' heads, as `ChainDigest` computes it, before and after.
        public var headsHashBefore: String
        public var headsHashAfter: String
        /// The newest signed digest of the log before, which it was checked against: when it was signed, and its
        /// heads hash (hex). Nil when the app had none.
        public var lastDigestAt: String?
        public var lastDigestHeadsHash: String?

        public init(
            appID: String, eventCount: Int64, headsHashBefore: String, headsHashAfter: String, lastDigestAt: String?,
            lastDigestHeadsHash: String?
        ) {
            (self.appID, self.eventCount, self.headsHashBefore, self.headsHashAfter) = (appID, eventCount, headsHashBefore, headsHashAfter)
            (self.lastDigestAt, self.lastDigestHeadsHash) = (lastDigestAt, lastDigestHeadsHash)
        }

        enum CodingKeys: String, CodingKey {
            case appID = "app_id"
            case eventCount = "event_count"
            case headsHashBefore = "heads_hash_before"
            case headsHashAfter = "heads_hash_after"
            case lastDigestAt = "last_digest_at"
            case lastDigestHeadsHash = "last_digest_heads_hash"
        }
    }

    /// The operator record, rewritten with the log where its rows named users by id: its length and head's hash.
    public struct OperatorRecord: Sendable, Equatable, Codable {
        public var rows: Int64
        public var rowsRewritten: Int
        public var headHashBefore: String
        public var headHashAfter: String

        public init(rows: Int64, rowsRewritten: Int, headHashBefore: String, headHashAfter: String) {
            (self.rows, self.rowsRewritten, self.headHashBefore, self.headHashAfter) = (rows, rowsRewritten, headHashBefore, headHashAfter)
        }

        enum CodingKeys: String, CodingKey {
            case rows
            case rowsRewritten = "rows_rewritten"
            case headHashBefore = "head_hash_before"
            case headHashAfter = "head_hash_after"
        }
    }

    /// What was rewritten and why, e.g. `pseudonyms and sealed personal fields (schema 025)`.
    public var reason: String
    public var horizon: UInt64
    public var rewrittenAt: String
    public var eventsRewritten: Int
    public var apps: [App]
    public var operatorRecord: OperatorRecord?

    enum CodingKeys: String, CodingKey {
        case reason, horizon, apps
        case operatorRecord = "operator_record"
        case rewrittenAt = "rewritten_at"
        case eventsRewritten = "events_rewritten"
    }

    public init(reason: String, horizon: UInt64, rewrittenAt: Instant, eventsRewritten: Int, apps: [App], operatorRecord: OperatorRecord?) {
        (self.reason, self.horizon, self.rewrittenAt) = (reason, horizon, rewrittenAt.rfc3339)
        (self.eventsRewritten, self.apps, self.operatorRecord) = (eventsRewritten, apps.sorted { $0.appID < $1.appID }, operatorRecord)
    }

    /// The bytes signed and stored: JSON with sorted keys.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)  // strings and integers always encode
    }

    /// Signs the statement and stores it, on the rewriting transaction's connection.
    public func record(key: Curve25519.Signing.PrivateKey, on connection: PostgresConnection) throws {
        let text = text
        let signature = Array(try key.signature(for: Array(text.utf8)))
        try connection.query(
            """
            INSERT INTO ledger.log_rewrites (statement, public_key, signature)
            VALUES (\(text), \(Array(key.publicKey.rawRepresentation)), \(signature))
            """)
    }

    /// Checks every stored statement: its signature (against `trustedKey` when given), and that each app's log below
    /// its horizon still has its count and "after" heads hash.
    public static func verify(on connection: PostgresConnection, trustedKey: Curve25519.Signing.PublicKey?) throws -> (
        checked: Int, problems: [String]
    ) {
        guard try connection.query("SELECT to_regclass('ledger.log_rewrites') IS NOT NULL").first?.decode(Bool.self, at: 0) == true else {
            return (0, [])
        }
        var problems: [String] = []
        let rows = try connection.query("SELECT rewrite_id, statement, public_key, signature FROM ledger.log_rewrites ORDER BY rewrite_id")
        for row in rows {
            let id = try row.decode(Int64.self, at: 0)
            let text = try row.decode(String.self, at: 1)
            let (publicKey, signature) = (try row.decode([UInt8].self, at: 2), try row.decode([UInt8].self, at: 3))
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey),
                key.isValidSignature(signature, for: Array(text.utf8))
            else {
                problems.append("log rewrite statement \(id): its signature does not verify; the statement was altered")
                continue
            }
            if let trustedKey, trustedKey.rawRepresentation != key.rawRepresentation {
                problems.append("log rewrite statement \(id) was signed by a key other than the trusted one")
                continue
            }
            guard let statement = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else {
                problems.append("log rewrite statement \(id) is not a statement this version reads")
                continue
            }
            for app in statement.apps {
                let now = try ChainDigest.measure(on: connection, app: app.appID, horizon: statement.horizon)
                if now.count != app.eventCount || Hex.string(now.headsHash) != app.headsHashAfter {
                    problems.append(
                        "app \(app.appID): the log below the rewrite of \(statement.rewrittenAt) no longer has the \(app.eventCount) events "
                            + "and stream heads its signed statement names: events were changed, removed or inserted since")
                }
            }
            if let record = statement.operatorRecord {
                let head = try connection.query("SELECT hash FROM ledger.operator_actions WHERE seq = \(record.rows)").first?.decode(
                    [UInt8].self, at: 0)
                if head.map(Hex.string) != record.headHashAfter {
                    problems.append(
                        "the operator record's row #\(record.rows) differs from the rewrite of \(statement.rewrittenAt): rows were changed or "
                            + "removed since")
                }
            }
        }
        return (rows.count, problems)
    }
}
