import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import Logging
import PostgresClient

/// What the fan-out knows of one event for a webhook payload. The payload's JSON is the API's (the server renders
/// it, `WebhookFanOut.Renderer`); this is its input.
package struct WebhookChange: Sendable {
    package var event: DomainEvent
    /// The event's type as stored in the log (`ledger events` and the timeline show the same).
    package var type: String
    /// The purchase the event is about; nil for an event about the user alone (a support grant).
    package var originalTransactionID: String?
    /// The owner, as the app names them (the log names them by pseudonym; an erased user stays their pseudonym).
    package var appUserID: String?
    /// `production` or `sandbox` (Xcode and local testing count as sandbox); nil while unknown.
    package var environment: String?
    /// The purchase's state right after the event, folded from its stream through the event: exactly one of the two.
    package var subscription: SubscriptionSummary?
    package var purchase: PurchaseSummary?
    /// For a grant event, the grant right after it, folded from the user's stream through the event.
    package var grant: GrantSummary?
    /// What the owner holds: this purchase (or the user's grants) as of the event, the rest as the read models hold
    /// them when the delivery is made.
    package var owned: OwnedSummaries
    package var catalog: [ProductRecord]
}

/// The numbers a payload carries besides the change.
package struct WebhookEnvelope: Sendable {
    package var deliveryID: String
    package var sequence: Int64
    package var previousSequence: Int64?
}

