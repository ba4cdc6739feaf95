import Foundation
import LedgerDomain
import LedgerStore
import LedgerTenancy
import PostgresClient
import UTCTime

/// The console's customer page for one user with 10,000 events (a subscription started, then renewed 9,999 times),
/// through the running server: signs in with curl, then opens the page (its first timeline page, the summaries, the
/// type filter's counts and the hash-chain check of the user's stream) and reads the server's own time from the
/// `Server-Timing` header. Against PostgreSQL reading the same page of events directly.
struct ConsoleBenchmark {
    let cluster: BenchCluster
    let server: ServerProcess
    let events = 10_000
    let requests = 20

    func run() async throws -> Figure {
        let pool = cluster.pool(size: 2)
        defer { Task { await pool.shutdown() } }
        let tenancy = TenancyStore(pool: pool)
        let account = try await tenancy.createAccount(name: "bench console")
        let app = try await tenancy.createApp(.init(accountID: account.id, name: "console", bundleID: "com.bench.console"))
        // The log names users by pseudonym (docs/erasure.md): the server makes the user's when it first hears of them
        // (a consent recorded through the API), and the events written here name it, as the server's would.
        let (_, secret) = try await tenancy.createKey(app: app.id, kind: .secret, name: nil)
        _ = try await ExternalTool.run(["curl", "-sSf", "-o", "/dev/null", "-H", "Authorization: Bearer \(secret)", "-H", "Content-Type: application/json",
                                        "--data", #"{"consented":true}"#, server.baseURL + "/v1/users/console-user/consumption-consent"])
        guard let pseudonym = try await pool.query("SELECT pseudonym FROM ledger.identities WHERE app_id = \(app.id)").first?.decode(String.self, at: 0)
        else { throw ExternalTool.Failed(command: "console", output: "the server made no pseudonym for console-user") }
        let day = Dataset.day
        let facts = TransactionFacts(appUserID: pseudonym, productID: "monthly", transactionID: "TXID", originalTransactionID: "console-otx",
                                     environment: .production, purchaseDate: day, expiresDate: day.adding(days: 30), signedDate: day)
        let started = LedgerEvent.subscriptionStarted(SubscriptionStarted(transaction: facts)).encoded()
        let renewed = LedgerEvent.subscriptionRenewed(Renewal(transaction: facts)).encoded()
        let stream = LedgerStreams.purchase(originalTransactionID: "console-otx")
        // In chunks of 1,000 versions: each INSERT … SELECT runs the hash-chain trigger per row, in version order.
        for chunk in stride(from: 1, through: events, by: 1_000) {
            let last = min(chunk + 999, events)
            _ = try await pool.query("""
                INSERT INTO ledger.events (app_id, stream_id, stream_version, event_type, schema_version, payload, idempotency_key, occurred_at)
                SELECT \(app.id), \(stream), v, CASE WHEN v = 1 THEN \(started.type) ELSE \(renewed.type) END, 1,
                       replace(CASE WHEN v = 1 THEN \(started.payload) ELSE \(renewed.payload) END, 'TXID', 'console-tx-' || v)::jsonb,
                       'console:' || v, 'epoch'::timestamptz + \(day.microsecondsSinceEpoch) * interval '1 microsecond' + v * interval '1 minute'
                FROM generate_series(\(Int64(chunk)), \(Int64(last))) AS v ORDER BY v
                """)
        }
        // The server's projection worker folds them into the read model; wait (with a deadline) until it has.
        let head = try await pool.query("SELECT max(position) FROM ledger.events WHERE app_id = \(app.id)").first?.decode(Int64.self, at: 0) ?? 0
        let deadline = ContinuousClock.now + .seconds(120)
        while try await pool.query("""
            SELECT 1 FROM ledger.subscriptions WHERE app_id = \(app.id) AND original_transaction_id = 'console-otx' AND last_position >= \(head)
            """).isEmpty {
            guard ContinuousClock.now < deadline else { throw ExternalTool.Failed(command: "console", output: "the projections did not catch up") }
            try await Task.sleep(for: .milliseconds(100))
        }

        let jar = NSTemporaryDirectory() + "ledger-bench-console-cookies.txt"
        try? FileManager.default.removeItem(atPath: jar)
        let signInPage = try await ExternalTool.run(["curl", "-sS", "-c", jar, server.baseURL + "/console/sign-in"])
        guard let range = signInPage.range(of: "name=\"csrf\" value=\"") else {
            throw ExternalTool.Failed(command: "console sign-in", output: signInPage)
        }
        let nonce = String(signInPage[range.upperBound...].prefix { $0 != "\"" })
        _ = try await ExternalTool.run(["curl", "-sS", "-b", jar, "-c", jar, "-o", "/dev/null", "--data-urlencode", "csrf=\(nonce)",
                                        "--data-urlencode", "actor=bench", "--data-urlencode", "token=\(ServerProcess.adminToken)",
                                        server.baseURL + "/console/sign-in"])
        let url = server.baseURL + "/console/customers/\(app.id)/console-user"
        var times: [Double] = []
        for _ in 0..<requests {
            let headers = try await ExternalTool.run(["curl", "-sS", "-b", jar, "-o", "/dev/null", "-D", "-", "-w", "status %{http_code}\n", url])
            guard headers.contains("status 200"),
                  let line = headers.split(whereSeparator: \.isNewline).first(where: { $0.lowercased().hasPrefix("server-timing:") }),
                  let value = line.split(separator: "=").last.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) })
            else { throw ExternalTool.Failed(command: "console customer page", output: headers) }
            times.append(value)
        }
        times.sort()
        let median = times[times.count / 2]
        let (_, referenceSeconds) = try await ExternalTool.timed {
            try await pool.query("""
                SELECT position, event_type, payload FROM ledger.events WHERE app_id = \(app.id) AND stream_id = \(stream)
                ORDER BY position LIMIT 50
                """)
        }
        return Figure(name: "console: customer page", workload: "one user with \(events) events, first timeline page of 50, \(requests) requests",
                      value: median, unit: "ms (server, median)", reference: "PostgreSQL: the page's 50 events",
                      referenceValue: referenceSeconds * 1000, target: "< 200 ms", detail: ["max ms": times.last ?? 0], lowerIsBetter: true)
    }
}
