import EmbeddedPostgres
import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// `ledger` as an operator installs and runs it (Deploy/, README "Layout").
@Suite struct InstallationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A copy of the binary in `<prefix>/bin` and the schema in `<prefix>/share/subscription-ledger/schema`, nothing
    /// else (what it serves is compiled in), run by name from PATH in an unrelated folder: `migrate` applies the
    /// installed schema and `serve` serves the OpenAPI document. The installed schema has one migration more than the
    /// checkout's, so a binary that missed it and fell back to the checkout's `schema/` fails here.
    @Test func anInstalledBinaryRunFromPATHUsesItsSchemaAndServes() async throws {
        let manager = FileManager.default
        let prefix = TestScratch.path("prefix")
        let elsewhere = TestScratch.path("elsewhere")
        let schema = prefix + "/share/subscription-ledger/schema"
        try manager.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: prefix + "/share/subscription-ledger", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        // Copied by `cp`, not in this process: while this process holds the copy open for writing, every child
        // another test forks meanwhile inherits that descriptor until it execs, and running the copy then fails with
        // "Text file busy" (exit 126). Only `cp` ever holds it, and `cp` has exited when this returns.
        let copy = try await ProcessRunner.runOnThread(["/bin/cp", LedgerBinary.url.path, prefix + "/bin/ledger"])
        #expect(copy.status == 0, "\(copy.output)")
        try manager.copyItem(atPath: Self.repository.appendingPathComponent("schema").path, toPath: schema)
        try "CREATE TABLE ledger.installed_layout_marker ();\n"
            .write(toFile: schema + "/900_installed_layout_marker.sql", atomically: true, encoding: .utf8)

        let databaseURL = try await TestDatabase.makeDatabase(prefix: "install")
        // ProcessRunner runs `/usr/bin/env -C elsewhere …`; env then finds `ledger` through the PATH given here.
        let path = prefix + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let migrate = try await ProcessRunner.runOnThread(
            ["-u", "LEDGER_SCHEMA_DIR", "PATH=\(path)", "ledger", "migrate", "--database-url", databaseURL], workingDirectory: elsewhere)
        #expect(migrate.status == 0, "\(migrate.output)")
        let connection = try PostgresConnection.connect(PostgresConfiguration(connectionString: databaseURL))
        let marker = try connection.query("SELECT count(*) FROM ledger.schema_migrations WHERE version = 900").first?.decode(Int64.self, at: 0)
        #expect(marker == 1, "the installed schema was not applied: \(migrate.output)")

        let server = try ServerProcess(
            databaseURL: databaseURL, rootFiles: [], adminToken: "install-test-token",
            launch: .byName(binDirectory: prefix + "/bin", workingDirectory: elsewhere))
        defer { server.killNow() }
        try await server.start()
        let document = try await HTTPClient(base: server.baseURL).send("GET", "/openapi.json")
        #expect(document.status == 200)
        #expect(document.string("openapi") == "3.1.0", "\(document.text.prefix(200))")
        let status = await server.stop()
        let log = await server.logTail()
        #expect(status == 0, "\(log)")
    }

    /// SIGTERM on `serve` over the embedded PostgreSQL: the pool closes its connections before the cluster stops, so
    /// the operator sees no "FATAL: terminating connection due to administrator command", and the cluster is stopped.
    @Test func stoppingServeOnTheEmbeddedClusterIsClean() async throws {
        let dataDirectory = TestScratch.path("embedded")
        defer {
            // Only needed when the test failed with the cluster still running.
            if let installation = try? PostgresInstallation.locate() {
                try? EmbeddedCluster(directory: dataDirectory, installation: installation).stop()
            }
        }
        let server = try ServerProcess(
            databaseURL: nil, rootFiles: [], adminToken: "shutdown-test-token",
            extraArguments: ["--data-dir", dataDirectory], extraEnvironment: ["LEDGER_LOG_LEVEL": "info"])
        defer { server.killNow() }
        try await server.start()
        let status = await server.stop()
        let log = await server.logTail(1_000_000)
        #expect(status == 0, "\(log)")
        // Each step of the stop is said at info, in the order it happens, so a stop that takes seconds never looks hung.
        let steps = [
            "shutting down: finishing the requests in flight", "stopping projection service", "projection service stopped",
            "HTTP server and background services stopped", "closing the database connections",
            "stopping the embedded PostgreSQL", "embedded PostgreSQL stopped"
        ]
        let positions = steps.map { log.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "missing shutdown steps in:\n\(log)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "shutdown steps out of order:\n\(log)")
        #expect(!log.contains("terminating connection due to administrator command"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: dataDirectory + "/pgdata/postmaster.pid"), "the embedded PostgreSQL still runs")
    }

    /// Docker does not run on the test machines, so the container file's invariants are checked as text: a Swift that
    /// can build the dependencies (tools version 6.2), no step whose failure is hidden, a non-root user, a health
    /// check on `/ready`, and a build context without build products.
    @Test func theContainerFileKeepsItsInvariants() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("Deploy/Containerfile"), encoding: .utf8)
        let instructions = text.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(!instructions.contains { $0.contains("|| true") }, "a failed step must fail the build")

        let stages = instructions.indices.filter { instructions[$0].hasPrefix("FROM ") }
        #expect(!stages.isEmpty)
        for index in stages {
            let image = instructions[index].split(separator: " ")[1]
            let version =
                image.hasPrefix("swift:")
                ? image.dropFirst("swift:".count).split(separator: "-")[0].split(separator: ".").compactMap { Int($0) } : []
            #expect(version.count >= 2 && (version[0], version[1]) >= (6, 2), "\(image): the dependencies need Swift 6.2 or newer")
        }
        let runtime = instructions[(stages.last ?? 0)...]
        let user = runtime.last { $0.hasPrefix("USER ") }?.dropFirst("USER ".count).split(separator: ":")[0]
        #expect(user != nil && user != "root" && user != "0", "the runtime stage must run as a non-root user")
        #expect(runtime.contains { $0.hasPrefix("HEALTHCHECK ") && $0.contains("/ready") })

        let ignored = try String(contentsOf: Self.repository.appendingPathComponent(".dockerignore"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        for entry in [".git", ".build", ".build-*", "Benchmarks/.build", "Fuzz/.build"] {
            #expect(ignored.contains(entry), "\(entry) is missing from .dockerignore")
        }
    }
}
