import Foundation

/// One measured figure, next to its raw-PostgreSQL reference from the same run.
struct Figure: Codable, Sendable {
    var name: String
    var workload: String
    var value: Double
    var unit: String
    var reference: String?
    var referenceValue: Double?
    var target: String?
    /// Latencies, counts and memory that explain the figure.
    var detail: [String: Double] = [:]
    /// Durations: the ratio is then reference ÷ ledger, so that 100% always means "as fast as PostgreSQL alone".
    var lowerIsBetter = false

    /// The ledger's speed as a share of the reference's.
    var ratio: Double? {
        guard let reference = referenceValue, reference > 0, value > 0 else { return nil }
        return lowerIsBetter ? reference / value : value / reference
    }
}

/// Everything one run measured, with the machine and the PostgreSQL settings it ran on.
struct RunReport: Codable, Sendable {
    var startedAt: String
    var machine: [String: String]
    var postgres: [String: String]
    var options: [String: Int]
    var figures: [Figure] = []
    /// A `--growth` run's table (`GrowthBenchmark.table`), shown after the figures.
    var growthTable: String?

    static func machine() -> [String: String] {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last
        let memory = ((try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? "").split(separator: "\n").first
        return [
            "cpu": model.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown",
            "cores": "\(ProcessInfo.processInfo.activeProcessorCount)",
            "memory": memory.map { String($0.dropFirst("MemTotal:".count)).trimmingCharacters(in: .whitespaces) } ?? "unknown",
            "os": ProcessInfo.processInfo.operatingSystemVersionString,
        ]
    }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// The Markdown table the README shows.
    func markdown() -> String {
        var lines = [
            "Run \(startedAt) on \(machine["cores"] ?? "?") cores (\(machine["cpu"] ?? "?"), \(machine["memory"] ?? "?")), "
                + "PostgreSQL \(postgres["server_version"] ?? "?") (fsync \(postgres["fsync"] ?? "?"), synchronous_commit \(postgres["synchronous_commit"] ?? "?"), shared_buffers \(postgres["shared_buffers"] ?? "?")).",
            "",
            "| figure | workload | ledger | raw PostgreSQL reference | ratio | target | details |",
            "|---|---|---:|---|---:|---|---|",
        ]
        for figure in figures {
            let reference = figure.reference.map { name in "\(Self.format(figure.referenceValue ?? 0)) \(figure.unit) (\(name))" } ?? "—"
            let ratio = figure.ratio.map { String(format: "%.0f%%", $0 * 100) } ?? "—"
            let details = figure.detail.sorted { $0.key < $1.key }.map { "\($0.key) \(Self.format($0.value))" }.joined(separator: ", ")
            lines.append("| \(figure.name) | \(figure.workload) | \(Self.format(figure.value)) \(figure.unit) | \(reference) | \(ratio) | \(figure.target ?? "—") | \(details) |")
        }
        if let growthTable { lines += ["", "How cost grows (`--growth`):", "", growthTable] }
        return lines.joined(separator: "\n") + "\n"
    }

    static func format(_ value: Double) -> String {
        if value >= 100 || value == value.rounded() { return String(format: "%.0f", value) }
        return String(format: value >= 10 ? "%.1f" : "%.2f", value)
    }
}
