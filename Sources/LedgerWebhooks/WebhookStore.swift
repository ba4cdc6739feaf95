import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerTenancy
import PostgresClient
import UTCTime

/// Problems with a webhook request that the caller can fix.
public enum WebhookStoreError: Error, Equatable, CustomStringConvertible {
    case unknownEndpoint(String)

    public var description: String {
        switch self {
        case .unknownEndpoint(let id): "there is no webhook endpoint \(id) in this app; list them with GET /v1/apps/{app_id}/webhooks"
        }
    }
}

/// Webhook endpoints, their deliveries and attempts (`schema/013_webhooks.sql`): what the API, the CLI and the
/// dispatchers read and write. The fan-out that creates deliveries is `WebhookFanOut`.
///
/// A delivery whose body names a user by their id is stored sealed under the user's data key, the row naming their
/// pseudonym (docs/erasure.md); every read here answers it opened, and the user named by their id while they exist.
/// Once they are erased the body no longer opens and reads as a note that it was erased.
public struct WebhookStore: Sendable {
    public let pool: PostgresPool
    let identities: IdentityStore

    package init(pool: PostgresPool, identities: IdentityStore) {
        self.pool = pool
        self.identities = identities
    }

    // MARK: Endpoints

    public struct EndpointChanges: Sendable {
        public var url: String?
        public var description: String??
        public var eventTypes: [String]?
        public var environments: [String]?
        /// Enabling clears the reason and the failure streak.
        public var status: WebhookEndpoint.Status?

        public init(
            url: String? = nil, description: String?? = nil, eventTypes: [String]? = nil, environments: [String]? = nil,
            status: WebhookEndpoint.Status? = nil
        ) {
            self.url = url
            self.description = description
            self.eventTypes = eventTypes
            self.environments = environments
            self.status = status
        }
    }

    public func createEndpoint(
        app appID: String, url: String, description: String?, eventTypes: [String],
        environments: [String]
    ) async throws -> WebhookEndpoint {
        let rows = try await pool.query(
            """
            INSERT INTO ledger.webhook_endpoints (app_id, endpoint_id, url, description, event_types, environments, secret)
            VALUES (\(appID), \(RandomToken.identifier(prefix: "we_")), \(url), \(description), \(TextArray(eventTypes)),
                    \(TextArray(environments)), \(Self.newSecret()))
            RETURNING \(unescaped: Self.endpointColumns)
            """)
        return try Self.endpoint(rows[0])
    }

    public func endpoints(app appID: String) async throws -> [WebhookEndpoint] {
        try await pool.query(
            """
            SELECT \(unescaped: Self.endpointColumns) FROM ledger.webhook_endpoints WHERE app_id = \(appID) ORDER BY created_at, endpoint_id
            """
        ).map(Self.endpoint)
    }

    public func endpoint(app appID: String, id: String) async throws -> WebhookEndpoint {
        guard
            let row = try await pool.query(
                """
                SELECT \(unescaped: Self.endpointColumns) FROM ledger.webhook_endpoints WHERE app_id = \(appID) AND endpoint_id = \(id)
                """
            ).first
        else { throw WebhookStoreError.unknownEndpoint(id) }
        return try Self.endpoint(row)
    }

    public func updateEndpoint(app appID: String, id: String, _ changes: EndpointChanges) async throws -> WebhookEndpoint {
        let description: String? = changes.description ?? nil
        guard
            let row = try await pool.query(
                """
                UPDATE ledger.webhook_endpoints SET
                    url = coalesce(\(changes.url), url),
                    description = CASE WHEN \(changes.description != nil) THEN \(description) ELSE description END,
                    event_types = coalesce(\(changes.eventTypes.map(TextArray.init))::text[], event_types),
                    environments = coalesce(\(changes.environments.map(TextArray.init))::text[], environments),
                    status = coalesce(\(changes.status?.rawValue), status),
                    disabled_reason = CASE WHEN \(changes.status?.rawValue) = 'enabled' THEN NULL
                        WHEN \(changes.status?.rawValue) = 'disabled' THEN 'disabled through the API' ELSE disabled_reason END,
                    failing_since = CASE WHEN \(changes.status?.rawValue) = 'enabled' THEN NULL ELSE failing_since END,
                    updated_at = now()
                WHERE app_id = \(appID) AND endpoint_id = \(id)
                RETURNING \(unescaped: Self.endpointColumns)
                """
            ).first
        else { throw WebhookStoreError.unknownEndpoint(id) }
        return try Self.endpoint(row)
    }

    /// Deletes the endpoint with its deliveries and attempts.
    public func deleteEndpoint(app appID: String, id: String) async throws {
        guard
            try await !pool.query(
                """
                DELETE FROM ledger.webhook_endpoints WHERE app_id = \(appID) AND endpoint_id = \(id) RETURNING 1
                """
            ).isEmpty
        else { throw WebhookStoreError.unknownEndpoint(id) }
    }

