/// Input checks that turn would-be database errors into messages that say what to fix.
enum EventValidation {
    static let maximumIdentifierLength = 512

    static func check(appID: String, streamID: String, events: [NewEvent]) throws(EventStoreError) {
        try identifier(appID, "app id")
        try identifier(streamID, "stream id")
        guard !events.isEmpty else { throw .invalidEvent("nothing to append: give at least one event") }
        guard events.count <= EventStore.maximumBatch else {
            throw .invalidEvent("\(events.count) events in one append; split it into batches of at most \(EventStore.maximumBatch)")
        }
        var keys = Set<String>()
        for event in events {
            try identifier(event.type, "event type")
            try identifier(event.idempotencyKey, "idempotency key")
            guard keys.insert(event.idempotencyKey).inserted else {
                throw .invalidEvent("idempotency key \(event.idempotencyKey) appears twice in one append; give each event its own key")
            }
            guard event.schemaVersion >= 1 else { throw .invalidEvent("schema version must be 1 or more") }
            guard event.payload.first == "{" || event.payload.drop(while: \.isWhitespace).first == "{" else {
                throw .invalidEvent("the payload of \(event.type) must be a JSON object")
            }
        }
    }

    static func identifier(_ value: String, _ what: String) throws(EventStoreError) {
        guard !value.isEmpty else { throw .invalidEvent("the \(what) is empty") }
        guard value.utf8.count <= maximumIdentifierLength else {
            throw .invalidEvent("the \(what) is longer than \(maximumIdentifierLength) bytes")
        }
        guard !value.unicodeScalars.contains(where: { $0.value == 0 }) else {
            throw .invalidEvent("the \(what) contains a NUL character, which PostgreSQL text cannot hold")
        }
    }
}
