import AppStoreSamples
import EmbeddedPostgres
import Foundation
import PostgresTestSupport
import Testing

/// The alert rules and the dashboard of `Deploy/observability/` against the service they watch: promtool's unit tests
/// of every rule, every metric they name exported by a running `ledger serve`, and a real Prometheus seeing the
/// database alert fire when the service's PostgreSQL stops.
@Suite struct ObservabilityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let rules = root.appendingPathComponent("Deploy/observability/alerts.yml").path
    static let ruleTests = root.appendingPathComponent("Deploy/observability/alerts.test.yml").path
    static let dashboard = root.appendingPathComponent("Deploy/observability/dashboard.json").path

    /// promtool and prometheus from Debian's `prometheus` package (`.ci/run` installs it).
    static func tool(_ name: String) throws -> String {
        let path = "/usr/bin/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ToolMissing(description: "\(path) is missing: apt-get install prometheus")
        }
        return path
    }

    struct ToolMissing: Error, CustomStringConvertible { var description: String }

    static func alertNames() throws -> [String] {
        try String(contentsOfFile: rules, encoding: .utf8).split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("- alert:") ? trimmed.dropFirst("- alert:".count).trimmingCharacters(in: .whitespaces) : nil
        }
    }

    @Test func promtoolChecksTheRulesAndTheirTestsCoverEveryAlert() async throws {
        let promtool = try Self.tool("promtool")
        let check = try await ProcessRunner.runOnThread([promtool, "check", "rules", Self.rules])
        #expect(check.status == 0, "\(check.output)")
        let tests = try await ProcessRunner.runOnThread([promtool, "test", "rules", Self.ruleTests])
        #expect(tests.status == 0, "\(tests.output)")
        let alerts = try Self.alertNames()
        #expect(alerts.count >= 7, "\(alerts)")
        let testText = try String(contentsOfFile: Self.ruleTests, encoding: .utf8)
        for alert in alerts { #expect(testText.contains("alertname: \(alert)"), "no promtool test for \(alert)") }
    }

    /// Every series the rules and the dashboard read is one a running service exports (a renamed metric would
    /// leave an alert that never fires).
    @Test(.timeLimit(.minutes(10))) func everyMetricTheRulesAndTheDashboardNameIsExported() async throws {
        let keyFile = TestScratch.path("digest-key")
        try (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined().write(toFile: keyFile, atomically: true, encoding: .utf8)
        let (server, _) = try await ServerProcess.started(
            databasePrefix: "observability", signer: try AppStoreTestSigner(), extraArguments: ["--signing-key", keyFile],
            environment: ["LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "1"])
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL, timeout: 30)
        let tenant = try await LedgerTenant.create(client)
        // An endpoint nothing listens at: the backlog's series per endpoint is what matters here.
        let endpoint = try await client.send(
            "POST", "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret, body: #"{"url":"http://127.0.0.1:9/ledger-hook"}"#)
        #expect(endpoint.status == 201, "\(endpoint.text)")

        let named = try Self.metricNames()
        #expect(named.count >= 12, "\(named)")
        var exported: Set<String> = []
        let deadline = ContinuousClock.now + .seconds(60)
        // The probe's gauges appear within its first rounds (every 5 s); nothing to wait on but the exposition.
        while ContinuousClock.now < deadline {
            exported = Self.exportedNames(try await client.send("GET", "/metrics").text)
            if named.isSubset(of: exported) { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(named.subtracting(exported).isEmpty, "named but not exported: \(named.subtracting(exported).sorted())")
    }

    /// The metric names in the rules and the dashboard, without a histogram's `_bucket` / `_sum` / `_count`.
    static func metricNames() throws -> Set<String> {
        let text = try String(contentsOfFile: rules, encoding: .utf8) + (try String(contentsOfFile: dashboard, encoding: .utf8))
        let pattern = try NSRegularExpression(pattern: #"\b(?:ledger|hb|http_server)_[a-z0-9_]+"#)
        let names = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
        return Set(
            names.map { name in
                for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) { return String(name.dropLast(suffix.count)) }
                return name
            })
    }

    static func exportedNames(_ exposition: String) -> Set<String> {
        Set(
            exposition.split(separator: "\n").compactMap { line in
                line.hasPrefix("# TYPE ") ? line.split(separator: " ").dropFirst(2).first.map(String.init) : nil
            })
    }

    /// A real Prometheus scraping a real service, with the shipped rules (their `for:` shortened so the test does
    /// not wait minutes): the service's PostgreSQL stops, `LedgerDatabaseUnreachable` fires.
    @Test(.timeLimit(.minutes(10))) func prometheusFiresTheDatabaseAlertWhenPostgreSQLStops() async throws {
        let prometheus = try Self.tool("prometheus")
        let directory = NSTemporaryDirectory() + "ledger-alerts-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = EmbeddedCluster(
            directory: directory + "/pg", installation: try PostgresInstallation.locate(),
            options: .init(unsafeFastWrites: true, port: try RestartablePort.pick()))
        let running = try await Blocking.run { try cluster.start() }
        defer { try? cluster.stop() }
        try running.ensureDatabase("ledger")
        let server = try ServerProcess(
            databaseURL: running.connectionString(database: "ledger"), rootFiles: try RootFiles.write(try AppStoreTestSigner()),
            adminToken: LedgerTenant.adminToken)
        try await server.start()
        defer { server.killNow() }

        let rules = try String(contentsOfFile: Self.rules, encoding: .utf8)
            .replacingOccurrences(of: #"for: *[0-9]+[smh]"#, with: "for: 0s", options: .regularExpression)
        try rules.write(toFile: directory + "/alerts.yml", atomically: true, encoding: .utf8)
        try """
        global: {scrape_interval: 3s, scrape_timeout: 3s, evaluation_interval: 1s}
        rule_files: [alerts.yml]
        scrape_configs:
          - job_name: ledger
            static_configs: [{targets: ["127.0.0.1:\(server.port)"]}]
        """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let port = try EmbeddedCluster.freeLoopbackPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prometheus)
        process.arguments = [
            "--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/tsdb", "--web.listen-address=127.0.0.1:\(port)"
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let log = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = log
        process.standardError = log
        try process.run()
        defer { process.terminate() }
        let prometheusAPI = HTTPClient(base: URL(string: "http://127.0.0.1:\(port)")!, timeout: 10)

        func firing() async -> [String] {
            guard let answer = try? await prometheusAPI.send("GET", "/api/v1/alerts"),
                let json = try? JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any],
                let alerts = (json["data"] as? [String: Any])?["alerts"] as? [[String: Any]]
            else { return [] }
            return alerts.filter { $0["state"] as? String == "firing" }.compactMap { ($0["labels"] as? [String: Any])?["alertname"] as? String }
        }
        func up() async -> Bool {
            guard let answer = try? await prometheusAPI.send("GET", "/api/v1/query?query=ledger_database_up") else { return false }
            return answer.text.contains(#""value":["#) && answer.text.contains(#","1"]"#)
        }
        // Scraped and healthy first (Prometheus and the probe start on their own schedules: polled, bounded).
        var deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline, await !up() { try await Task.sleep(for: .milliseconds(500)) }
        // The scrape's timeout is 3 s, not the 1 s a 1 s interval would impose: under a whole test run on two cores a
        // scrape of /metrics took longer, and Prometheus then never saw the service at all.
        let sawUp = await up()
        let targets = sawUp ? "" : ((try? await prometheusAPI.send("GET", "/api/v1/targets"))?.text ?? "(no answer)")
        #expect(sawUp, "Prometheus never saw the service's database up; its targets: \(targets.prefix(800))")
        #expect(await !firing().contains("LedgerDatabaseUnreachable"))

        try await Blocking.run { try cluster.stop() }
        deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline, await !firing().contains("LedgerDatabaseUnreachable") {
            try await Task.sleep(for: .milliseconds(500))
        }
        let fired = await firing()
        #expect(fired.contains("LedgerDatabaseUnreachable"), "the alert did not fire; firing: \(fired)")
    }
}
