import LedgerDomain
import PostgresClient
import UTCTime

/// Reads for the per-user views: the summaries of the per-transaction states an app user owns (from the read
/// models' typed columns, so they may lag the log by one batch) and the events of those transactions and of the
/// user's own stream (the user's audit timeline).
///
/// The log and the read models name users by pseudonym (docs/erasure.md), so these reads take pseudonyms, except the
/// status read (`summaries(app:userIndex:)`), which takes the blind index of the app's user id and finds the
/// pseudonym in its one statement.
public struct UserQueries: Sendable {
    public let pool: PostgresPool
    /// With it, status reads in flight share statements (`StatusReadBatcher`): the API's reads.
    let statusReads: StatusReadBatcher?

    /// `batchingStatusReads`: status reads go through one `StatusReadBatcher` of this value's own (the API's reads;
    /// make one such value per pool and share it).
    public init(pool: PostgresPool, batchingStatusReads: Bool = false) {
        self.pool = pool
        self.statusReads = batchingStatusReads ? StatusReadBatcher(pool: pool) : nil
    }

    /// The app users (pseudonyms) a search names: `pseudonym` (the pseudonym of the app user id searched for, when
    /// there is one) if they own something or hold a grant, or the owner of an original transaction id or a
    /// transaction id (the latest of a subscription, a one-time purchase's, or a month's paying transaction).
    package func findOwners(app appID: String, query: String, pseudonym: String?) async throws -> [String] {
        let pseudonym = pseudonym ?? ""
        let rows = try await pool.query(
            """
            SELECT DISTINCT owner_app_user_id FROM (
                SELECT owner_app_user_id FROM ledger.subscriptions WHERE app_id = \(appID)
                    AND (owner_app_user_id = \(pseudonym) OR original_transaction_id = \(query) OR latest_transaction_id = \(query))
                UNION ALL
                SELECT owner_app_user_id FROM ledger.purchases WHERE app_id = \(appID)
                    AND (owner_app_user_id = \(pseudonym) OR original_transaction_id = \(query) OR transaction_id = \(query))
                UNION ALL
                SELECT s.owner_app_user_id FROM ledger.paying_users p JOIN ledger.subscriptions s
                    ON s.app_id = p.app_id AND s.original_transaction_id = p.original_transaction_id
                    WHERE p.app_id = \(appID) AND p.transaction_id = \(query)
                UNION ALL
                SELECT app_user_id FROM ledger.user_grants WHERE app_id = \(appID) AND app_user_id = \(pseudonym)
            ) found WHERE owner_app_user_id IS NOT NULL ORDER BY 1 LIMIT 50
            """)
        return try rows.map { try $0.decode(String.self, at: 0) }
    }

    /// What the per-user views read of the subscriptions and purchases owned by any of `owners` and of their grants:
    /// one prepared statement on the typed columns (`ownedSummariesSQL`).
    public func summaries(app appID: String, owners: Set<String>) async throws -> OwnedSummaries {
        try await pool.withConnection { connection in try Self.summaries(app: appID, owners: owners, on: connection) }
    }

    /// The summaries of what the user whose id has the blind index `userIndex` owns (`IdentityStore.blindIndex`): one
    /// prepared statement that finds the pseudonym and reads the summaries (`ownedByIndexSQL`); empty for a user never
    /// named.
    public func summaries(app appID: String, userIndex: [UInt8]) async throws -> OwnedSummaries {
        if let statusReads { return try await statusReads.summaries(app: appID, userIndex: userIndex) }
        return try await pool.withConnection { connection in try Self.summaries(app: appID, userIndex: userIndex, on: connection) }
    }

    /// `summaries(app:userIndex:)` on a connection the caller holds, as a statement of its own.
    static func summaries(app appID: String, userIndex: [UInt8], on connection: PostgresConnection) throws -> OwnedSummaries {
        try decode(try connection.query(prepared: statusReadQuery(app: appID, userIndex: userIndex)))
    }

