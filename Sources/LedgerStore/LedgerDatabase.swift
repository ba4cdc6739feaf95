import Logging
import PostgresClient

/// Opens the ledger's database: applies pending migrations as the connecting user, then hands out a pool whose
/// connections work as `ledger_service` (may read and append events, never change them) when that role exists.
public enum LedgerDatabase {
    public static let serviceRole = "ledger_service"

    /// Migrates, builds the read models that have never been built (after an upgrade) from the log, then returns the
    /// service's pool.
    /// `buildingReadModels: false` leaves unbuilt read models to the caller (`ledger replay`, which rebuilds anyway).
    public static func open(
        connectionString: String, poolSize: Int = 4, migrations: [Migration], buildingReadModels: Bool = true,
        logger: Logger = Logger(label: "ledger.database")
    ) async throws -> PostgresPool {
        let base = PostgresConfiguration(connectionString: connectionString)
        let admin = PostgresPool(configuration: base, size: 1, logger: logger)
        let canUseRole: Bool
        let distributed: Bool
        do {
            (canUseRole, distributed) = try await admin.withConnection { connection in
                try SchemaMigrator(migrations: migrations, logger: logger).migrate(on: connection)
                let row = try connection.query(
                    """
                    SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = \(serviceRole))
                           AND pg_has_role(current_user, \(serviceRole), 'MEMBER'),
                           EXISTS (SELECT FROM pg_extension WHERE extname = 'citus')
                    """
                ).first
                return (try row?.decode(Bool.self, at: 0) ?? false, try row?.decode(Bool.self, at: 1) ?? false)
            }
            await admin.shutdown()
        } catch {
            await admin.shutdown()
            throw error
        }
        var configuration = base
        // Prepared statements keep one generic plan. With custom plans PostgreSQL planned some of them again on
        // every execution (an upsert from unnest($1) is estimated dearer in general than for the few rows of each
        // call, so the generic plan never won): an eighth of the database's time under notification ingest, where
        // the rate rose from 1,480/s to 1,701/s without it (Benchmarks/README.md). Every statement of the service
        // looks rows up by tenant-first keys, which a generic plan serves as well.
        // On Citus (Deploy/SCALE-OUT.md) the planner is left to choose: Citus cannot plan a generic plan of a statement
        // that is not routed by a parameter alone (a CTE over a reference table, a UNION) and refuses it.
        if !distributed { configuration.setupStatements = ["SET plan_cache_mode = force_generic_plan"] }
        if canUseRole {
            configuration.setupStatements.append("SET ROLE \(serviceRole)")
        } else {
            logger.warning(
                """
                the role \(serviceRole) is not available; working as the connecting user\
                 (the events table is still protected by triggers)
                """)
        }
        let pool = PostgresPool(configuration: configuration, size: poolSize, logger: logger)
        do {
            if buildingReadModels { try await ProjectionReplay.rebuildMissing(pool: pool, logger: logger) }
        } catch {
            await pool.shutdown()
            throw error
        }
        return pool
    }

    /// A pool on a streaming replica of `service`'s database (`LEDGER_READ_DATABASE_URL`), its connections set up as
    /// the service's are. Nothing is migrated or built there: a replica follows its primary.
    public static func replica(
        connectionString: String, like service: PostgresPool, poolSize: Int = 4,
        logger: Logger = Logger(label: "ledger.database")
    ) -> PostgresPool {
        var configuration = PostgresConfiguration(connectionString: connectionString)
        configuration.setupStatements = service.configuration.setupStatements
        return PostgresPool(configuration: configuration, size: poolSize, logger: logger)
    }
}
