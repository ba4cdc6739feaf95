import LedgerDomain
import LedgerTracing
import PostgresClient
import UTCTime

extension NewEvent {
    /// A domain event as the log stores it: its versioned type and JSON payload, business time `occurredAt`. Recorded
    /// inside a sampled trace, its metadata names the trace (`EventMetadata.traceparent`).
    package init(_ event: LedgerEvent, idempotencyKey: String, occurredAt: Instant, metadata: EventMetadata) {
        var metadata = metadata
        if metadata.traceparent == nil { metadata.traceparent = TraceContext.sampledTraceparent() }
        let encoded = event.encoded()
        self.init(
            type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload, metadata: metadata,
            idempotencyKey: idempotencyKey, occurredAt: occurredAt)
    }
}
