import Foundation

/// How hard the reliability suite pushes. `swift test` (and so CI) runs the shortened version;
/// `scripts/reliability.sh` sets `LEDGER_RELIABILITY=full` for the long run. Every test prints the figures
/// of the load it held, so a reader sees what a green run proves.
enum ReliabilityScale {
    static let isFull = ProcessInfo.processInfo.environment["LEDGER_RELIABILITY"] == "full"

    /// The shortened figure under `swift test`, the long one under `scripts/reliability.sh`.
    static func pick<Value>(ci: Value, full: Value) -> Value { isFull ? full : ci }

    /// One line of figures, prefixed so they are easy to find in a long test log.
    static func report(_ test: String, _ figures: KeyValuePairs<String, Int>) {
        let text = figures.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        FileHandle.standardError.write(Data("reliability[\(test)] \(text)\n".utf8))
    }
}
