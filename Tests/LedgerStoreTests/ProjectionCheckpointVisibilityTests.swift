import LedgerDomain
import LedgerStore
import LedgerStoreTestSupport
import PostgresClient
import Testing

/// A checkpoint is read only once its batch's rows are visible everywhere (schema/036): on Citus the coordinator
/// commits the checkpoint before the workers' COMMIT PREPARED of the read models' rows, and the checkpoint's writer
/// holds a lock named after its transaction until those have run, which readers wait for.
@Suite struct ProjectionCheckpointVisibilityTests {
    static func checkpoints(_ rows: PostgresRows) throws -> [String: LogCheckpoint] {
        Dictionary(
            uniqueKeysWithValues: try rows.map {
                (
                    try $0.decode(String.self, at: 0),
                    LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 1), position: try $0.decode(Int64.self, at: 2))
                )
            })
    }

    /// The lock that stands for the writer's transaction `written` until it has ended everywhere.
    static func isFree(_ written: UInt64, on connection: PostgresConnection) throws -> Bool {
        let free = try connection.query(
            "SELECT pg_try_advisory_xact_lock_shared(36, ledger.projection_checkpoint_lock(\(TransactionIDValue(value: written))))"
        ).first?.decode(Bool.self, at: 0)
        return free == true
    }

    @Test func theWriterHoldsItsLockUntilItEndsAndAReaderDoesNotWaitForAWriterItCannotSee() async throws {
        let fixture = try await StoreFixture.make()
        let configuration = PostgresConfiguration(connectionString: fixture.connectionString)
        let writer = try PostgresConnection.connect(configuration)
        let other = try PostgresConnection.connect(configuration)
        // A reader that waited here would fail the test rather than hang it.
        try other.execute("SET statement_timeout = '20s'")
        let first = LogCheckpoint(transactionID: 10, position: 1)
        try writer.transaction { try ProjectionCheckpoints.set("probe", first, on: $0) }

        try writer.execute("BEGIN")
        try ProjectionCheckpoints.set("probe", LogCheckpoint(transactionID: 20, position: 2), on: writer)
        let written = try #require(try writer.query("SELECT pg_current_xact_id()").first?.decode(UInt64.self, at: 0))
        #expect(try !Self.isFree(written, on: other), "the writer holds the lock named after its transaction")
        // The reader sees the committed checkpoint, whose writer has ended: it answers without waiting.
        #expect(try Self.checkpoints(other.query(ProjectionCheckpoints.visible(["probe"]))) == ["probe": first])
        try writer.execute("COMMIT")
        #expect(try Self.isFree(written, on: other))
        #expect(
            try Self.checkpoints(other.query(ProjectionCheckpoints.visible(nil)))["probe"] == LogCheckpoint(transactionID: 20, position: 2))
        #expect(
            try other.query("SELECT written_by FROM ledger.projection_checkpoints WHERE projection = 'probe'").first?.decode(UInt64.self, at: 0)
                == written)
        await fixture.close()
    }

    /// The window Citus leaves (the coordinator committed, the workers not yet) made to last: the writer's lock is
    /// held by another session after the writer committed. The reader waits in it, and answers once it is released.
    @Test func aReaderWaitsWhileTheCheckpointsWriterHasNotEndedEverywhere() async throws {
        let fixture = try await StoreFixture.make()
        let configuration = PostgresConfiguration(connectionString: fixture.connectionString)
        let writer = try PostgresConnection.connect(configuration)
        let window = try PostgresConnection.connect(configuration)
        let written = try writer.transaction { connection in
            try ProjectionCheckpoints.set("probe", LogCheckpoint(transactionID: 30, position: 3), on: connection)
            return try #require(try connection.query("SELECT pg_current_xact_id()").first?.decode(UInt64.self, at: 0))
        }
        try window.query("SELECT pg_advisory_lock(36, ledger.projection_checkpoint_lock(\(TransactionIDValue(value: written))))")

        let reader = Task { try await fixture.store.pool.query(prepared: ProjectionCheckpoints.visible(["probe"])) }
        // Until the reader's backend waits for that lock (it cannot have answered: the lock is held).
        let deadline = ContinuousClock.now + .seconds(30)
        while try window.query(
            """
            SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 36 AND NOT granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        ).first?.decode(Int64.self, at: 0) != 1 {
            #expect(ContinuousClock.now < deadline, "the reader never waited for the writer's lock")
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        try window.query("SELECT pg_advisory_unlock(36, ledger.projection_checkpoint_lock(\(TransactionIDValue(value: written))))")
        #expect(try Self.checkpoints(await reader.value) == ["probe": LogCheckpoint(transactionID: 30, position: 3)])
        await fixture.close()
    }

    /// On Citus, the window itself: a writer commits a row on a worker and the checkpoint that promises it, in one
    /// transaction (two phases); a reader of the checkpoint then reads the row. Without schema/036's wait the reader
    /// found an older row within a few hundred reads on the rehearsal's cluster.
    @Test(.enabled(if: CitusTestCluster.isActive, "the window exists only where a transaction commits in two phases"))
    func onCitusAReaderOfACheckpointSeesTheRowsOfItsBatch() async throws {
        let fixture = try await StoreFixture.make()
        try await fixture.superuser.query(
            "CREATE TABLE public.checkpoint_probe (app_id text PRIMARY KEY, n bigint NOT NULL)")
        try await fixture.superuser.query("SELECT create_distributed_table('public.checkpoint_probe', 'app_id')")
        try await fixture.superuser.query("INSERT INTO public.checkpoint_probe VALUES ('probe-app', 0)")
        try await fixture.superuser.query("GRANT SELECT, UPDATE ON public.checkpoint_probe TO ledger_service")
        let writes = 400
        let writer = Task {
            try await fixture.store.pool.withConnection { connection in
                for n in 1...writes {
                    try connection.transaction { connection in
                        try connection.query("UPDATE public.checkpoint_probe SET n = \(Int64(n)) WHERE app_id = 'probe-app'")
                        try ProjectionCheckpoints.set("probe", LogCheckpoint(transactionID: 1, position: Int64(n)), on: connection)
                    }
                }
            }
        }
        let behind = try await fixture.superuser.withConnection { connection in
            var behind: [String] = []
            var last: Int64 = 0
            let deadline = ContinuousClock.now + .seconds(120)
            while last < Int64(writes), ContinuousClock.now < deadline {
                guard let promised = try Self.checkpoints(connection.query(ProjectionCheckpoints.visible(["probe"])))["probe"]?.position
                else { continue }
                let row =
                    try connection.query("SELECT n FROM public.checkpoint_probe WHERE app_id = 'probe-app'").first?.decode(Int64.self, at: 0) ?? 0
                if row < promised { behind.append("checkpoint \(promised), row \(row)") }
                last = promised
            }
            return behind
        }
        try await writer.value
        #expect(behind.isEmpty, "a reader saw a checkpoint before its batch's row: \(behind.prefix(3))")
        await fixture.close()
    }
}
