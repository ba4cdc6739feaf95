import Crypto
import LedgerDomain
import Logging
import LedgerOperators
import LedgerPrivacy
import LedgerStore
import PostgresClient
import UTCTime

/// `ledger migrate --seal-history` (docs/erasure.md, "Upgrading"): rewrites a log written before pseudonyms into
/// pseudonyms and sealed fields (`HistorySealing`) in one transaction, binds the log as it was to the log as stored by
/// a statement signed with the digest key (`LogRewriteStatement`), renames the users in the operator record
/// (`OperatorRecordRenaming`), signs fresh digests of both, and rebuilds the read models.
///
/// It refuses while any other session is connected to the database: a running `ledger serve` would keep appending to
/// users' streams under the names the rewrite retires. It refuses a log that does not verify (chain and newest
/// digests): the statement would vouch for altered events. A crash before the commit leaves the log as it was; after
/// it, the read models are rebuilt by this command or, if it died, by the next process that opens the database.
enum SealHistory {
    static let reason = "pseudonyms and sealed personal fields (schema 025)"

    struct Summary {
        var outcome: HistorySealing.Outcome
        var operatorRowsRewritten: Int
        var apps: Int
    }

    static func run(url: String, box: SecretBox, key: Curve25519.Signing.PrivateKey, logger: Logger) async throws -> Summary {
        let connection = try PostgresConnectionFactory.connect(url)
        // A session this process just closed can linger for a moment as its backend exits: wait a few seconds for
        // sessions to leave before refusing.
        let deadline = ContinuousClock.now + .seconds(5)
        while let others = try otherSessions(on: connection) {
            guard ContinuousClock.now < deadline else {
                throw CommandFailure(
                    "\(others.count) other session(s) are connected to this database (\(others.names)): stop every `ledger serve` and "
                        + "other client first (see pg_stat_activity); the rewrite renames users' streams under them")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        try HistorySealing.adoptLegacyUsers(box: box, on: connection)
        let summary = try connection.transaction { connection -> Summary in
            try connection.execute("LOCK TABLE ledger.events IN ACCESS EXCLUSIVE MODE")
            let chain = try LogVerifier().verify(on: connection)
            let digests = try ChainDigester().verify(on: connection, trustedKey: nil)
            let record = OperatorActionVerifier()
            let operators = try record.verify(on: connection).problems + record.verifyDigest(on: connection, trustedKey: nil)
            guard chain.isIntact, digests.isEmpty, operators.isEmpty else {
                let problems = chain.problems.map(\.description) + digests.map(\.description) + operators.map { "operator record: \($0)" }
                throw CommandFailure(
                    "the log does not verify, and a rewrite would vouch for it: \(problems.prefix(3).joined(separator: "; ")) "
                        + "(run `ledger verify` for every problem)")
            }
            let horizon = try connection.query("SELECT pg_current_xact_id()").first?.decode(UInt64.self, at: 0) ?? 0
            let apps = try connection.query("SELECT DISTINCT app_id FROM ledger.events ORDER BY 1").map { try $0.decode(String.self, at: 0) }
            var lastDigests: [String: (at: Instant, heads: [UInt8])] = [:]
            for row in try connection.query(
                "SELECT DISTINCT ON (app_id) app_id, created_at, heads_hash FROM ledger.chain_digests ORDER BY app_id, digest_id DESC")
            {
                lastDigests[try row.decode(String.self, at: 0)] = (try row.decode(Instant.self, at: 1), try row.decode([UInt8].self, at: 2))
            }
            let before = try apps.map { try ChainDigest.measure(on: connection, app: $0, horizon: horizon) }
            let outcome = try HistorySealing.rewrite(box: box, on: connection)
            let operatorRecord = try OperatorRecordRenaming.rename(outcome.pseudonyms, on: connection)
            guard outcome.eventsRewritten > 0 || operatorRecord.rowsRewritten > 0 else {
                return Summary(outcome: outcome, operatorRowsRewritten: 0, apps: 0)
            }
            let statement = LogRewriteStatement(
                reason: reason, horizon: horizon, rewrittenAt: LedgerClock.system.now(), eventsRewritten: outcome.eventsRewritten,
                apps: try zip(apps, before).map { app, before in
                    let after = try ChainDigest.measure(on: connection, app: app, horizon: horizon)
                    return LogRewriteStatement.App(
                        appID: app, eventCount: after.count, headsHashBefore: Hex.string(before.headsHash),
                        headsHashAfter: Hex.string(after.headsHash), lastDigestAt: lastDigests[app]?.at.rfc3339,
                        lastDigestHeadsHash: lastDigests[app].map { Hex.string($0.heads) })
                },
                operatorRecord: operatorRecord.rowsRewritten == 0
                    ? nil
                    : LogRewriteStatement.OperatorRecord(
                        rows: operatorRecord.count, rowsRewritten: operatorRecord.rowsRewritten,
                        headHashBefore: Hex.string(operatorRecord.headBefore ?? []), headHashAfter: Hex.string(operatorRecord.headAfter ?? [])))
            try statement.record(key: key, on: connection)
            try ChainDigester().digest(on: connection, key: key)
            if operatorRecord.rowsRewritten > 0 { try record.digest(on: connection, key: key) }
            // The read models name users by the retired ids: every one is rebuilt from the rewritten log (below, or by
            // the next process to open the database if this one dies first).
            try connection.execute("DELETE FROM ledger.projection_checkpoints")
            return Summary(outcome: outcome, operatorRowsRewritten: operatorRecord.rowsRewritten, apps: apps.count)
        }
        guard summary.outcome.eventsRewritten > 0 || summary.operatorRowsRewritten > 0 else { return summary }
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: url), size: 1, logger: logger)
        do {
            try await ProjectionReplay.rebuildMissing(pool: pool, logger: logger)
            await pool.shutdown()
        } catch {
            await pool.shutdown()
            throw error
        }
        return summary
    }

    /// The other client sessions of this database, if any.
    static func otherSessions(on connection: PostgresConnection) throws -> (count: Int64, names: String)? {
        guard
            let row = try connection.query(
                """
                SELECT count(*)::bigint, coalesce(string_agg(DISTINCT coalesce(nullif(application_name, ''), 'unnamed'), ', '), '')
                FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
                """
            ).first, try row.decode(Int64.self, at: 0) > 0
        else { return nil }
        return (try row.decode(Int64.self, at: 0), try row.decode(String.self, at: 1))
    }
}
