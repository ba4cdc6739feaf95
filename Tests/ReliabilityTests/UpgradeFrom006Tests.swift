import EmbeddedPostgres
import Foundation
import HTTPTypes
import LedgerDomain
import LedgerServerTestSupport
import LedgerStore
import PostgresClient
import PostgresTestSupport
import Testing
import UTCTime

/// The upgrade from the JSON projection states (schema version 6) to the typed read models (version 7), on a
/// populated database that a version-6 `ledger` wrote through its API (`Tests/Fixtures/upgrade-006/`, made by
/// `UpgradeFixtureGenerator`): `ledger migrate` builds the new tables from the log and drops `projection_state`, no
/// event is touched, `ledger verify` and `ledger replay --check` stay green, and every API answer the old version gave
/// is the answer the new one gives.
@Suite struct UpgradeFrom006Tests {
    @Test func migrateBuildsTheReadModelsFromTheLogAndEveryAnswerStaysTheSame() async throws {
        let fixture = try UpgradeFixture.load()
        let url = try await TestDatabase.makeDatabase(prefix: "upgrade006", on: .faults)
        try UpgradeFixture.restore(into: url)
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: url))
        func value<T: PostgresDecodable>(_ sql: String, _ type: T.Type) throws -> T? {
            try connection.query(PostgresQuery(unsafeSQL: sql)).first?.decode(T.self, at: 0)
        }

        // Before: schema version 6 with the JSON states, as the old version left it.
        #expect(try value("SELECT max(version) FROM ledger.schema_migrations", Int64.self) == 6)
        #expect(try value("SELECT to_regclass('ledger.projection_state') IS NOT NULL", Bool.self) == true)
        let oldStates = try UpgradeFixture.states(
            on: connection,
            sql: """
                SELECT projection || '|' || app_id || '|' || key, state::text FROM ledger.projection_state
                WHERE projection IN ('subscription_status', 'purchases')
                """)
        #expect(oldStates.count >= 10, "\(oldStates.count) JSON states")
        let events = try UpgradeFixture.events(on: connection)
        #expect(events.count >= 30)
        try UpgradeFixture.advanceTransactionIDs(on: connection)
        try await TestDatabase.waitForHorizon(url)

        let migrate = try await LedgerBinary.run(["migrate"], databaseURL: url)
        #expect(migrate.status == 0, "\(migrate.output)")
        let latest = try SchemaLocation.migrations().map(\.version).max() ?? 0
        let applied = (7...latest).map(String.init).joined(separator: ", ")
        #expect(migrate.output.contains("applied \(latest - 6) migration(s): \(applied)"), "\(migrate.output)")

        // After: the latest version, the JSON states gone, every event as it was (payloads, hashes, chain).
        #expect(try value("SELECT max(version) FROM ledger.schema_migrations", Int64.self) == Int64(latest))
        #expect(try value("SELECT to_regclass('ledger.projection_state') IS NULL", Bool.self) == true)
        #expect(try UpgradeFixture.events(on: connection) == events)

        // `ledger migrate` itself built the read models from the log: every projection has its checkpoint past the
        // newest event, and each state equals the JSON state the old version kept for the same key (a row the rebuild
        // wrote without its fold state: folded from its stream, as reads do).
        let built = try connection.query(
            """
            SELECT projection FROM ledger.projection_checkpoints
            WHERE (transaction_id, position) >= (SELECT transaction_id, position FROM ledger.events
                                                 ORDER BY transaction_id DESC, position DESC LIMIT 1)
            ORDER BY 1
            """
        ).map { try $0.decode(String.self, at: 0) }
        #expect(built == ["grants", "paying_users", "purchases", "subscription_status"], "\(migrate.output)")
        let subscriptions = try UpgradeFixture.states(SubscriptionsReadModel.self, on: connection)
        let purchases = try UpgradeFixture.states(PurchasesReadModel.self, on: connection)
        #expect(Set(subscriptions.keys.map { "subscription_status|" + $0 } + purchases.keys.map { "purchases|" + $0 }) == Set(oldStates.keys))
        for (key, old) in oldStates.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "|", maxSplits: 1).map(String.init)
            if parts[0] == "subscription_status" {
                #expect(try subscriptions[parts[1]] == StateCodec.decode(SubscriptionStatus.self, from: old), "\(key)")
            } else {
                #expect(try purchases[parts[1]] == StateCodec.decode(PurchaseRecord.self, from: old), "\(key)")
            }
        }
        #expect(try value("SELECT count(*) FROM ledger.paying_users", Int64.self) ?? 0 >= 8)

        let verify = try await LedgerBinary.run(["verify"], databaseURL: url)
        #expect(verify.status == 0 && verify.output.contains("OK"), "\(verify.output)")
        #expect(verify.output.contains("1 invoice(s) intact"), "\(verify.output)")
        let check = try await LedgerBinary.run(["replay", "--check"], databaseURL: url)
        #expect(check.status == 0 && check.output.contains("OK"), "\(check.output)")

        // Every answer the old version gave, asked again of the new code at the same clock.
        try await UpgradeFixture.expectSameAnswers(fixture, database: url)
        #expect(fixture.requests.count >= 50)
    }

    /// A deployment upgrading: `ledger migrate` and several instances opening the database (as each `serve` does at its
    /// start) at the same moment. One builds the read models; the others wait for it rather than fail.
    @Test func processesUpgradingAtOnceAllSucceed() async throws {
        let url = try await TestDatabase.makeDatabase(prefix: "upgrade006_together", on: .faults)
        try UpgradeFixture.restore(into: url)
        try UpgradeFixture.advanceTransactionIDs(on: try PostgresConnection.connect(PostgresConfiguration(connectionString: url)))
        try await TestDatabase.waitForHorizon(url)

        let migrations = try SchemaLocation.migrations()
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    let result = try await LedgerBinary.run(["migrate"], databaseURL: url)
                    return result.status == 0 ? nil : "ledger migrate exited \(result.status): \(result.output)"
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    do {
                        try await LedgerDatabase.open(connectionString: url, poolSize: 1, migrations: migrations).shutdown()
                        return nil
                    } catch {
                        return "LedgerDatabase.open: \(error)"
                    }
                }
            }
            return try await group.reduce(into: [String]()) { failures, failure in failure.map { failures.append($0) } }
        }
        #expect(failures.isEmpty, "\(failures)")
        let check = try await LedgerBinary.run(["replay", "--check"], databaseURL: url)
        #expect(check.status == 0 && check.output.contains("OK"), "\(check.output)")
    }
}

