import Foundation

/// One wrk run of `Scripts/load.lua` and what its `done()` reported.
struct WrkResult: Codable, Sendable {
    var requests: Int
    var seconds: Double
    var failures: Int
    var socketErrors: Int
    var p50Ms: Double
    var p99Ms: Double
    var maxMs: Double
    var perSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/load.lua").path

    /// `wrk` against `baseURL` for `seconds` with `connections` over two threads (one per core of the reference
    /// machine); `environment` carries BENCH_MODE and the files the script reads.
    static func run(baseURL: String, seconds: Int, connections: Int, environment: [String: String]) async throws -> WrkResult {
        let threads = 2
        let settings = environment.merging(["BENCH_THREADS": "\(threads)"]) { a, _ in a }.map { "\($0.key)=\($0.value)" }
        let output = try await ExternalTool.run(["env"] + settings + [
            "wrk", "-t\(threads)", "-c\(max(connections, threads))", "-d\(seconds)s", "--timeout", "10s", "-s", script, baseURL,
        ])
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("WRK_JSON ") }),
              let raw = try? JSONDecoder().decode(Raw.self, from: Data(line.dropFirst("WRK_JSON ".count).utf8)) else {
            throw ExternalTool.Failed(command: "wrk", output: output)
        }
        return WrkResult(requests: raw.requests, seconds: Double(raw.duration_us) / 1e6, failures: raw.failures,
                         socketErrors: raw.socket_errors, p50Ms: Double(raw.p50_us) / 1000, p99Ms: Double(raw.p99_us) / 1000,
                         maxMs: Double(raw.max_us) / 1000)
    }

    private struct Raw: Decodable {
        var requests: Int
        var duration_us: Int
        var failures: Int
        var socket_errors: Int
        var p50_us: Int
        var p99_us: Int
        var max_us: Int
    }
}
