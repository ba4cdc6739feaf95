import EmbeddedPostgres
import Foundation

/// The load generators and references the suite drives as separate processes: pgbench, psql and wrk.
enum ExternalTool {
    struct Failed: Error, CustomStringConvertible {
        let command: String
        let output: String
        var description: String { "\(command) failed:\n\(output.suffix(2000))" }
    }

    /// Runs `arguments` (the program through PATH unless absolute) and returns its output; a non-zero exit throws.
    static func run(_ arguments: [String]) async throws -> String {
        // `env -C` (ProcessRunner's working directory) also finds a bare program name through PATH.
        let result = try await ProcessRunner.runOnThread(arguments, workingDirectory: NSTemporaryDirectory())
        guard result.status == 0 else { throw Failed(command: arguments.joined(separator: " "), output: result.output) }
        return result.output
    }

    /// Wall-clock seconds of `body`.
    static func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try await body()
        return (value, (clock.now - start).seconds)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// pgbench's summary: transactions per second and the mean latency.
struct PgbenchResult: Codable, Sendable {
    var tps: Double
    var latencyAverageMs: Double
    var transactions: Int

    /// Runs pgbench against `url` (a libpq keyword string) and parses its summary.
    static func run(_ cluster: BenchCluster, _ options: [String]) async throws -> PgbenchResult {
        let output = try await ExternalTool.run([cluster.program("pgbench")] + options + [cluster.url])
        func number(after label: String) -> Double? {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
            return Double(line.dropFirst(label.count).split(separator: " ").first ?? "")
        }
        guard let tps = number(after: "tps = ") else { throw ExternalTool.Failed(command: "pgbench", output: output) }
        return PgbenchResult(tps: tps, latencyAverageMs: number(after: "latency average = ") ?? 0,
                             transactions: Int(number(after: "number of transactions actually processed: ") ?? 0))
    }
}