/// `Tests/Fixtures/upgrade-006/`: the dump of a version-6 database and the answers its API gave.
enum UpgradeFixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/upgrade-006")

    /// The fixture's app users: UUIDs, as the app's `appAccountToken` policy (`token_is_app_user_id`) wants.
    static let users = (1...9).map { String(format: "00000000-0000-4000-8000-%012d", $0) }

    struct Tenant: Codable, Sendable {
        var appID: String
        var accountID: String
        var secretKey: String
        var publicKey: String
    }

    /// One GET and the old version's answer.
    struct Request: Codable, Sendable {
        enum Credential: String, Codable, Sendable { case bearerSecret, apiKeySecret, admin }
        var path: String
        var credential: Credential
        var status: Int?
        var body: String?

        var method: String { "GET" }

        func headers(tenant: Tenant, adminToken: String) -> [String: String] {
            switch credential {
            case .bearerSecret: ["Authorization": "Bearer \(tenant.secretKey)"]
            case .apiKeySecret: ["APIKey": tenant.secretKey]
            case .admin: ["Authorization": "Bearer \(adminToken)"]
            }
        }
    }

    struct Answers: Codable, Sendable {
        /// The commit of the `ledger` that wrote the database and gave the answers.
        var generatedBy: String
        /// When the answers were read (seconds since 1970): the clock to judge expiry at when asking again.
        var clock: Double
        var tenant: Tenant
        var requests: [Request]
    }

    /// What is asked of both versions: everything about every user (and one never seen), the catalog, the invoice in
    /// every form, and the drafts of the months around it.
    static func requests(tenant: Tenant, invoices: [String]) -> [Request] {
        var requests: [Request] = []
        for user in users + ["00000000-0000-4000-8000-000000000099"] {
            for suffix in ["", "/entitlements", "/unconsumed", "/events"] {
                requests.append(Request(path: "/v1/users/\(user)\(suffix)", credential: .bearerSecret))
            }
            requests.append(Request(path: "/productsStatus?user-id=\(user)", credential: .apiKeySecret))
        }
        requests.append(Request(path: "/v1/apps/\(tenant.appID)/products", credential: .bearerSecret))
        requests.append(Request(path: "/v1/admin/invoices?account_id=\(tenant.accountID)", credential: .admin))
        for invoice in invoices {
            for suffix in ["", "?format=csv", "/reproduction"] {
                requests.append(Request(path: "/v1/admin/invoices/\(invoice)\(suffix)", credential: .admin))
            }
        }
        for month in ["2026-05", "2026-06", "2026-07", "2026-08", "2026-09", "2026-10", "2026-11"] {
            requests.append(Request(path: "/v1/admin/invoice-drafts?account_id=\(tenant.accountID)&month=\(month)", credential: .admin))
        }
        return requests
    }

    /// Asks every request of the fixture again, of the current code on `url` at the old answers' clock, and expects the
    /// old answer (with the intended changes); requests `asked` refuses are left out.
    static func expectSameAnswers(_ fixture: Answers, database url: String, asked: @escaping @Sendable (Request) -> Bool = { _ in true }) async throws
    {
        let harness = try await APIHarness.make(
            database: url, now: Instant(microsecondsSinceEpoch: Int64((fixture.clock * 1_000_000).rounded(.down))))
        try await harness.test { client in
            for request in fixture.requests where asked(request) {
                var fields = HTTPFields()
                for (name, value) in request.headers(tenant: fixture.tenant, adminToken: APIHarness.adminToken) {
                    fields[HTTPField.Name(name)!] = value
                }
                let answer = try await client.send(.get, request.path, headers: fields)
                #expect(Int(answer.status.code) == request.status, "\(request.path): \(answer.text)")
                let old = withIntendedChanges(request.body ?? "", path: request.path)
                #expect(sameAnswer(answer.text, old), "\(request.path):\n  old \(old)\n  new \(answer.text)")
                if request.path.hasPrefix("/v1/users/"), !request.path.hasSuffix("/events") {
                    let known = answer.json["known"] as? Bool
                    #expect(
                        known != nil && (known == false || !request.path.contains("000000000099")),
                        "`known` is a boolean, false for the user never seen: \(request.path): \(answer.text)")
                }
                if request.path.range(of: #"^/v1/users/[^/?]+(\?.*)?$"#, options: .regularExpression) != nil {
                    #expect((answer.json["grants"] as? [Any])?.isEmpty == true, "nobody had grants before: \(request.path): \(answer.text)")
                }
            }
        }
        #expect(fixture.requests.count >= 50)
    }

    static func load() throws -> Answers {
        try JSONDecoder().decode(Answers.self, from: Data(contentsOf: folder.appendingPathComponent("answers.json")))
    }

    /// An old answer as the current version means to give it: invoice content (invoices and drafts) has answered
    /// snake_case members since issue 35 (`accountID` → `account_id`); what is stored and hashed is unchanged.
    static func withIntendedChanges(_ answer: String, path: String) -> String {
        guard path.hasPrefix("/v1/admin/invoice"),
            let json = try? JSONSerialization.jsonObject(with: Data(answer.utf8)),
            let data = try? JSONSerialization.data(withJSONObject: snakeCased(json))
        else { return answer }
        return String(decoding: data, as: UTF8.self)
    }

    private static func snakeCased(_ value: Any) -> Any {
        switch value {
        case let object as [String: Any]:
            return Dictionary(
                uniqueKeysWithValues: object.map { key, value in
                    var name = ""
                    for (index, character) in key.enumerated() {
                        if character.isUppercase, index > 0, !Array(key)[index - 1].isUppercase { name += "_" }
                        name += character.lowercased()
                    }
                    return (name, snakeCased(value))
                })
        case let array as [Any]: return array.map(snakeCased)
        default: return value
        }
    }

    /// Members added to the answers since the fixture's version (top level): an additive change, which clients
    /// ignore, so left out of the comparison and checked on their own.
    static let addedMembers: Set<String> = ["known", "grants"]

    /// Two answers are the same when their JSON is (member order aside, members added since left out), or, for text,
    /// when the text is.
    static func sameAnswer(_ a: String, _ b: String) -> Bool {
        guard var x = try? JSONSerialization.jsonObject(with: Data(a.utf8), options: [.fragmentsAllowed]),
            let y = try? JSONSerialization.jsonObject(with: Data(b.utf8), options: [.fragmentsAllowed])
        else { return a == b }
        if var new = x as? [String: Any], let old = y as? [String: Any] {
            for member in addedMembers where old[member] == nil { new[member] = nil }
            x = new
        }
        return same(x, y)
    }

    private static func same(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case (let a as [String: Any], let b as [String: Any]):
            return Set(a.keys) == Set(b.keys) && a.allSatisfy { key, value in same(value, b[key]!) }
        case (let a as [Any], let b as [Any]):
            return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        default:
            return type(of: a) == type(of: b) && String(describing: a) == String(describing: b)
        }
    }

    /// Restores the dump into the empty database at `url` with `psql`. Its grants name the service role, which a
    /// cluster has once any ledger database was migrated on it; created here if this one has none yet.
    static func restore(into url: String) throws {
        try PostgresConnection.connect(PostgresConfiguration(connectionString: url)).execute(
            """
            DO $$
            BEGIN
                IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
                    CREATE ROLE ledger_service NOLOGIN;
                END IF;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END
            $$;
            """)
        let psql = try PostgresInstallation.locate().program("psql")
        let result = try ProcessRunner.run([
            psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "--dbname=\(url)",
            "--file=\(folder.appendingPathComponent("ledger-006.sql").path)"
        ])
        guard result.status == 0 else { throw RestoreFailure(output: result.output) }
    }

    struct RestoreFailure: Error, CustomStringConvertible {
        let output: String
        var description: String { "psql could not restore the fixture:\n\(output)" }
    }

    /// The restored events keep the transaction ids of the cluster that wrote them; readers take only events of
    /// transactions older than every running one. A cluster whose transaction counter is behind them (a fresh test
    /// cluster) would not show them yet, and would hand out their ids again. Moves this cluster's counter past them,
    /// one transaction at a time, as a restore onto a new cluster must.
    static func advanceTransactionIDs(on connection: PostgresConnection) throws {
        let needed =
            try connection.query(
                """
                SELECT greatest((SELECT max(transaction_id) FROM ledger.events), (SELECT max(pg_snapshot_xmax(snapshot)) FROM ledger.invoices))
                """
            ).first?.decode(UInt64?.self, at: 0) ?? 0
        while try connection.query("SELECT pg_current_xact_id()").first?.decode(UInt64.self, at: 0) ?? 0 <= needed {}
    }

    /// Every event, as a line of its stored columns, the hash chain included.
    static func events(on connection: PostgresConnection) throws -> [String] {
        try connection.query(
            """
            SELECT concat_ws(' ', position, transaction_id, app_id, stream_id, stream_version, event_type, schema_version, payload::text,
                             metadata::text, idempotency_key, occurred_at, recorded_at, encode(previous_hash, 'hex'), encode(hash, 'hex'))
            FROM ledger.events ORDER BY position
            """
        ).map { try $0.decode(String.self, at: 0) }
    }

    /// One read model's states by `app|key`: the stored fold state, else (a row a rebuild wrote) folded from its stream.
    static func states<Model: ReadModel>(_ model: Model.Type, on connection: PostgresConnection) throws -> [String: Model.Reducer.State] {
        var states: [String: Model.Reducer.State] = [:]
        var unfolded: [StateKey] = []
        for row in try connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT app_id, original_transaction_id, fold_state::text FROM ledger.\(Model.tables[0].name)
                    """))
        {
            let key = StateKey(appID: try row.decode(String.self, at: 0), key: try row.decode(String.self, at: 1))
            if let text = try row.decode(String?.self, at: 2) {
                states[key.appID + "|" + key.key] = try StateCodec.decode(Model.Reducer.State.self, from: text)
            } else {
                unfolded.append(key)
            }
        }
        for (key, state) in try Model.foldFromLog(unfolded, through: nil, on: connection) { states[key.appID + "|" + key.key] = state.state }
        return states
    }

    static func states(on connection: PostgresConnection, sql: String) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try connection.query(PostgresQuery(unsafeSQL: sql)).map {
                (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1))
            })
    }
}
