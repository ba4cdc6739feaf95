import Crypto
import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// One thing wrong with the operator record, located by `seq`.
package struct OperatorRecordProblem: Sendable, Equatable, CustomStringConvertible {
    package var seq: Int64
    package var message: String
    package var description: String { seq > 0 ? "operator record #\(seq): \(message)" : "operator record: \(message)" }
}

/// Checks the operator record as `LogVerifier` and `ChainDigester` check the event log: every row's hash recomputed
/// from its stored fields (`OperatorActionHash`), linked to the row before, seq without gaps; and the newest signed
/// digest's length and head still there. Trusts no database function, so rows edited with triggers disabled show.
package struct OperatorActionVerifier: Sendable {
    package var pageSize = 5_000
    package var maximumProblems = 100

    package init() {}

    /// The chain; returns the rows checked and the problems.
    package func verify(on connection: PostgresConnection) throws -> (checked: Int, problems: [OperatorRecordProblem]) {
        var problems: [OperatorRecordProblem] = []
        var previous: (seq: Int64, hash: [UInt8]) = (0, OperatorActionHash.genesis)
        var checked = 0
        while problems.count < maximumProblems {
            let page = try OperatorActionLog.page(after: previous.seq, limit: pageSize, on: connection)
            guard !page.isEmpty else { break }
            for row in page {
                if row.seq != previous.seq + 1 {
                    problems.append(.init(seq: row.seq, message: "rows #\(previous.seq + 1)…#\(row.seq - 1) are missing: they were removed"))
                }
                if row.previousHash != previous.hash {
                    problems.append(.init(seq: row.seq, message: "does not link to the row before it: that row was replaced, or this one forged"))
                }
                if OperatorActionHash.compute(previousHash: row.previousHash, row) != row.hash {
                    problems.append(.init(seq: row.seq, message: "its content no longer matches its hash: it was altered"))
                }
                previous = (row.seq, row.hash)
            }
            checked += page.count
        }
        return (checked, problems)
    }

    /// Signs a digest of the record's length and head with the digest key; nil when the record is empty.
    @discardableResult
    package func digest(on connection: PostgresConnection, key: Curve25519.Signing.PrivateKey, clock: LedgerClock = .system) throws
        -> OperatorRecordDigest?
    {
        guard
            let head = try connection.query("SELECT seq, hash FROM ledger.operator_actions ORDER BY seq DESC LIMIT 1").first
        else { return nil }
        var digest = OperatorRecordDigest(
            count: try head.decode(Int64.self, at: 0), headHash: try head.decode([UInt8].self, at: 1), createdAt: clock.now(),
            publicKey: Array(key.publicKey.rawRepresentation), signature: [])
        digest.signature = Array(try key.signature(for: digest.signedMessage))
        try connection.query(
            """
            INSERT INTO ledger.operator_action_digests (action_count, head_hash, created_at, public_key, signature)
            VALUES (\(digest.count), \(digest.headHash), \(digest.createdAt), \(digest.publicKey), \(digest.signature))
            """)
        return digest
    }

    /// Checks the newest digest: its signature (against `trustedKey` when given) and that its row is still the
    /// record's row at that place, with the same hash.
    package func verifyDigest(on connection: PostgresConnection, trustedKey: Curve25519.Signing.PublicKey?) throws -> [OperatorRecordProblem] {
        guard
            let row = try connection.query(
                """
                SELECT action_count, head_hash, created_at, public_key, signature FROM ledger.operator_action_digests
                ORDER BY digest_id DESC LIMIT 1
                """
            ).first
        else { return [] }
        let digest = OperatorRecordDigest(
            count: try row.decode(at: 0), headHash: try row.decode(at: 1), createdAt: try row.decode(at: 2),
            publicKey: try row.decode(at: 3), signature: try row.decode(at: 4))
        func problem(_ text: String) -> [OperatorRecordProblem] { [OperatorRecordProblem(seq: 0, message: text)] }
        guard let stored = try? Curve25519.Signing.PublicKey(rawRepresentation: digest.publicKey),
            stored.isValidSignature(digest.signature, for: digest.signedMessage)
        else { return problem("the signature of its digest of \(digest.createdAt) does not verify; the digest was altered") }
        if let trustedKey, trustedKey.rawRepresentation != stored.rawRepresentation {
            return problem("its digest of \(digest.createdAt) was signed by a key other than the trusted one; it was replaced")
        }
        let present = try connection.query("SELECT hash FROM ledger.operator_actions WHERE seq = \(digest.count)").first
        guard let present else {
            return problem("the signed digest of \(digest.createdAt) counted \(digest.count) rows; row #\(digest.count) is gone: rows were removed")
        }
        if try present.decode([UInt8].self, at: 0) != digest.headHash {
            return problem("row #\(digest.count) differs from the signed digest of \(digest.createdAt): it was replaced")
        }
        return []
    }
}

/// A signed statement of the operator record's length and head (`ledger.operator_action_digests`).
package struct OperatorRecordDigest: Sendable, Equatable {
    package var count: Int64
    package var headHash: [UInt8]
    package var createdAt: Instant
    package var publicKey: [UInt8]
    package var signature: [UInt8]

    /// A label, then each field, as the log's digests are signed.
    var signedMessage: [UInt8] {
        Array("subscription-ledger operator record digest v1".utf8) + BigEndian.bytes(of: count) + headHash
            + BigEndian.bytes(of: createdAt.microsecondsSinceEpoch)
    }
}
