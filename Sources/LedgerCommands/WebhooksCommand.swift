import ArgumentParser
import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import LedgerWebhooks
import PostgresClient
import UTCTime

/// `ledger webhooks …`: an operator's view of the webhook endpoints, their deliveries and attempts, and redelivery
/// (the same as the API's `…/webhooks` routes).
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "List webhook endpoints and deliveries, inspect one, redeliver.",
        subcommands: [List.self, Deliveries.self, Show.self, Redeliver.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The app's webhook endpoints (secrets are not shown).")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Option(help: "The app.") var app: String

        mutating func run() async throws {
            let app = app
            let endpoints = try await WebhooksCommand.storeCall(database, masterKey) { try await $0.endpoints(app: app) }
            if endpoints.isEmpty { print("no webhook endpoint in app \(app)") }
            for endpoint in endpoints {
                let types = endpoint.eventTypes.isEmpty ? "every type" : endpoint.eventTypes.joined(separator: ",")
                let environments = endpoint.environments.joined(separator: ",")
                print(
                    "\(endpoint.endpointID)  \(endpoint.status.rawValue)  \(endpoint.url)  [\(types); \(environments)]"
                        + (endpoint.disabledReason.map { "  (\($0))" } ?? ""))
            }
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An endpoint's deliveries in log order.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Option(help: "The app.") var app: String
        @Option(help: "The endpoint (we_…).") var endpoint: String
        @Option(help: "Only deliveries in this status: pending, succeeded or given_up.") var status: String?
        @Option(help: "Only deliveries after this log position.") var after: Int64 = 0
        @Option(help: "At most this many (1–10000).") var limit: Int = 100

        mutating func validate() throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
            if let status, WebhookDelivery.Status(rawValue: status) == nil {
                throw ValidationError("--status must be one of \(WebhookDelivery.Status.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        mutating func run() async throws {
            let (app, endpoint, status, after, limit) = (app, endpoint, status.flatMap(WebhookDelivery.Status.init), after, limit)
            let deliveries = try await WebhooksCommand.storeCall(database, masterKey) { store in
                try await store.deliveries(app: app, endpoint: endpoint, status: status, after: after, limit: limit)
            }
            print("delivery_id\tposition\tevent_type\tapp_user_id\tsequence\tstatus\tattempts\tcreated_at")
            for d in deliveries {
                print(
                    [
                        d.deliveryID, "\(d.position)", d.eventType, d.appUserID ?? "-", "\(d.sequence)", d.status.rawValue, "\(d.attempts)",
                        d.createdAt.rfc3339
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One delivery: its payload and every attempt.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Option(help: "The app.") var app: String
        @Option(help: "The endpoint (we_…).") var endpoint: String
        @Option(help: "The delivery (msg_…, its webhook-id).") var delivery: String

        mutating func run() async throws {
            let (app, endpoint, delivery) = (app, endpoint, delivery)
            let found = try await WebhooksCommand.storeCall(database, masterKey) { store in
                _ = try await store.endpoint(app: app, id: endpoint)
                return try await store.delivery(app: app, endpoint: endpoint, delivery: delivery)
            }
            guard let found else {
                throw CommandFailure("there is no delivery \(delivery) to endpoint \(endpoint); list them with `ledger webhooks deliveries`")
            }
            let d = found.delivery
            print(
                "delivery \(d.deliveryID): \(d.status.rawValue) after \(d.attempts) attempt(s); position \(d.position), \(d.eventType), "
                    + "user \(d.appUserID ?? "-") sequence \(d.sequence)")
            for attempt in found.attempts {
                print(
                    "  #\(attempt.attempt) \(attempt.attemptedAt.rfc3339)  \(attempt.statusCode.map(String.init) ?? "no answer")  "
                        + "\(attempt.latencyMilliseconds) ms" + (attempt.error.map { "  \($0)" } ?? ""))
            }
            print(d.payload)
        }
    }

    struct Redeliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send deliveries again (same webhook-id and payload): one, or a range of log positions and / or times.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Option(help: "The app.") var app: String
        @Option(help: "The endpoint (we_…).") var endpoint: String
        @Option(help: "One delivery (msg_…).") var delivery: String?
        @Option(help: "From this log position (inclusive).") var fromPosition: Int64?
        @Option(help: "To this log position (inclusive).") var toPosition: Int64?
        @Option(help: "Deliveries made at or after this time (RFC 3339).") var since: String?
        @Option(help: "Deliveries made at or before this time (RFC 3339).") var until: String?

        mutating func validate() throws {
            let range = fromPosition != nil || toPosition != nil || since != nil || until != nil
            guard (delivery != nil) != range else {
                throw ValidationError("name one delivery (--delivery) or a range (--from-position / --to-position / --since / --until)")
            }
            for (name, text) in [("--since", since), ("--until", until)] {
                if let text, Instant(rfc3339: text) == nil { throw ValidationError("\(name) must be an RFC 3339 time such as 2026-11-01T00:00:00Z") }
            }
        }

        mutating func run() async throws {
            let selection: WebhookStore.Selection =
                if let delivery { .one(delivery) } else {
                    .range(
                        fromPosition: fromPosition, toPosition: toPosition, since: since.flatMap(Instant.init(rfc3339:)),
                        until: until.flatMap(Instant.init(rfc3339:)))
                }
            let (app, endpoint) = (app, endpoint)
            let count = try await WebhooksCommand.storeCall(database, masterKey) { store in
                try await store.redeliver(app: app, endpoint: endpoint, selection)
            }
            if case .one(let id) = selection, count == 0 { throw CommandFailure("there is no delivery \(id) to endpoint \(endpoint)") }
            print("\(count) deliver\(count == 1 ? "y" : "ies") will be sent again by the running server")
        }
    }

    /// Runs `body` on the store, turning an unknown endpoint into a CLI error that says what to do.
    /// (The master key opens the deliveries' bodies, stored sealed under their users' keys.)
    static func storeCall<T: Sendable>(
        _ database: DatabaseOptions, _ masterKey: MasterKeyOptions, _ body: @escaping @Sendable (WebhookStore) async throws -> T
    ) async throws -> T {
        let keys = try masterKey.source(database: database)
        do {
            return try await database.withLedger(logger: CommandLogging.logger("ledger.webhooks")) { pool, _, _ in
                try await body(WebhookStore(pool: pool, identities: IdentityStore(pool: pool, keys: keys)))
            }
        } catch let error as WebhookStoreError {
            throw CommandFailure("\(error.description.replacingOccurrences(of: "GET /v1/apps/{app_id}/webhooks", with: "`ledger webhooks list`"))")
        }
    }
}
