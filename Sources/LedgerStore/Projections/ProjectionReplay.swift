import Foundation
import LedgerDomain
import Logging
import PostgresClient
import Synchronization
import UTCTime
import Tracing

/// `ledger replay`: rebuild read models from the log by fold-and-COPY, compare the live ones with a rebuild, or
/// compute a state as of an instant.
///
/// A rebuild folds every event of the transactions below a cut (the oldest transaction still running when it
/// starts) into fresh tables in the schema `ledger_rebuild`, builds their indexes, then swaps them in within one
/// short transaction and sets the checkpoint to the cut; the live worker goes on from there. The service keeps
/// answering from the old tables meanwhile. A rebuild that dies leaves the live tables as they were; the next one
/// drops its leftovers and starts over.
public enum ProjectionReplay {
    /// One row of a read model that differs between the live table and a rebuild from the log.
    public struct Difference: Sendable, Equatable, CustomStringConvertible {
        /// The read model's table, e.g. `subscriptions`.
        public var table: String
        public var appID: String
        /// The row's key within the app (original transaction id; `|month` for paying users).
        public var key: String
        /// The whole row as JSON; nil: the row is missing on that side.
        public var live: String?
        public var rebuilt: String?

        public var description: String {
            "\(table) app=\(appID) key=\(key): live \(live ?? "(missing)") ≠ rebuilt \(rebuilt ?? "(missing)")"
        }
    }

    /// The query whose rows a rebuild folds: the whole log (every transaction below `cut`) in stream order. The
    /// benchmarks time PostgreSQL alone answering it.
    public static func logInStreamOrder(below cut: UInt64 = .max) -> String { FoldPass.logInStreamOrder(below: cut) }

    /// The settings a rebuild reads the log with (`FoldPass.readerSettings`), for a transaction of its own.
    public static let logReaderSettings = FoldPass.readerSettings

    static let rebuildSchema = "ledger_rebuild"
    static let checkSchema = "ledger_check"

