import PostgresClient

/// Failures of the event store that callers handle; database failures arrive as `PostgresError`.
public enum EventStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stream was not at the expected version (another writer appended first).
    case versionConflict(appID: String, streamID: String, expected: ExpectedVersion, actual: Int64)
    /// An event or identifier is unacceptable; the message says what to fix.
    case invalidEvent(String)
    /// Appends kept colliding with concurrent writers.
    case contention(appID: String, streamID: String)

    public var description: String {
        switch self {
        case .versionConflict(let app, let stream, let expected, let actual):
            "stream \(stream) of app \(app) is at version \(actual), not \(expected); re-read the stream and retry"
        case .invalidEvent(let message): message
        case .contention(let app, let stream):
            "stream \(stream) of app \(app) is being appended to concurrently too often; retry later"
        }
    }
}
