import Foundation
import LedgerDomain
import LedgerStore
import LedgerTenancy
import PostgresClient
import PostgresTestSupport
import UTCTime

/// The read, replay and invoice data set: `accounts` billing accounts with one app each, `usersPerApp` paying users
/// per app (one production subscription each, bought in April 2026), written by PostgreSQL in bulk
/// (`SyntheticPayingUsers`). Every app gets a public and a secret key; `appsFile` lists them for wrk.
struct Dataset {
    static let month = CalendarMonth(year: 2026, month: 4)
    static let day = Instant(microsecondsSinceEpoch: 1_775_779_200_000_000) // 2026-04-10
    let accounts: Int
    let usersPerApp: Int
    let appsFile: String
    var payingUsers: Int { accounts * usersPerApp }

    static func load(cluster: BenchCluster, accounts: Int, usersPerApp: Int) async throws -> (Dataset, seconds: Double) {
        let pool = cluster.pool(size: 2)
        defer { Task { await pool.shutdown() } }
        let tenancy = TenancyStore(pool: pool)
        let file = NSTemporaryDirectory() + "ledger-bench-apps.txt"
        let (lines, seconds) = try await ExternalTool.timed {
            try await withThrowingTaskGroup(of: String.self) { group in
                // Two at a time: one per core.
                for half in 0..<2 {
                    group.addTask {
                        var lines: [String] = []
                        for index in stride(from: half, to: accounts, by: 2) {
                            let account = try await tenancy.createAccount(name: "bench account \(index)")
                            let app = try await tenancy.createApp(.init(accountID: account.id, name: "bench app \(index)", bundleID: "com.bench.app\(index)"))
                            let (_, publicKey) = try await tenancy.createKey(app: app.id, kind: .public, name: nil)
                            let (_, secretKey) = try await tenancy.createKey(app: app.id, kind: .secret, name: nil)
                            try await SyntheticPayingUsers.insert(on: pool, app: app.id, prefix: "a\(index)-", users: usersPerApp, day: day)
                            lines.append("\(app.id) \(publicKey) \(secretKey) a\(index)-")
                        }
                        return lines.joined(separator: "\n")
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try cluster.connect().execute("VACUUM ANALYZE")
        return (Dataset(accounts: accounts, usersPerApp: usersPerApp, appsFile: file), seconds)
    }

    /// More events for the large replay: extra apps (in an account of their own) of `usersPerApp` users each.
    static func grow(cluster: BenchCluster, toEvents target: Int, usersPerApp: Int) async throws {
        let pool = cluster.pool(size: 2)
        defer { Task { await pool.shutdown() } }
        let tenancy = TenancyStore(pool: pool)
        let account = try await tenancy.createAccount(name: "bench replay filler")
        var count = try await pool.query("SELECT count(*) FROM ledger.events").first?.decode(Int64.self, at: 0) ?? 0
        var index = 0
        while count < Int64(target) {
            let app = try await tenancy.createApp(.init(accountID: account.id, name: "filler \(index)", bundleID: "com.bench.filler\(index)"))
            let users = min(usersPerApp, target - Int(count))
            try await SyntheticPayingUsers.insert(on: pool, app: app.id, prefix: "f\(index)-", users: users, day: day)
            count += Int64(users)
            index += 1
        }
        try cluster.connect().execute("VACUUM ANALYZE")
    }
}
