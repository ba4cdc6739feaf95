import Foundation

/// Where the PostgreSQL server programs are. Looked up, in order: `LEDGER_PG_BINDIR`, `pg_config --bindir`,
/// the Debian layout `/usr/lib/postgresql/<newest>/bin`, then `PATH`.
public struct PostgresInstallation: Sendable {
    public let binDirectory: String

    public init(binDirectory: String) { self.binDirectory = binDirectory }

    public func program(_ name: String) -> String { binDirectory + "/" + name }

    /// `pgConfig` and `debianRoot` are parameters so tests can look at a machine without PostgreSQL.
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        pgConfig: String? = "pg_config", debianRoot: String = "/usr/lib/postgresql"
    )
        throws(EmbeddedPostgresError) -> PostgresInstallation
    {
        var candidates: [String] = []
        if let explicit = environment["LEDGER_PG_BINDIR"], !explicit.isEmpty { candidates.append(explicit) }
        if let pgConfig, let result = try? ProcessRunner.run([pgConfig, "--bindir"], searchPath: true), result.status == 0 {
            candidates.append(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debianRoot)) ?? []
        for version in versions.compactMap(Int.init).sorted(by: >) {
            candidates.append("\(debianRoot)/\(version)/bin")
        }
        candidates += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for directory in candidates
        where FileManager.default.isExecutableFile(atPath: directory + "/initdb")
            && FileManager.default.isExecutableFile(atPath: directory + "/pg_ctl")
        {
            return PostgresInstallation(binDirectory: directory)
        }
        throw .binariesNotFound(searched: candidates.isEmpty ? ["(nothing)"] : Array(candidates.prefix(6)))
    }
}
