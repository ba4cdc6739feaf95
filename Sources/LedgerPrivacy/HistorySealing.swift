import Crypto
import LedgerDomain
import LedgerStore
import PostgresClient

/// The log's own migration to pseudonyms and sealed fields (docs/erasure.md, "Upgrading"): a log written before
/// schema 025 names users by their app user id and keeps developer payloads and Apple's signed payloads in clear. This
/// rewrites it in place, in the caller's transaction: every user the log names by id gets a fresh pseudonym (the users
/// `LegacyUsers` adopted with their id as pseudonym are renamed, their identity, data key and webhook order with
/// them; a user named only in old events is given an identity now), every event is stored with pseudonyms and sealed
/// fields, user streams take the pseudonym's name, and the hash chain of every stream touched is recomputed by the
/// database's own `ledger.event_hash`; webhook deliveries that name a user by id are sealed as the fan-out seals them.
/// Positions, transaction ids, times and metadata are kept, so readers' checkpoints and invoices' snapshots still mean
/// what they meant. The caller signs the before and after
/// (`LogRewriteStatement`) and rebuilds the read models.
package enum HistorySealing {
    package struct Outcome: Sendable, Equatable {
        /// Users renamed from their id to a pseudonym (adopted before, or named only in old events).
        package var usersRenamed: Int
        package var eventsRewritten: Int
        package var streamsRechained: Int
        /// Webhook deliveries that named their user by id with the body in clear, now by pseudonym and sealed.
        package var deliveriesSealed: Int
        /// Per app: each id the log named and the pseudonym that replaced it (what the operator record is renamed by).
        package var pseudonyms: [String: [String: String]]
    }

    static let page = 2_000

    /// Adopts the users the log names by id (`LegacyUsers`), if no process did yet: before the rewrite's transaction,
    /// since the adoption commits a transaction of its own.
    package static func adoptLegacyUsers(box: SecretBox, on connection: PostgresConnection) throws {
        _ = try IdentityStore.ready(box: box, on: connection)
    }

    /// Rewrites the log; the caller's transaction must hold `ledger.events` exclusively (no append may run meanwhile),
    /// and the legacy users must be adopted (`adoptLegacyUsers`).
    package static func rewrite(box: SecretBox, on connection: PostgresConnection) throws -> Outcome {
        var names = try Names.load(box: box, on: connection)
        var keys = PurchaseKeys(
            box: box,
            known: try Set(
                connection.query("SELECT app_id || ' ' || key_id FROM ledger.data_keys").map {
                    try $0.decode(String.self, at: 0)
                }))
        try connection.execute("ALTER TABLE ledger.events DISABLE TRIGGER events_refuse_update_delete")
        var rewritten = 0
        var streams: Set<StreamName> = []
        var after: Int64 = 0
        while true {
            let events = try EventStore.readByPosition(on: connection, app: nil, after: after, limit: page)
            guard let last = events.last else { break }
            after = last.position
            var changes: [Change] = []
            for recorded in events {
                guard let change = try change(of: recorded, names: &names, keys: &keys, on: connection) else { continue }
                changes.append(change)
                streams.insert(StreamName(app: recorded.appID, stream: change.stream))
            }
            try apply(changes, on: connection)
            rewritten += changes.count
        }
        try rechain(streams.sorted(), on: connection)
        try connection.execute("ALTER TABLE ledger.events ENABLE TRIGGER events_refuse_update_delete")
        let deliveries = try sealDeliveries(names: &names, box: box, on: connection)
        return Outcome(
            usersRenamed: names.renamedCount, eventsRewritten: rewritten, streamsRechained: streams.count, deliveriesSealed: deliveries,
            pseudonyms: names.renamed)
    }

    /// Webhook deliveries written before their bodies were sealed (`WebhookFanOut`): each names its user by pseudonym
    /// from now on, its body (which names the id) sealed under the user's data key, as the fan-out writes them today.
    static func sealDeliveries(names: inout Names, box: SecretBox, on connection: PostgresConnection) throws -> Int {
        let named = try connection.query(
            "SELECT DISTINCT app_id, app_user_id FROM ledger.webhook_deliveries WHERE app_user_id IS NOT NULL ORDER BY 1, 2"
        ).map { (app: try $0.decode(String.self, at: 0), id: try $0.decode(String.self, at: 1)) }
        var sealed = 0
        for user in named {
            guard let pseudonym = try names.pseudonym(app: user.app, for: user.id, on: connection) else { continue }
            let key = try DataKeyStore.key(app: user.app, subject: "user:" + pseudonym, box: box, on: connection)
            let rows = try connection.query(
                """
                SELECT endpoint_id, delivery_id, payload FROM ledger.webhook_deliveries WHERE app_id = \(user.app) AND app_user_id = \(user.id)
                """
            ).map {
                (endpoint: try $0.decode(String.self, at: 0), delivery: try $0.decode(String.self, at: 1), body: try $0.decode(String.self, at: 2))
            }
            try connection.query(
                """
                UPDATE ledger.webhook_deliveries d SET app_user_id = \(pseudonym), payload = r.payload
                FROM unnest(\(TextArray(rows.map(\.endpoint))), \(TextArray(rows.map(\.delivery))),
                            \(TextArray(try rows.map { try SealedFields.seal($0.body, under: key) }))) AS r(endpoint_id, delivery_id, payload)
                WHERE d.app_id = \(user.app) AND d.endpoint_id = r.endpoint_id AND d.delivery_id = r.delivery_id
                """)
            sealed += rows.count
        }
        return sealed
    }

    struct StreamName: Hashable, Comparable {
        var app: String
        var stream: String
        static func < (a: Self, b: Self) -> Bool { (a.app, a.stream) < (b.app, b.stream) }
    }

    struct Change {
        var app: String
        var position: Int64
        var stream: String
        var schemaVersion: Int32
        var payload: String
        var idempotencyKey: String
    }

    /// The event as it is stored from now on; nil when it already is (named by pseudonyms, fields sealed).
    static func change(of recorded: RecordedEvent, names: inout Names, keys: inout PurchaseKeys, on connection: PostgresConnection) throws
        -> Change?
    {
        let event: LedgerEvent
        do {
            event = try LedgerEvent.decode(type: recorded.type, schemaVersion: recorded.schemaVersion, payload: recorded.payload)
        } catch {
            throw PrivacyError.sealing("event \(recorded.position) (\(recorded.type)) cannot be read: \(error)")
        }
        let app = recorded.appID
        var renamed: [String: String] = [:]
        for id in Set(event.userIDs) {
            if let pseudonym = try names.pseudonym(app: app, for: id, on: connection) { renamed[id] = pseudonym }
        }
        let named = renamed.isEmpty ? event : event.mappingUserIDs { renamed[$0] ?? $0 }
        let sealed = try named.personalFields.map { field in
            keys.isSealed(app: app, field.value)
                ? field.value : try SealedFields.seal(field.value, under: keys.key(app: app, purchase: field.purchase, on: connection))
        }
        var next = sealed.makeIterator()
        let stored = sealed.isEmpty ? named : named.mappingPersonalFields { _ in next.next()! }
        var stream = recorded.streamID
        if stream.hasPrefix("user:"), let pseudonym = try names.pseudonym(app: app, for: String(stream.dropFirst(5)), on: connection) {
            stream = "user:" + pseudonym
        }
        guard stored != event || stream != recorded.streamID else { return nil }
        let encoded = stored.encoded()
        guard encoded.type == recorded.type else {
            throw PrivacyError.sealing("event \(recorded.position) (\(recorded.type)) would be stored as \(encoded.type)")
        }
        var key = recorded.idempotencyKey
        if key == event.idempotencyKey {
            key = stored.idempotencyKey
        } else {  // appended under a key of its own (an import): the ids in it, where a key names them between colons
            for (id, pseudonym) in renamed { key = key.replacing(":\(id):", with: ":\(pseudonym):") }
        }
        return Change(
            app: app, position: recorded.position, stream: stream, schemaVersion: encoded.schemaVersion, payload: encoded.payload,
            idempotencyKey: key)
    }

    static func apply(_ changes: [Change], on connection: PostgresConnection) throws {
        guard !changes.isEmpty else { return }
        try connection.query(
            """
            UPDATE ledger.events e
            SET stream_id = c.stream_id, schema_version = c.schema_version::integer, payload = c.payload::jsonb,
                idempotency_key = c.idempotency_key
            FROM unnest(\(TextArray(changes.map(\.app))), \(Int64Array(changes.map(\.position))), \(TextArray(changes.map(\.stream))),
                        \(Int64Array(changes.map { Int64($0.schemaVersion) })), \(TextArray(changes.map(\.payload))),
                        \(TextArray(changes.map(\.idempotencyKey))))
                AS c(app_id, position, stream_id, schema_version, payload, idempotency_key)
            WHERE e.app_id = c.app_id AND e.position = c.position
            """)
    }

    /// Recomputes the chain of `streams` from their first version, as the insert trigger computed it.
    static func rechain(_ streams: [StreamName], on connection: PostgresConnection) throws {
        for start in stride(from: 0, to: streams.count, by: 1_000) {
            let part = streams[start..<min(start + 1_000, streams.count)]
            try connection.query(
                """
                WITH RECURSIVE chained AS (
                    SELECT e.app_id, e.position, e.stream_id, e.stream_version, decode(repeat('00', 32), 'hex') AS previous_hash,
                           ledger.event_hash(decode(repeat('00', 32), 'hex'), e.app_id, e.position, e.stream_id, e.stream_version, e.event_type,
                               e.schema_version, e.payload, e.metadata, e.idempotency_key, e.occurred_at, e.recorded_at) AS hash
                    FROM unnest(\(TextArray(part.map(\.app))), \(TextArray(part.map(\.stream)))) AS s(app_id, stream_id)
                    JOIN ledger.events e ON e.app_id = s.app_id AND e.stream_id = s.stream_id AND e.stream_version = 1
                  UNION ALL
                    SELECT e.app_id, e.position, e.stream_id, e.stream_version, c.hash,
                           ledger.event_hash(c.hash, e.app_id, e.position, e.stream_id, e.stream_version, e.event_type,
                               e.schema_version, e.payload, e.metadata, e.idempotency_key, e.occurred_at, e.recorded_at)
                    FROM chained c
                    JOIN ledger.events e ON e.app_id = c.app_id AND e.stream_id = c.stream_id AND e.stream_version = c.stream_version + 1
                )
                UPDATE ledger.events e SET previous_hash = c.previous_hash, hash = c.hash
                FROM chained c
                WHERE e.app_id = c.app_id AND e.position = c.position
                  AND (e.previous_hash, e.hash) IS DISTINCT FROM (c.previous_hash, c.hash)
                """)
        }
    }

    /// Who the log names by id, and their pseudonyms from now on.
    struct Names {
        let box: SecretBox
        let indexKey: SymmetricKey
        /// Per app: every pseudonym an identity has (after the renaming), which events keep.
        var pseudonyms: [String: Set<String>]
        /// Per app: id → pseudonym, for the ids the log named (adopted users renamed, others found or made).
        var renamed: [String: [String: String]]
        var renamedCount: Int { renamed.values.reduce(0) { $0 + $1.count } }

        /// Renames the users adopted with their id as pseudonym: their identity, the subject of their data key, and the
        /// order key of their webhook deliveries.
        static func load(box: SecretBox, on connection: PostgresConnection) throws -> Names {
            guard try !connection.query("SELECT 1 FROM ledger.keyring WHERE name = \(LegacyUsers.marker)").isEmpty else {
                throw PrivacyError.sealing("the users named before pseudonyms are not adopted: adoptLegacyUsers comes before the rewrite")
            }
            let indexKey = try IdentityStore.indexKey(box: box, on: connection)
            var names = Names(box: box, indexKey: indexKey, pseudonyms: [:], renamed: [:])
            let adopted = try connection.query(
                "SELECT app_id, pseudonym FROM ledger.identities WHERE pseudonym !~ '^usr_[0-9a-f]{24}$' ORDER BY app_id, pseudonym"
            ).map { (app: try $0.decode(String.self, at: 0), id: try $0.decode(String.self, at: 1)) }
            for start in stride(from: 0, to: adopted.count, by: 1_000) {
                let part = adopted[start..<min(start + 1_000, adopted.count)]
                let fresh = part.map { _ in RandomToken.identifier(prefix: "usr_") }
                for (user, pseudonym) in zip(part, fresh) { names.renamed[user.app, default: [:]][user.id] = pseudonym }
                try connection.query(
                    """
                    WITH r AS (
                        SELECT * FROM unnest(\(TextArray(part.map(\.app))), \(TextArray(part.map(\.id))), \(TextArray(fresh)))
                            AS r(app_id, old, new)
                    ), identities AS (
                        UPDATE ledger.identities i SET pseudonym = r.new FROM r WHERE i.app_id = r.app_id AND i.pseudonym = r.old
                    ), keys AS (
                        UPDATE ledger.data_keys k SET subject = 'user:' || r.new FROM r
                        WHERE k.app_id = r.app_id AND k.subject = 'user:' || r.old
                    )
                    UPDATE ledger.webhook_deliveries d SET order_key = 'user:' || r.new FROM r
                    WHERE d.app_id = r.app_id AND d.order_key = 'user:' || r.old
                    """)
            }
            for row in try connection.query("SELECT app_id, pseudonym FROM ledger.identities") {
                names.pseudonyms[try row.decode(String.self, at: 0), default: []].insert(try row.decode(String.self, at: 1))
            }
            for (app, renamed) in names.renamed { names.pseudonyms[app, default: []].formUnion(renamed.values) }
            return names
        }

        /// The pseudonym that replaces `id` in the log; nil when `id` is a pseudonym already. An id no identity has
        /// (a user the log named only in events no read model keeps: a past owner) is found by its blind index (named
        /// again since the upgrade) or given an identity now.
        mutating func pseudonym(app: String, for id: String, on connection: PostgresConnection) throws -> String? {
            if let known = renamed[app]?[id] { return known }
            if pseudonyms[app]?.contains(id) == true { return nil }
            let index = IdentityStore.blindIndex(app: app, user: id, key: indexKey)
            let pseudonym =
                try IdentityStore.find(app: app, index: index, on: connection)
                ?? IdentityStore.insert(app: app, user: id, index: index, box: box, on: connection)
            renamed[app, default: [:]][id] = pseudonym
            pseudonyms[app, default: []].insert(pseudonym)
            return pseudonym
        }
    }

    /// Purchases' data keys, made where a purchase has none yet, and the keys that existed before the rewrite (a field
    /// sealed under one of them is sealed already; one that merely starts like a sealed field is not).
    struct PurchaseKeys {
        let box: SecretBox
        /// `app key_id` of every data key before the rewrite.
        let known: Set<String>
        var keys: [String: (id: String, key: SymmetricKey)?] = [:]

        init(box: SecretBox, known: Set<String>) { (self.box, self.known) = (box, known) }

        func isSealed(app: String, _ value: String) -> Bool {
            value == SealedFields.destroyed || SealedFields.parts(value).map { known.contains(app + " " + $0.keyID) } == true
        }

        mutating func key(app: String, purchase: String, on connection: PostgresConnection) throws -> (id: String, key: SymmetricKey)? {
            let name = app + " " + purchase
            if let found = keys[name] { return found }
            let key = try DataKeyStore.key(app: app, subject: SealedFields.subject(purchase), box: box, on: connection)
            keys[name] = key
            return key
        }
    }
}