    /// `summaries(app:owners:)` on a connection the caller holds (the webhook fan-out, in its transaction).
    package static func summaries(app appID: String, owners: Set<String>, on connection: PostgresConnection)
        throws -> OwnedSummaries
    {
        guard !owners.isEmpty else { return OwnedSummaries() }
        // One owner (every status read) compares with `=`: PostgreSQL then keeps one generic plan for the prepared
        // statement. With `= ANY($2)` it judged the generic plan (an array of unknown length) dearer than a plan
        // for the actual one-element array and planned again on every call.
        let query =
            if owners.count == 1, let owner = owners.first {
                PostgresQuery(unsafeSQL: ownedByOneSQL, bindings: [appID.postgresValue, owner.postgresValue])
            } else {
                PostgresQuery(
                    unsafeSQL: ownedByAnySQL,
                    bindings: [appID.postgresValue, TextArray(owners.sorted()).postgresValue])
            }
        return try decode(try connection.query(prepared: query))
    }

    static func decode(_ rows: PostgresRows) throws -> OwnedSummaries {
        var owned = OwnedSummaries()
        for row in rows { try add(row, from: 0, to: &owned) }
        return owned
    }

    /// Adds one row of `ownedSummariesSQL`'s layout, its flag at column `first`, to `owned`.
    static func add(_ row: PostgresRow, from first: Int, to owned: inout OwnedSummaries) throws {
        var cells = PostgresRowCursor(row, from: first)
        switch try cells.next(Bool?.self) {
        case true?:
            owned.subscriptions.append(try SubscriptionsReadModel.summary(&cells))
        case false?:
            cells = PostgresRowCursor(row, from: first + 1 + SubscriptionsReadModel.summaryColumns.count)
            owned.purchases.append(try PurchasesReadModel.summary(&cells))
        case nil:
            let text = try row.decode(
                String.self, at: first + 1 + SubscriptionsReadModel.summaryColumns.count + PurchasesReadModel.summaryColumns.count)
            owned.grants += try GrantsReadModel.summaries(text)
        }
    }

    /// The one statement of a status read: the summaries of what the user with the blind index `userIndex` owns in
    /// `app` (`ownedByIndexSQL`). Public so the benchmarks can time PostgreSQL answering it alone, beside the HTTP read
    /// that runs it.
    public static func statusReadQuery(app appID: String, userIndex: [UInt8]) -> PostgresQuery {
        PostgresQuery(unsafeSQL: ownedByIndexSQL, bindings: [appID.postgresValue, userIndex.postgresValue])
    }

    /// The owned rows of both purchase tables and the owners' grants in one result: a flag (true for a subscription,
    /// false for a purchase, NULL for a user's grants), the subscription columns, the purchase columns, then the
    /// grants (JSON); each kind's columns are NULL on the others' rows.
    static let ownedByOneSQL = ownedSummariesSQL(owner: "= $2")
    static let ownedByAnySQL = ownedSummariesSQL(owner: "= ANY($2)")
    static let ownedByIndexSQL = ownedSummariesSQL(
        owner: "= (SELECT pseudonym FROM ledger.identities WHERE app_id = $1 AND blind_index = $2::bytea)")

    static func ownedSummariesSQL(owner condition: String) -> String {
        summariesSQL(lead: "") { table, ownerColumn in "ledger.\(table) t WHERE t.app_id = $1 AND t.\(ownerColumn) \(condition)" }
    }

    /// Several status reads in one statement (`StatusReadBatcher`): `$1` the apps, `$2` the blind indexes, the read's
    /// ordinal (from 1) ahead of `ownedSummariesSQL`'s columns on each row.
    static let ownedByIndexesSQL = """
        WITH wanted AS (
            SELECT w.n, w.app_id, i.pseudonym
            FROM unnest($1::text[], $2::bytea[]) WITH ORDINALITY AS w(app_id, blind_index, n)
            JOIN ledger.identities i ON i.app_id = w.app_id AND i.blind_index = w.blind_index AND i.blind_index IS NOT NULL)
        """ + "\n"
        + summariesSQL(lead: "w.n, ") { table, ownerColumn in
            "wanted w JOIN ledger.\(table) t ON t.app_id = w.app_id AND t.\(ownerColumn) = w.pseudonym"
        }