    /// A new signing secret; the old one keeps signing too (two signatures per message) for `overlap`, so that the
    /// receiver can switch to the new one without rejecting a message.
    public func rotateSecret(app appID: String, id: String, overlap: Duration) async throws -> WebhookEndpoint {
        guard
            let row = try await pool.query(
                """
                UPDATE ledger.webhook_endpoints SET previous_secret = secret, secret = \(Self.newSecret()),
                    previous_secret_expires_at = now() + \(Self.milliseconds(overlap)) * interval '1 millisecond', updated_at = now()
                WHERE app_id = \(appID) AND endpoint_id = \(id)
                RETURNING \(unescaped: Self.endpointColumns)
                """
            ).first
        else { throw WebhookStoreError.unknownEndpoint(id) }
        return try Self.endpoint(row)
    }

    /// `whsec_` and 24 random bytes in base64, as the Standard Webhooks libraries expect.
    static func newSecret() -> String { "whsec_" + Data(RandomToken.bytes(24)).base64EncodedString() }

    // MARK: Deliveries

    /// An endpoint's deliveries in log order after `position`, optionally of one status.
    public func deliveries(
        app appID: String, endpoint id: String, status: WebhookDelivery.Status? = nil,
        after position: Int64 = 0, limit: Int = 100
    ) async throws -> [WebhookDelivery] {
        _ = try await endpoint(app: appID, id: id)
        return try await pool.query(
            """
            SELECT \(unescaped: Self.deliveryColumns) FROM ledger.webhook_deliveries
            WHERE app_id = \(appID) AND endpoint_id = \(id) AND position > \(position)
              AND (\(status?.rawValue)::text IS NULL OR status = \(status?.rawValue))
            ORDER BY position LIMIT \(Int64(limit))
            """
        ).map(Self.delivery).opened(by: identities, revealingUsers: true)
    }

    /// One delivery and its attempts, oldest first.
    public func delivery(app appID: String, endpoint id: String, delivery deliveryID: String) async throws
        -> (delivery: WebhookDelivery, attempts: [WebhookAttempt])?
    {
        guard
            let row = try await pool.query(
                """
                SELECT \(unescaped: Self.deliveryColumns) FROM ledger.webhook_deliveries
                WHERE app_id = \(appID) AND endpoint_id = \(id) AND delivery_id = \(deliveryID)
                """
            ).first
        else { return nil }
        let attempts = try await pool.query(
            """
            SELECT attempt, attempted_at, status_code, latency_ms, error FROM ledger.webhook_attempts
            WHERE app_id = \(appID) AND endpoint_id = \(id) AND delivery_id = \(deliveryID) ORDER BY attempt
            """
        ).map { row in
            WebhookAttempt(
                attempt: Int(try row.decode(Int32.self, at: 0)), attemptedAt: try row.decode(Instant.self, at: 1),
                statusCode: try row.decode(Int32?.self, at: 2).map(Int.init), latencyMilliseconds: Int(try row.decode(Int32.self, at: 3)),
                error: try row.decode(String?.self, at: 4))
        }
        return (try await [Self.delivery(row)].opened(by: identities, revealingUsers: true)[0], attempts)
    }

    /// Which deliveries a redelivery sends again: one, or every one in a range of log positions and / or of the times
    /// they were made (each bound optional, inclusive).
    public enum Selection: Sendable {
        case one(String)
        case range(fromPosition: Int64?, toPosition: Int64?, since: Instant?, until: Instant?)
    }

    /// Sends the selected deliveries again, whatever their status, with their `webhook-id` and payload unchanged and
    /// a fresh retry window; returns how many. Per key they go out in sequence order, before newer pending ones.
    public func redeliver(app appID: String, endpoint id: String, _ selection: Selection) async throws -> Int {
        _ = try await endpoint(app: appID, id: id)
        let (one, from, to, since, until): (String?, Int64?, Int64?, Instant?, Instant?) =
            switch selection {
            case .one(let delivery): (delivery, nil, nil, nil, nil)
            case .range(let from, let to, let since, let until): (nil, from, to, since, until)
            }
        let rows = try await pool.query(
            """
            UPDATE ledger.webhook_deliveries SET status = 'pending', next_attempt_at = now(), first_attempt_at = NULL,
                finished_at = NULL
            WHERE app_id = \(appID) AND endpoint_id = \(id)
              AND (\(one)::text IS NULL OR delivery_id = \(one)::text)
              AND (\(from)::bigint IS NULL OR position >= \(from)::bigint) AND (\(to)::bigint IS NULL OR position <= \(to)::bigint)
              AND (\(since)::timestamptz IS NULL OR created_at >= \(since)::timestamptz)
              AND (\(until)::timestamptz IS NULL OR created_at <= \(until)::timestamptz)
            RETURNING 1
            """)
        return rows.count
    }

