import Foundation
import Logging
import Synchronization
import UTCTime

/// `LEDGER_LOG_FORMAT=json`: one JSON object per line, for log shippers, with the fields of the text lines
/// (`StreamLogHandler`'s): `timestamp` (RFC 3339, UTC, as the ledger writes instants), `level`, `label`, `message`, `source`, and the
/// logger's and the line's `metadata` as an object (the line's wins), its values as JSON strings, arrays and objects.
/// Metadata is kept as values and rendered only when a line is written, as `DeferredMetadataLogHandler` does.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    /// Where each line goes (standard error in the service), whole lines at a time.
    let write: @Sendable (String) -> Void

    init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, provided in provided } }
        if let own = event.metadata { merged.merge(own) { _, line in line } }
        var line: [String: Any] = [
            "timestamp": Instant(Date()).rfc3339, "level": event.level.rawValue, "label": label, "message": event.message.description,
            "source": event.source
        ]
        if !merged.isEmpty { line["metadata"] = merged.mapValues(Self.json) }
        guard let data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value): value.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    /// Lines to standard error, one `write` each, so lines of two threads never interleave.
    static let standardError: @Sendable (String) -> Void = { line in
        lock.withLock { _ in FileHandle.standardError.write(Data(line.utf8)) }
    }

    private static let lock = Mutex(())
}
