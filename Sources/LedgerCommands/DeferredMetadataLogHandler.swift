import Logging

/// swift-log's `StreamLogHandler` (its format, its stream), with the logger's metadata rendered only when a line is
/// written. `StreamLogHandler` renders its whole metadata to text each time a value is set, and every request sets
/// two (Hummingbird's request id, then `RequestIDMiddleware`'s), at the default level where most requests write no
/// line at all. Here the values are kept as they are and handed to the stream handler with each line, as the line's
/// own metadata (which wins over them).
struct DeferredMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(_ stream: StreamLogHandler) { self.stream = stream }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty { event.metadata = metadata.merging(event.metadata ?? [:]) { _, line in line } }
        stream.log(event: event)
    }
}