    // MARK: Dispatch

    /// Takes or renews the lease of every enabled endpoint that no other live dispatcher holds, and returns the
    /// endpoints `owner` now dispatches. A dispatcher that stops renewing (crashed, partitioned) loses its endpoints
    /// to another instance once `duration` has passed.
    /// `now()` is the statement's start here (its own transaction); Citus allows no volatile function in this UPDATE.
    public func leaseEndpoints(owner: String, duration: Duration) async throws -> [WebhookEndpoint] {
        try await pool.query(
            """
            UPDATE ledger.webhook_endpoints SET lease_owner = \(owner),
                lease_until = now() + \(Self.milliseconds(duration)) * interval '1 millisecond'
            WHERE status = 'enabled' AND (lease_owner = \(owner) OR lease_until IS NULL OR lease_until < now())
            RETURNING \(unescaped: Self.endpointColumns)
            """
        ).map(Self.endpoint)
    }

    /// Gives up `owner`'s leases (a graceful stop), so another instance takes over at once.
    public func releaseLeases(owner: String) async throws {
        _ = try await pool.query("UPDATE ledger.webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = \(owner)")
    }

    /// The deliveries of the endpoint that may be sent now: per order key only its lowest pending sequence (the
    /// next waits for it), and only once its retry time has come.
    public func due(app appID: String, endpoint id: String, limit: Int) async throws -> [WebhookDelivery] {
        try await pool.query(
            prepared: PostgresQuery(
                unsafeSQL: Self.dueSQL,
                bindings: [
                    appID.postgresValue, id.postgresValue, Int64(limit).postgresValue
                ])
        ).map(Self.delivery).opened(by: identities, revealingUsers: false)
    }

    /// `due`'s statement ($1 app, $2 endpoint, $3 limit): walks `webhook_deliveries_due` in sending order and keeps
    /// the heads (schema/015), so it reads about as many rows as it returns, whatever the backlog.
    package static let dueSQL = """
        SELECT \(deliveryColumns) FROM ledger.webhook_deliveries AS d
        WHERE d.app_id = $1 AND d.endpoint_id = $2 AND d.status = 'pending' AND d.next_attempt_at <= clock_timestamp()
          AND NOT EXISTS (
            SELECT 1 FROM ledger.webhook_deliveries AS earlier
            WHERE earlier.app_id = d.app_id AND earlier.endpoint_id = d.endpoint_id AND earlier.order_key = d.order_key
              AND earlier.status = 'pending' AND earlier.sequence < d.sequence)
        ORDER BY d.next_attempt_at, d.position LIMIT $3
        """

    /// Records an attempt and its outcome, and the endpoint's health: a success ends its failure streak; a failure
    /// starts one, and an endpoint failing for longer than `disableAfter` is disabled with the reason. A success on a
    /// healthy endpoint leaves its row alone, so concurrent deliveries never queue on that row's lock.
    public func record(
        _ attempt: WebhookAttempt, of delivery: WebhookDelivery, outcome: WebhookOutcome,
        disableAfter: Duration
    ) async throws {
        let (status, next): (WebhookDelivery.Status, Instant?) =
            switch outcome {
            case .succeeded: (.succeeded, nil)
            case .retry(let at): (.pending, at)
            case .givenUp: (.givenUp, nil)
            }
        let disableAfter = Self.milliseconds(disableAfter)
        let (appID, endpointID, deliveryID) = (delivery.appID, delivery.endpointID, delivery.deliveryID)
        let failed = !attempt.succeeded
        let at = attempt.attemptedAt
        try await pool.transaction { connection in
            try connection.query(
                prepared: """
                    INSERT INTO ledger.webhook_attempts (app_id, endpoint_id, delivery_id, attempt, attempted_at, status_code, latency_ms, error)
                    VALUES (\(appID), \(endpointID), \(deliveryID), \(Int32(attempt.attempt)), \(attempt.attemptedAt),
                            \(attempt.statusCode.map(Int32.init))::integer, \(Int32(clamping: attempt.latencyMilliseconds)), \(attempt.error)::text)
                    ON CONFLICT DO NOTHING
                    """)
            try connection.query(
                prepared: """
                    UPDATE ledger.webhook_deliveries SET status = \(status.rawValue), attempts = \(Int32(attempt.attempt)),
                        first_attempt_at = coalesce(first_attempt_at, \(attempt.attemptedAt)::timestamptz),
                        next_attempt_at = coalesce(\(next)::timestamptz, next_attempt_at),
                        finished_at = CASE WHEN \(status.rawValue) = 'pending' THEN NULL ELSE \(attempt.attemptedAt)::timestamptz END
                    WHERE app_id = \(appID) AND endpoint_id = \(endpointID) AND delivery_id = \(deliveryID)
                    """)
            // The failing streak, then the verdict on it in Swift: Citus runs no STABLE function (time arithmetic,
            // to_char) inside an UPDATE's CASE on a distributed table.
            let streak =
                try connection.query(
                    prepared: """
                        UPDATE ledger.webhook_endpoints SET failing_since = CASE WHEN \(failed) THEN coalesce(failing_since, \(at)) END
                        WHERE app_id = \(appID) AND endpoint_id = \(endpointID) AND (\(failed) OR failing_since IS NOT NULL)
                        RETURNING failing_since
                        """
                ).first.map { try $0.decode(Instant?.self, at: 0) } ?? nil
            if failed, let since = streak, since < at.adding(microseconds: -disableAfter * 1000) {
                let reason =
                    "failing since \(since.rfc3339) with no successful delivery; fix the receiver, then enable the endpoint (PATCH status=enabled)"
                try connection.query(
                    prepared: """
                        UPDATE ledger.webhook_endpoints SET status = 'disabled', disabled_reason = \(reason)
                        WHERE app_id = \(appID) AND endpoint_id = \(endpointID) AND status <> 'disabled'
                        """)
            }
        }
    }