/// Turns the log into webhook deliveries, a batch per transaction, behind the projections.
///
/// Each batch, in one transaction: takes the fan-out's advisory lock (one instance fans out at a time), reads the
/// next events in commit-safe order that both purchase projections have applied, and writes one delivery per
/// (event, enabled endpoint of the event's app that wants its type and environment and existed when it was
/// recorded), with the payload rendered once for every attempt, then its checkpoint. Events about a purchase or a
/// user's grants are sent; others (notification records, app-level notifications, consent) are not.
package struct WebhookFanOut: Sendable {
    package typealias Renderer = @Sendable (WebhookChange, WebhookEnvelope) throws -> String

    /// The channel a batch that made deliveries notifies at commit, to wake the dispatchers.
    package static let channel = "ledger_webhooks"
    static let lockKey = "ledger.webhooks.fanout"
    static let projections = [SubscriptionStatusReducer.name, PurchaseRecordReducer.name, GrantsReducer.name]

    let pool: PostgresPool
    let identities: IdentityStore
    let render: Renderer
    let batchSize: Int
    /// The deliveries and attempts tables start empty: analyzed once they have rows, so that the statements on them
    /// are planned by key from the first minute (`FirstStatistics`).
    let statistics = FirstStatistics(tables: ["ledger.webhook_deliveries", "ledger.webhook_attempts"])

    package init(pool: PostgresPool, identities: IdentityStore, batchSize: Int = 500, render: @escaping Renderer) {
        self.pool = pool
        self.identities = identities
        self.batchSize = batchSize
        self.render = render
    }

    /// Runs batches until caught up with the projections; returns how many deliveries were made.
    @discardableResult
    package func catchUp() async throws -> Int {
        var made = 0
        while true {
            let (events, deliveries) = try await pool.withConnection { [self] connection in try batch(on: connection) }
            made += deliveries
            if events < batchSize { break }
        }
        if made > 0, !statistics.isDone {
            // Not the fan-out's failure if it cannot (autovacuum will analyze them in time).
            try? await pool.withConnection { [statistics] connection in try statistics.analyze(on: connection) }
        }
        return made
    }

    /// One batch: (events read, deliveries made).
    func batch(on connection: PostgresConnection) throws -> (Int, Int) {
        try connection.transaction { connection in
            guard
                try connection.query(prepared: "SELECT pg_try_advisory_xact_lock(hashtext(\(Self.lockKey)))")
                    .first?.decode(Bool.self, at: 0) ?? false
            else { return (0, 0) }
            let checkpoint =
                try connection.query(prepared: "SELECT transaction_id, position FROM ledger.webhook_fanout").first
                .map { LogCheckpoint(transactionID: try $0.decode(UInt64.self, at: 0), position: try $0.decode(Int64.self, at: 1)) } ?? .start
            // Behind the per-user projections: the payload reads the owner's other purchases and grants from them.
            // Only the events of apps with an enabled endpoint can make a delivery, so only those are read; while no
            // endpoint is enabled none is, and the checkpoint moves to the slower projection's (read in the same
            // snapshot, each once its batch's rows are visible on every node: schema/036). Otherwise a ledger
            // without webhooks read its whole log once at its first start (a core's worth of work for minutes on a
            // large log), and one app's endpoint made the fan-out read every app's.
            let frontier = try connection.query(
                prepared: """
                    SELECT count(*) OVER (), out_transaction_id, out_position,
                           ARRAY(SELECT DISTINCT app_id FROM ledger.webhook_endpoints WHERE status = 'enabled' ORDER BY app_id)
                    FROM ledger.visible_projection_checkpoints(\(TextArray(Self.projections)))
                    ORDER BY out_transaction_id, out_position LIMIT 1
                    """)
            guard let row = frontier.first, try row.decode(Int64.self, at: 0) == Int64(Self.projections.count) else { return (0, 0) }
            let slowest = LogCheckpoint(transactionID: try row.decode(UInt64.self, at: 1), position: try row.decode(Int64.self, at: 2))
            let apps = try row.decode(TextArray.self, at: 3).elements
            let events =
                apps.isEmpty
                ? []
                : try ProjectionRunner<SubscriptionsReadModel>.nextEvents(
                    after: checkpoint, before: slowest.transactionID + 1, limit: batchSize, apps: apps, on: connection)
            let deliveries = events.isEmpty ? [] : try deliveries(for: events, on: connection)
            if !deliveries.isEmpty {
                try insert(deliveries, on: connection)
                try connection.query(prepared: "SELECT pg_notify(\(Self.channel), '')")
            }
            // A full read ends at its last event; a short one saw every event of those apps up to the frontier (the
            // projections' batches end with whole transactions), so the checkpoint moves there.
            let through =
                if let last = events.last, events.count >= batchSize { last.checkpoint } else {
                    max(slowest, events.last?.checkpoint ?? slowest)
                }
            if through > checkpoint { try save(through, on: connection) }
            return (events.count, deliveries.count)
        }
    }

    private func save(_ checkpoint: LogCheckpoint, on connection: PostgresConnection) throws {
        try connection.query(
            prepared: """
                INSERT INTO ledger.webhook_fanout (singleton, transaction_id, position, updated_at)
                VALUES (true, \(TransactionIDValue(value: checkpoint.transactionID)), \(checkpoint.position), now())
                ON CONFLICT (singleton) DO UPDATE SET transaction_id = EXCLUDED.transaction_id, position = EXCLUDED.position,
                    updated_at = EXCLUDED.updated_at
                """)
    }

    struct Row {
        var appID: String
        var endpointID: String
        var deliveryID: String
        var position: Int64
        var eventType: String
        var appUserID: String?
        var orderKey: String
        var sequence: Int64
        var previousSequence: Int64?
        var payload: String
        var traceparent: String?
    }

    private func deliveries(for events: [RecordedEvent], on connection: PostgresConnection) throws -> [Row] {
        let apps = Set(events.map(\.appID)).sorted()
        let endpoints = Dictionary(
            grouping: try connection.query(
                prepared: """
                    SELECT \(unescaped: WebhookStore.endpointColumns) FROM ledger.webhook_endpoints
                    WHERE app_id = ANY(\(TextArray(apps))) AND status = 'enabled'
                    """
            ).map(WebhookStore.endpoint), by: \.appID)
        guard !endpoints.isEmpty else { return [] }
        // The events to send: about a purchase or a user's grants, in an app with an endpoint that existed when they
        // were recorded; one per purchase an event names (only an identity event recorded before they were split names
        // several).
        let wanted: [(recorded: RecordedEvent, event: DomainEvent, subject: Subject)] = events.flatMap { recorded in
            guard let candidates = endpoints[recorded.appID], candidates.contains(where: { $0.createdAt <= recorded.recordedAt }),
                let event = DomainEventDecoding.decode(recorded)
            else { return [(RecordedEvent, DomainEvent, Subject)]() }
            return Self.subjects(event).map { (recorded, event, $0) }
        }
        guard !wanted.isEmpty else { return [] }
        let streams = try streamEvents(Set(wanted.map { StateKey(appID: $0.recorded.appID, key: $0.subject.stream) }), on: connection)
        // First each change as of its event (folded from its stream), then what the batch's owners hold now and who they
        // are, read once for the batch (a statement each, not one per delivery), then the payloads.
        var changes: [(recorded: RecordedEvent, subject: Subject, change: WebhookChange, targets: [WebhookEndpoint])] = []
        for (recorded, event, subject) in wanted {
            var history = (streams[StateKey(appID: recorded.appID, key: subject.stream)] ?? []).filter { $0.position <= event.position }
            if !history.contains(where: { $0.position == event.position }) {
                history.append(event)  // an unsplit identity event lies in its first purchase's stream only
            }
            var change = WebhookChange(
                event: event, type: recorded.type, originalTransactionID: nil, appUserID: nil, environment: nil,
                subscription: nil, purchase: nil, grant: nil, owned: OwnedSummaries(), catalog: [])
            switch subject {
            case .purchase(let key):
                change.originalTransactionID = key
                switch Self.purchaseKind(key: key, event: event, history: history) {
                case .subscription(let status):
                    (change.subscription, change.appUserID) = (status.summary, status.ownerUserID)
                    change.environment = status.summary.environment.map(Self.endpointEnvironment)
                case .oneTime(let record):
                    (change.purchase, change.appUserID) = (record.summary, record.ownerUserID)
                    change.environment = record.details.map { Self.endpointEnvironment($0.environment) }
                }
            case .user(let id):
                // A grant has no environment: every endpoint that wants its type gets it.
                let grants = fold(GrantsReducer.self, key: id, events: history, asOf: nil).summaries
                change.appUserID = id
                change.grant = grants.first { $0.grantID == Self.grantID(of: event) }
                change.owned.grants = grants
            }
            let targets = (endpoints[recorded.appID] ?? []).filter {
                $0.createdAt <= recorded.recordedAt && $0.accepts(type: recorded.type, environment: change.environment)
            }
            if !targets.isEmpty { changes.append((recorded, subject, change, targets)) }
        }
        var held: [String: [String: OwnedSummaries]] = [:]
        var userIDs: [String: [String: String]] = [:]
        for (app, appChanges) in Dictionary(grouping: changes, by: \.recorded.appID) {
            let owners = Set(appChanges.compactMap(\.change.appUserID))
            held[app] = try UserQueries.summaries(app: app, owners: owners, on: connection).byOwner
            userIDs[app] = try identities.userIDs(app: app, pseudonyms: owners, on: connection)
        }
        var sequences = try SequenceCounter.read(
            changes.flatMap { change in
                change.targets.map { target in
                    SequenceCounter.Key(
                        endpoint: .init(app: change.recorded.appID, endpoint: target.endpointID),
                        key: Self.orderKey(change.change.appUserID, change.subject))
                }
            }, on: connection)
        var catalogs: [String: [ProductRecord]] = [:]
        var rows: [Row] = []
        for (recorded, subject, var change, targets) in changes {
            let pseudonym = change.appUserID
            // The body names the user by their id while they exist, so it is stored sealed under their data key (opened
            // by `WebhookStore` where it is sent or shown; unreadable once they are erased); the row names the pseudonym.
            var sealedFor: String?
            if let owner = pseudonym {
                let others = (held[recorded.appID]?[owner] ?? OwnedSummaries()).excluding(Set([change.originalTransactionID].compactMap { $0 }))
                change.owned.subscriptions = others.subscriptions + (change.subscription.map { [$0] } ?? [])
                change.owned.purchases = others.purchases + (change.purchase.map { [$0] } ?? [])
                if case .purchase = subject { change.owned.grants = others.grants }
                let id = userIDs[recorded.appID]?[owner]
                (change.appUserID, sealedFor) = (id ?? owner, id == nil ? nil : owner)
            }
            if catalogs[recorded.appID] == nil {
                catalogs[recorded.appID] = try connection.query(
                    prepared: """
                        SELECT \(unescaped: TenancyStore.productColumns) FROM ledger.products WHERE app_id = \(recorded.appID) ORDER BY product_id
                        """
                ).map(TenancyStore.product)
            }
            change.catalog = catalogs[recorded.appID] ?? []
            let orderKey = Self.orderKey(pseudonym, subject)
            for endpoint in targets {
                let (sequence, previous) = sequences.next(.init(endpoint: .init(app: recorded.appID, endpoint: endpoint.endpointID), key: orderKey))
                let envelope = WebhookEnvelope(deliveryID: RandomToken.identifier(prefix: "msg_"), sequence: sequence, previousSequence: previous)
                let body = try render(change, envelope)
                rows.append(
                    Row(
                        appID: recorded.appID, endpointID: endpoint.endpointID, deliveryID: envelope.deliveryID,
                        position: recorded.position, eventType: recorded.type, appUserID: pseudonym, orderKey: orderKey,
                        sequence: sequence, previousSequence: previous,
                        payload: try sealedFor.map { try identities.sealed(body, app: recorded.appID, pseudonym: $0, on: connection) } ?? body,
                        traceparent: recorded.traceparent))
            }
        }
        return rows
    }

    /// The key a delivery is ordered by among an endpoint's: its owner (by pseudonym), else its purchase or user stream.
    static func orderKey(_ owner: String?, _ subject: Subject) -> String { owner.map { "user:" + $0 } ?? subject.stream }

    /// What one delivery of an event is about, and the stream that holds its history.
    enum Subject {
        case purchase(String)
        case user(String)

        var stream: String {
            switch self {
            case .purchase(let key): LedgerStreams.purchase(originalTransactionID: key)
            case .user(let id): LedgerStreams.user(appUserID: id)
            }
        }
    }

    /// What an event is about: the purchases the purchase projections key it by, or the user whose grants it changes
    /// (none: about neither).
    static func subjects(_ event: DomainEvent) -> [Subject] {
        let keys = Set(SubscriptionStatusReducer.keys(for: event) + PurchaseRecordReducer.keys(for: event)).sorted()
        return keys.map(Subject.purchase) + GrantsReducer.keys(for: event).map(Subject.user)
    }

    static func grantID(of event: DomainEvent) -> String? {
        switch event.event {
        case .grantGiven(let grant): grant.grantID
        case .grantRevoked(let revocation): revocation.grantID
        default: nil
        }
    }

    enum PurchaseKind {
        case subscription(SubscriptionStatus)
        case oneTime(PurchaseRecord)
    }

    /// Whether the purchase is an auto-renewable subscription, as its stream through the event says. A refund,
    /// revocation, link or transfer names an original transaction id without saying which kind it is (both reducers
    /// take it): the kind is that of the purchase its stream records; of a purchase not recorded yet, one-time.
    static func purchaseKind(key: String, event: DomainEvent, history: [DomainEvent]) -> PurchaseKind {
        let takesSubscription = SubscriptionStatusReducer.keys(for: event).contains(key)
        let takesOneTime = PurchaseRecordReducer.keys(for: event).contains(key)
        if takesSubscription {
            let status = fold(SubscriptionStatusReducer.self, key: key, events: history, asOf: nil)
            if status.isKnown || !takesOneTime { return .subscription(status) }
        }
        return .oneTime(fold(PurchaseRecordReducer.self, key: key, events: history, asOf: nil))
    }

    /// The environment an endpoint subscribes to: Apple's production, or anything else (sandbox, Xcode, local testing).
    static func endpointEnvironment(_ environment: StoreEnvironment) -> String {
        environment.isProduction ? "production" : "sandbox"
    }

    /// Every event of the streams (by app and stream id), decoded, in position order.
    private func streamEvents(_ streams: Set<StateKey>, on connection: PostgresConnection) throws -> [StateKey: [DomainEvent]] {
        var events: [StateKey: [DomainEvent]] = [:]
        for (appID, appStreams) in Dictionary(grouping: streams, by: \.appID) {
            let recorded = try EventColumns.decode(
                connection.query(
                    prepared: """
                        SELECT \(unescaped: EventColumns.listSkippingRecords) FROM ledger.events
                        WHERE app_id = \(appID) AND stream_id = ANY(\(TextArray(appStreams.map(\.key).sorted()))) ORDER BY position
                        """))
            for row in recorded {
                guard let event = DomainEventDecoding.decode(row) else { continue }
                events[StateKey(appID: appID, key: row.streamID), default: []].append(event)
            }
        }
        return events
    }

    /// Per (endpoint, order key) sequence numbers: the stored last ones, read once for the batch, then counted in
    /// memory through it.
    struct SequenceCounter {
        struct Endpoint: Hashable {
            var app: String
            var endpoint: String
        }

        struct Key: Hashable {
            var endpoint: Endpoint
            var key: String
        }

        private var last: [Key: Int64] = [:]

        /// The stored last sequence of each (app, endpoint, order key): one statement per endpoint, each key's
        /// newest read backwards from the sequence index.
        static func read(_ keys: [Key], on connection: PostgresConnection) throws -> SequenceCounter {
            var counter = SequenceCounter()
            for (endpoint, group) in Dictionary(grouping: keys, by: \.endpoint) {
                let rows = try connection.query(
                    prepared: """
                        SELECT k.key, (SELECT d.sequence FROM ledger.webhook_deliveries d
                                       WHERE d.app_id = \(endpoint.app) AND d.endpoint_id = \(endpoint.endpoint) AND d.order_key = k.key
                                       ORDER BY d.sequence DESC LIMIT 1)
                        FROM unnest(\(TextArray(Set(group.map(\.key)).sorted()))) AS k(key)
                        """)
                for row in rows {
                    if let sequence = try row.decode(Int64?.self, at: 1) {
                        counter.last[Key(endpoint: endpoint, key: try row.decode(String.self, at: 0))] = sequence
                    }
                }
            }
            return counter
        }

        /// The next sequence of the key and the one before it (nil for the key's first delivery).
        mutating func next(_ key: Key) -> (Int64, Int64?) {
            let previous = last[key]
            let next = (previous ?? 0) + 1
            last[key] = next
            return (next, previous)
        }
    }

    private func insert(_ rows: [Row], on connection: PostgresConnection) throws {
        try connection.query(
            prepared: """
                INSERT INTO ledger.webhook_deliveries (app_id, endpoint_id, delivery_id, position, event_type, app_user_id, order_key,
                    sequence, previous_sequence, payload, traceparent)
                SELECT a, e, d, p, t, NULLIF(u, ''), k, s, ps, body, NULLIF(tp, '')
                FROM unnest(\(TextArray(rows.map(\.appID))), \(TextArray(rows.map(\.endpointID))), \(TextArray(rows.map(\.deliveryID))),
                            \(Int64Array(rows.map(\.position))), \(TextArray(rows.map(\.eventType))), \(TextArray(rows.map { $0.appUserID ?? "" })),
                            \(TextArray(rows.map(\.orderKey))), \(Int64Array(rows.map(\.sequence))),
                            \(NullableInt64Array(rows.map(\.previousSequence))), \(TextArray(rows.map(\.payload))),
                            \(TextArray(rows.map { $0.traceparent ?? "" })))
                    AS r(a, e, d, p, t, u, k, s, ps, body, tp)
                ON CONFLICT DO NOTHING
                """)
    }
}