    /// The three tables' rows in one result, each `SELECT` starting with `lead`, its rows from `from(table, owner column)`.
    private static func summariesSQL(lead: String, from: (String, String) -> String) -> String {
        func nulls(_ table: ReadModelTable, _ names: [String]) -> String {
            names.map { name in "NULL::" + (table.columns.first { $0.name == name }?.type ?? "text") }.joined(separator: ", ")
        }
        func columns(_ names: [String]) -> String { names.map { "t." + $0 }.joined(separator: ", ") }
        let (subscriptions, purchases, grants) = (SubscriptionsReadModel.tables[0], PurchasesReadModel.tables[0], GrantsReadModel.tables[0])
        let (subscriptionColumns, purchaseColumns) = (SubscriptionsReadModel.summaryColumns, PurchasesReadModel.summaryColumns)
        return """
            SELECT \(lead)true, \(columns(subscriptionColumns)), \(nulls(purchases, purchaseColumns)), NULL::text
            FROM \(from(subscriptions.name, "owner_app_user_id"))
            UNION ALL
            SELECT \(lead)false, \(nulls(subscriptions, subscriptionColumns)), \(columns(purchaseColumns)), NULL::text
            FROM \(from(purchases.name, "owner_app_user_id"))
            UNION ALL
            SELECT \(lead)NULL::boolean, \(nulls(subscriptions, subscriptionColumns)), \(nulls(purchases, purchaseColumns)), t.grants::text
            FROM \(from(grants.name, "app_user_id"))
            """
    }

    /// The history of the user `pseudonym`: the streams of every transaction the user owns now and the user's own stream (facts about
    /// the user rather than a purchase: grants, consent to consumption answers), with what they own (the console reads
    /// both).
    public func ownedStreams(app appID: String, pseudonym appUserID: String) async throws -> (streams: [String], owned: OwnedSummaries) {
        let owned = try await summaries(app: appID, owners: [appUserID])
        let ids = Set(owned.subscriptions.map(\.originalTransactionID) + owned.purchases.map(\.originalTransactionID))
        return (ids.sorted().map { LedgerStreams.purchase(originalTransactionID: $0) } + [LedgerStreams.user(appUserID: appUserID)], owned)
    }

    /// The events of the user's history (`ownedStreams`) after log position `after`, in position order, at most
    /// `limit` of them.
    public func timeline(app appID: String, pseudonym: String, after position: Int64, limit: Int) async throws -> [RecordedEvent] {
        try await events(app: appID, streams: try await ownedStreams(app: appID, pseudonym: pseudonym).streams, after: position, limit: limit)
    }

    /// One page of the events of `streams` after log position `after`, in position order, optionally of one event
    /// `type` only: the timeline's one statement, for the API and the console alike.
    public func events(app appID: String, streams: [String], type: String? = nil, after position: Int64, limit: Int)
        async throws -> [RecordedEvent]
    {
        guard !streams.isEmpty else { return [] }
        return try await pool.withConnection { connection in
            try EventColumns.decode(
                connection.query(
                    """
                    SELECT \(unescaped: EventColumns.list) FROM ledger.events
                    WHERE app_id = \(appID) AND stream_id = ANY(\(TextArray(streams))) AND position > \(position)
                      AND (\(type)::text IS NULL OR event_type = \(type)::text)
                    ORDER BY position LIMIT \(Int64(limit))
                    """))
        }
    }

    /// Every event of `streams` up to and including `position`: what "as of this event" folds.
    public func events(app appID: String, streams: [String], through position: Int64) async throws -> [RecordedEvent] {
        guard !streams.isEmpty else { return [] }
        return try await pool.withConnection { connection in
            try EventColumns.decode(
                connection.query(
                    """
                    SELECT \(unescaped: EventColumns.list) FROM ledger.events
                    WHERE app_id = \(appID) AND stream_id = ANY(\(TextArray(streams))) AND position <= \(position)
                    ORDER BY position
                    """))
        }
    }

    /// The event types of `streams` with their counts (the console's timeline filter).
    public func eventTypes(app appID: String, streams: [String]) async throws -> [(type: String, count: Int64)] {
        guard !streams.isEmpty else { return [] }
        let rows = try await pool.query(
            """
            SELECT event_type, count(*) FROM ledger.events WHERE app_id = \(appID) AND stream_id = ANY(\(TextArray(streams)))
            GROUP BY event_type ORDER BY event_type
            """)
        return try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(Int64.self, at: 1)) }
    }

    /// The hash-chain proof of `streams`.
    public func chainCheck(app appID: String, streams: [String]) async throws -> VerificationReport {
        try await pool.withConnection { try LogVerifier().verify(app: appID, streams: streams, on: $0) }
    }
}