    // MARK: Rows

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    static let endpointColumns = """
        app_id, endpoint_id, url, description, event_types, environments, secret, previous_secret, previous_secret_expires_at,
        status, disabled_reason, failing_since, created_at, updated_at
        """

    static func endpoint(_ row: PostgresRow) throws -> WebhookEndpoint {
        var cells = PostgresRowCursor(row)
        return WebhookEndpoint(
            appID: try cells.next(String.self), endpointID: try cells.next(String.self), url: try cells.next(String.self),
            description: try cells.next(String?.self), eventTypes: try cells.next(TextArray.self).elements,
            environments: try cells.next(TextArray.self).elements, secret: try cells.next(String.self),
            previousSecret: try cells.next(String?.self), previousSecretExpiresAt: try cells.next(Instant?.self),
            status: WebhookEndpoint.Status(rawValue: try cells.next(String.self)) ?? .disabled,
            disabledReason: try cells.next(String?.self), failingSince: try cells.next(Instant?.self),
            createdAt: try cells.next(Instant.self), updatedAt: try cells.next(Instant.self))
    }

    static let deliveryColumns = """
        app_id, endpoint_id, delivery_id, position, event_type, app_user_id, order_key, sequence, previous_sequence, payload,
        status, attempts, next_attempt_at, created_at, first_attempt_at, finished_at, traceparent
        """

    static func delivery(_ row: PostgresRow) throws -> WebhookDelivery {
        var cells = PostgresRowCursor(row)
        return WebhookDelivery(
            appID: try cells.next(String.self), endpointID: try cells.next(String.self), deliveryID: try cells.next(String.self),
            position: try cells.next(Int64.self), eventType: try cells.next(String.self), appUserID: try cells.next(String?.self),
            orderKey: try cells.next(String.self), sequence: try cells.next(Int64.self), previousSequence: try cells.next(Int64?.self),
            payload: try cells.next(String.self),
            status: WebhookDelivery.Status(rawValue: try cells.next(String.self)) ?? .pending,
            attempts: Int(try cells.next(Int32.self)), nextAttemptAt: try cells.next(Instant.self),
            createdAt: try cells.next(Instant.self), firstAttemptAt: try cells.next(Instant?.self),
            finishedAt: try cells.next(Instant?.self), traceparent: try cells.next(String?.self))
    }
}

extension [WebhookDelivery] {
    /// The deliveries with their bodies opened (one whose user was erased since reads as a note), and with
    /// `revealingUsers` the user each names by their id while they exist (the dispatcher needs only the body).
    func opened(by identities: IdentityStore, revealingUsers: Bool) async throws -> [WebhookDelivery] {
        var opened = self
        for (app, indices) in Dictionary(grouping: indices, by: { self[$0].appID }) {
            let clear = try await identities.fields.open(app: app, indices.map { self[$0].payload })
            let ids = revealingUsers ? try await identities.userIDs(app: app, pseudonyms: indices.compactMap { self[$0].appUserID }) : [:]
            for index in indices {
                let stored = self[index]
                opened[index].payload = clear[stored.payload] ?? WebhookStore.erasedBody(type: stored.eventType, pseudonym: stored.appUserID)
                if let pseudonym = stored.appUserID, let id = ids[pseudonym] { opened[index].appUserID = id }
            }
        }
        return opened
    }
}
