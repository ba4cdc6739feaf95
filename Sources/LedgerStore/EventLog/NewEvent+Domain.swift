import LedgerDomain
import PostgresClient
import UTCTime

extension NewEvent {
    /// A domain event as the log stores it: its versioned type and JSON payload, business time `occurredAt`.
    package init(_ event: LedgerEvent, idempotencyKey: String, occurredAt: Instant, metadata: EventMetadata) {
        let encoded = event.encoded()
        self.init(
            type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload, metadata: metadata,
            idempotencyKey: idempotencyKey, occurredAt: occurredAt)
    }
}