    /// Rebuilds the named projections (all when nil) and swaps them in; returns how many events were folded.
    @discardableResult
    public static func rebuild(
        _ names: [String]? = nil, pool: PostgresPool,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> Int {
        let models = ProjectionCatalog.models(names)
        let configuration = ownerConfiguration(pool)
        return try await withSpan("ledger.rebuild") { span in
            span.attributes["ledger.projections"] = models.map { $0.name }.joined(separator: ",")
            let events = try await swapIn(models, configuration: configuration, progress: progress)
            span.attributes["ledger.rebuild.events"] = events
            return events
        }
    }

    private static func swapIn(
        _ models: [any ReadModel.Type], configuration: PostgresConfiguration, progress: @escaping @Sendable (Int) -> Void
    ) async throws -> Int {
        try await onOwnThread {
            let control = try PostgresConnection.connect(configuration)
            try lockRebuild(on: control)
            // Released here, not when the connection closes: a backend lets go of its locks some time after its client left.
            defer { _ = try? control.query("SELECT pg_advisory_unlock_all()") }
            var report = RebuildProgressReport(configuration: configuration, projections: models.map { $0.name })
            do {
                let (events, cut) = try build(
                    models, schema: rebuildSchema, cut: nil, foldStates: false, configuration: configuration, control: control,
                    progress: { done in
                        progress(done)
                        report.advance(done)
                    })
                try control.transaction { connection in
                    for model in models {
                        try ProjectionCheckpoints.lock(model.name, on: connection)
                        for table in model.tables {
                            try connection.execute(
                                """
                                LOCK TABLE \(table.qualified("ledger")) IN ACCESS EXCLUSIVE MODE;
                                DROP TABLE \(table.qualified("ledger"));
                                ALTER TABLE \(table.qualified(rebuildSchema)) SET SCHEMA ledger;
                                """)
                        }
                        try ProjectionCheckpoints.set(model.name, ProjectionCheckpoints.through(cut: cut), on: connection)
                    }
                    try grantService(models, on: connection)
                }
                try control.execute("DROP SCHEMA IF EXISTS \(rebuildSchema) CASCADE")
                report.finish(events)
                return events
            } catch {
                report.fail()
                throw error
            }
        }
    }

    /// Rebuilds, before the service starts, every read model that has no checkpoint while the log has events: a
    /// database upgraded from the JSON states, or a read model added by this version. Returns the names it built.
    ///
    /// Every instance of a deployment does this when it opens the database, and `ledger migrate` too, so several may
    /// find the same read models missing at once: one builds them, the others wait for its rebuild to end and then
    /// build only what is still missing (nothing, usually) rather than fail.
    @discardableResult
    public static func rebuildMissing(pool: PostgresPool, logger: Logger) async throws -> [String] {
        while true {
            let missing = try await pool.withConnection { connection -> [String] in
                guard try !connection.query("SELECT 1 FROM ledger.events LIMIT 1").isEmpty else { return [] }
                return try ProjectionCatalog.names.filter { try !ProjectionCheckpoints.exists($0, on: connection) }
            }
            guard !missing.isEmpty else { return [] }
            logger.info("building read models from the log", metadata: ["projections": "\(missing.joined(separator: ", "))"])
            do {
                let events = try await rebuild(missing, pool: pool)
                logger.info("built read models from the log", metadata: ["events": "\(events)"])
                return missing
            } catch let error as PostgresError where error.sqlState == rebuildRunning {
                logger.info("another process is rebuilding read models; waiting for it")
                try await waitForRebuild(pool: pool)
            }
        }
    }

    /// The SQL state of `lockRebuild`'s refusal.
    static let rebuildRunning = "55P03"

    /// Returns once no rebuild or check holds the rebuild lock (taking it, then letting it go).
    private static func waitForRebuild(pool: PostgresPool) async throws {
        let configuration = ownerConfiguration(pool)
        try await onOwnThread {
            let connection = try PostgresConnection.connect(configuration)
            try connection.query("SELECT pg_advisory_lock(hashtext('ledger.rebuild'))")
            try connection.query("SELECT pg_advisory_unlock(hashtext('ledger.rebuild'))")
        }
    }

    /// Rebuilds the named projections into scratch tables and lists every row that differs from the live tables,
    /// compared in SQL. Meanwhile the live workers of those projections pause (their lock is held), after the
    /// live tables were brought to exactly the rebuild's cut, so both sides hold the same events.
    public static func check(
        _ names: [String]? = nil, pool: PostgresPool,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> [Difference] {
        let models = ProjectionCatalog.models(names)
        let configuration = ownerConfiguration(pool)
        return try await onOwnThread {
            let control = try PostgresConnection.connect(configuration)
            try lockRebuild(on: control)
            // Released here, not when the connection closes: a backend lets go of its locks some time after its client left.
            defer { _ = try? control.query("SELECT pg_advisory_unlock_all()") }
            for model in models {
                try control.query("SELECT pg_advisory_lock(hashtext(\(ProjectionCheckpoints.lockKey(model.name))))")
            }
            let cut = try CommitHorizon.read(on: control)
            for runner in ProjectionCatalog.runners(models.map { $0.name }) {
                while try runner.runBatch(on: control, before: cut) > 0 {}
            }
            _ = try build(models, schema: checkSchema, cut: cut, foldStates: true, configuration: configuration, control: control, progress: progress)
            defer { _ = try? control.execute("DROP SCHEMA IF EXISTS \(checkSchema) CASCADE") }
            return try models.flatMap { $0.tables }.flatMap { try differences(in: $0, on: control) }
        }
    }

    /// One rebuild or check at a time per database.
    private static func lockRebuild(on connection: PostgresConnection) throws {
        guard try connection.query("SELECT pg_try_advisory_lock(hashtext('ledger.rebuild'))").first?.decode(Bool.self, at: 0) == true else {
            throw PostgresError.server(ServerError(sqlState: rebuildRunning, message: "another rebuild or check is running; wait for it and retry"))
        }
    }

    /// Fresh tables in `schema`, filled by a fold pass over the events below `cut` (the oldest running transaction
    /// when nil), indexed and analyzed. Returns the events folded and the cut.
    private static func build(
        _ models: [any ReadModel.Type], schema: String, cut requested: UInt64?, foldStates: Bool,
        configuration: PostgresConfiguration,
        control: PostgresConnection, progress: (Int) -> Void
    ) throws -> (events: Int, cut: UInt64) {
        let tables = models.flatMap { $0.tables }
        try control.execute(
            """
            SET client_min_messages = warning;
            DROP SCHEMA IF EXISTS \(schema) CASCADE;
            CREATE SCHEMA \(schema);
            """ + tables.map { "CREATE TABLE \($0.qualified(schema)) (LIKE \($0.qualified("ledger")) INCLUDING DEFAULTS);" }.joined())
        let reader = try PostgresConnection.connect(configuration)
        let writers = try tables.map { _ in try PostgresConnection.connect(configuration) }
        // One snapshot for the cut and the read: every transaction below the cut has ended before it was taken.
        try reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; " + FoldPass.readerSettings)
        let cut = try requested ?? CommitHorizon.read(on: reader)
        let pass = FoldPass(models: models, schema: schema, cut: cut, foldStates: foldStates)
        let (events, strays) = try pass.run(reader: reader, writers: writers, progress: progress)
        try reader.execute("COMMIT")
        // Each table is indexed on its own writer, side by side, rather than one after another with PostgreSQL's
        // parallel workers (on 2 cores both take as long; with more cores side by side wins).
        try eachInParallel(Array(zip(tables, writers))) { table, writer in
            try writer.execute("SET max_parallel_maintenance_workers = 0")
            try index(table, schema: schema, on: writer)
        }
        try StrayFolds.finish(strays, cut: cut, schema: schema, on: control)
        try eachInParallel(Array(zip(tables, writers))) { table, writer in try writer.execute("ANALYZE \(table.qualified(schema))") }
        return (events, cut)
    }

    /// Runs `body` for every item at once, a thread each, and throws the first error once all have ended.
    private static func eachInParallel<Item: Sendable>(_ items: [Item], _ body: @escaping @Sendable (Item) throws -> Void) throws {
        let errors = Mutex<[any Error]>([])
        let finished = DispatchGroup()
        for item in items {
            finished.enter()
            Thread {
                do { try body(item) } catch { errors.withLock { $0.append(error) } }
                finished.leave()
            }.start()
        }
        finished.wait()
        if let error = errors.withLock({ $0.first }) { throw error }
    }

    /// The live table's primary key and indexes, built on the rebuilt table once it is full (faster than keeping
    /// them current row by row).
    private static func index(_ table: ReadModelTable, schema: String, on connection: PostgresConnection) throws {
        let primaryKey =
            try connection.query(
                """
                SELECT conname FROM pg_constraint WHERE conrelid = \(table.qualified("ledger"))::regclass AND contype = 'p'
                """
            ).first?.decode(String.self, at: 0) ?? "\(table.name)_pkey"
        try connection.execute(
            """
            ALTER TABLE \(table.qualified(schema)) ADD CONSTRAINT \(primaryKey) PRIMARY KEY (\(table.key.joined(separator: ", ")))
            """)
        let definitions = try connection.query(
            """
            SELECT indexdef FROM pg_indexes WHERE schemaname = 'ledger' AND tablename = \(table.name) AND indexname <> \(primaryKey)
            """
        ).map { try $0.decode(String.self, at: 0) }
        for definition in definitions {
            try connection.execute(
                definition.replacingOccurrences(
                    of: " ON \(table.qualified("ledger")) ",
                    with: " ON \(table.qualified(schema)) "))
        }
    }

    private static func differences(in table: ReadModelTable, on connection: PostgresConnection) throws -> [Difference] {
        let join = table.key.map { "l.\($0) = r.\($0)" }.joined(separator: " AND ")
        let key = table.key.filter { $0 != "app_id" }.map { "coalesce(l.\($0), r.\($0))" }.joined(separator: " || '|' || ")
        let differs =
            table.hasFoldState
            ? "l.doc - 'fold_state' IS DISTINCT FROM r.doc - 'fold_state' "
                + "OR (l.doc->'fold_state' <> 'null' AND l.doc->'fold_state' IS DISTINCT FROM r.doc->'fold_state')"
            : "l.doc IS DISTINCT FROM r.doc"
        // Each row's document is made beside its table (on Citus, on the worker for the live table): a whole-row
        // reference across a join of a distributed and a local table would be read back with only the joined columns.
        let columns = table.key.joined(separator: ", ")
        let query = PostgresQuery(
            unsafeSQL: """
                SELECT coalesce(l.app_id, r.app_id), \(key), l.doc::text, r.doc::text
                FROM (SELECT \(columns), to_jsonb(t) AS doc FROM \(table.qualified("ledger")) t) l
                FULL JOIN (SELECT \(columns), to_jsonb(t) AS doc FROM \(table.qualified(checkSchema)) t) r ON \(join)
                WHERE \(differs)
                ORDER BY 1, 2
                """)
        return try connection.query(query).map { row in
            Difference(
                table: table.name, appID: try row.decode(String.self, at: 0), key: try row.decode(String.self, at: 1),
                live: try row.decode(String?.self, at: 2), rebuilt: try row.decode(String?.self, at: 3))
        }
    }

    /// The service role's grants on swapped-in tables (as `schema/007_read_models.sql` gives them).
    private static func grantService(_ models: [any ReadModel.Type], on connection: PostgresConnection) throws {
        let names = models.flatMap { $0.tables }.map { $0.qualified("ledger") }.joined(separator: ", ")
        try connection.execute(
            """
            DO $$
            BEGIN
                IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
                    GRANT SELECT, INSERT, UPDATE, DELETE ON \(names) TO ledger_service;
                END IF;
            END
            $$;
            """)
    }

    /// The pool's configuration without its role switch: a rebuild creates, drops and renames tables, which only
    /// their owner (the user that ran the migrations) may.
    private static func ownerConfiguration(_ pool: PostgresPool) -> PostgresConfiguration {
        var configuration = pool.configuration
        configuration.setupStatements = []
        return configuration
    }

    /// A rebuild blocks for as long as the log takes to fold: on a thread of its own, never an event loop or one of
    /// the pool's threads that requests need.
    /// Runs `body` on a thread of its own, inside the caller's trace (its statements' spans join it).
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let context = InstrumentationContext.current
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try InstrumentationContext.withValue(context) { try body() } }) }.start()
        }
    }

    /// The domain events of one app, in log order, recorded at or before `asOf` (all when nil).
    public static func events(app appID: String, asOf: Instant?, on connection: PostgresConnection) throws -> [DomainEvent] {
        var events: [DomainEvent] = []
        var after: Int64 = 0
        while true {
            let page = try EventStore.readByPosition(on: connection, app: appID, after: after, limit: 5_000)
            guard let last = page.last else { return events }
            events += page.compactMap(DomainEventDecoding.decode).filter { asOf == nil || $0.recordedAt <= asOf! }
            after = last.position
        }
    }
}
