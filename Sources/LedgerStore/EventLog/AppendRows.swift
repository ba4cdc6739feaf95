import PostgresClient

/// The rows `ledger.append_events` (or a group function, after its append number) answers for one append,
/// folded into its result: one row per event (its key, position, stream version, and whether this call wrote it), or
/// one row without a key for a version conflict.
struct AppendRows {
    private var positions: [String: Int64] = [:]
    private var recordedVersion: Int64 = 0
    private var appendedVersion: Int64 = 0
    private var appended = 0
    private var conflictVersion: Int64?

    /// Adds a row whose key, position, version and appended flag start at column `first`.
    mutating func add(_ row: PostgresRow, first: Int) throws {
        let version = try row.decode(Int64.self, at: first + 2)
        guard let key = try row.decode(String?.self, at: first) else {
            conflictVersion = version
            return
        }
        positions[key] = try row.decode(Int64.self, at: first + 1)
        if try row.decode(Bool.self, at: first + 3) {
            appended += 1
            appendedVersion = max(appendedVersion, version)
        } else {
            recordedVersion = max(recordedVersion, version)
        }
    }

    func result(app appID: String, stream streamID: String, expected: ExpectedVersion, events: [NewEvent]) throws -> AppendResult {
        if let conflictVersion {
            throw EventStoreError.versionConflict(appID: appID, streamID: streamID, expected: expected, actual: conflictVersion)
        }
        return AppendResult(
            positions: events.compactMap { positions[$0.idempotencyKey] },
            streamVersion: appended > 0 ? appendedVersion : recordedVersion, appendedCount: appended)
    }
}
