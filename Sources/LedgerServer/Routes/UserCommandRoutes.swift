import AppStoreVerification
import Hummingbird
import LedgerDomain
import LedgerStore
import PostgresClient

/// `POST /v1/users/{user_id}/…`: uploads, restore, consume, and external (card) purchases.
struct UserCommandRoutes {
    let api: LedgerAPI

    struct TransactionsInput: StrictBody {
        struct Upload: StrictBody {
            var signed_transaction: String
            var signed_renewal_info: String?
            static let members = plain("signed_transaction", "signed_renewal_info")
        }
        var transactions: [Upload]
        static let members: [String: BodyMember] = ["transactions": .object(Upload.self)]
    }

    struct RecordedAnswer: Encodable {
        var app_user_id: String
        var recorded: Int
        var already_known: Int
    }

    struct RestoreInput: StrictBody {
        var signed_transactions: [String]?
        var receipt: String?
        var original_transaction_ids: [String]?
        static let members = plain("signed_transactions", "receipt", "original_transaction_ids")
    }

    struct RestoreAnswer: Encodable {
        var app_user_id: String
        var restored: [String]
        var events_appended: Int
    }

    struct ConsumeAnswer: Encodable {
        var original_transaction_id: String
        var consumed_at: String
        var position: Int64
    }

    func register(on routes: RouteTable) {
        let api = api
        routes.on(.post, "/v1/users/{user_id}/transactions") { request, context in
            let (caller, user) = try await Self.user(api, request, context, secretOnly: false)
            let input = try await api.body.json(TransactionsInput.self, from: request)
            let uploads = try Check.items(input.transactions, "transactions", max: 100, min: 1)
            let (result, _) = try await api.recording.transactions(
                app: caller.app, user: user, uploads.map { ($0.signed_transaction, $0.signed_renewal_info) }, link: true,
                metadata: Self.metadata("upload.transactions", caller, context))
            try await api.settle(app: caller.app.id, positions: result.positions)
            return try JSONResponse.make(status: .ok, body: RecordedAnswer(
                app_user_id: user, recorded: result.recorded, already_known: result.alreadyKnown))
        }
        routes.on(.post, "/v1/users/{user_id}/restore") { request, context in
            let (caller, user) = try await Self.user(api, request, context, secretOnly: false)
            let input = try await api.body.json(RestoreInput.self, from: request)
            let ids = try await Self.restoredIDs(api, input, caller: caller, user: user, context: context)
            let appended = try await api.recording.link(app: caller.app, ids, to: user, metadata: Self.metadata("restore", caller, context))
            try await api.settle(app: caller.app.id, positions: appended)
            return try JSONResponse.make(status: .ok, body: RestoreAnswer(app_user_id: user, restored: ids, events_appended: appended.count))
        }
        routes.on(.post, "/v1/users/{user_id}/purchases/{transaction_id}/consume") { request, context in
            let (caller, user) = try await Self.user(api, request, context, secretOnly: false)
            let id = try Check.text(try context.path("transaction_id"), "transaction_id", max: 256)
            let now = api.instant()
            do {
                let position = try await PurchaseOperations(store: api.store).consume(
                    app: caller.app.id, originalTransactionID: id, by: user, at: now, metadata: Self.metadata("consume", caller, context))
                try await api.settle(app: caller.app.id, positions: [position])
                return try JSONResponse.make(status: .ok, body: ConsumeAnswer(original_transaction_id: id, consumed_at: rfc3339(now), position: position))
            } catch ConsumeError.unknownPurchase(let id) {
                // The consume rules see one-time purchases only; a known subscription is not "unknown".
                let stream = try await api.store.readStream(app: caller.app.id, stream: LedgerStreams.purchase(originalTransactionID: id), limit: 1)
                throw stream.isEmpty ? Self.translate(.unknownPurchase(originalTransactionID: id))
                    : APIError(.conflict, "not_consumable", "purchase \(id) is a subscription; only consumables are consumed")
            } catch let error as ConsumeError {
                throw Self.translate(error)
            }
        }
        routes.on(.post, "/v1/users/{user_id}/external-purchases") { request, context in
            let (caller, user) = try await Self.user(api, request, context, secretOnly: true)
            let input = try await api.body.json(ExternalPurchaseInput.self, from: request)
            let purchase = try input.validated(user: user)
            let appends = [(stream: LedgerStreams.purchase(originalTransactionID: purchase.paymentID),
                            event: LedgerEvent.externalPurchase(purchase), idempotencyKey: LedgerEvent.externalPurchase(purchase).idempotencyKey)]
            let outcome = try await EventRecorder(store: api.store).record(
                app: caller.app.id, appends, occurredAt: { _ in purchase.purchasedAt },
                metadata: Self.metadata("external_purchase", caller, context))
            try await api.settle(app: caller.app.id, positions: outcome.positions)
            return try JSONResponse.make(status: outcome.recorded > 0 ? .created : .ok,
                                         body: ExternalPurchaseAnswer(payment_id: purchase.paymentID, recorded: outcome.recorded > 0))
        }
    }

    static func user(_ api: LedgerAPI, _ request: Request, _ context: BasicRequestContext, secretOnly: Bool) async throws -> (AppCaller, String) {
        let caller = try await api.auth.requireAppKey(request, secretOnly: secretOnly)
        let claimed = try Check.text(try context.path("user_id"), "user_id", max: 256)
        return (caller, try api.auth.user(request, caller: caller, claimed: claimed))
    }

    static func metadata(_ source: String, _ caller: AppCaller, _ context: BasicRequestContext) -> EventMetadata {
        EventMetadata(source: source, requestID: context.requestID, actor: caller.key.id)
    }

    /// The original transactions to restore: from verified signed transactions or a receipt (both recorded first,
    /// so the restore sees them), or named directly by the developer's backend (secret key only).
    static func restoredIDs(_ api: LedgerAPI, _ input: RestoreInput, caller: AppCaller, user: String,
                            context: BasicRequestContext) async throws -> [String] {
        var ids: [String] = []
        let metadata = metadata("restore", caller, context)
        let signed = try Check.items(input.signed_transactions ?? [], "signed_transactions", max: 100)
        if !signed.isEmpty {
            ids += try await api.recording.transactions(app: caller.app, user: user, signed.map { ($0, nil) }, link: false, metadata: metadata).originalTransactionIDs
        }
        if let receipt = input.receipt {
            let der = try await AppStoreRecording.verify { () async throws(AppStoreVerificationError) in try ReceiptInput.decode(receipt) }
            ids += try await api.recording.receipt(app: caller.app, user: user, der: der, link: false, metadata: metadata).originalTransactionIDs
        }
        if let named = input.original_transaction_ids {
            guard caller.isSecret else {
                throw APIError.forbidden("`original_transaction_ids` needs the secret key; the app restores with signed transactions or its receipt")
            }
            for (index, id) in try Check.items(named, "original_transaction_ids", max: 100).enumerated() {
                ids.append(try Check.text(id, "original_transaction_ids[\(index)]", max: 256))
            }
        }
        guard !ids.isEmpty else {
            throw APIError.badRequest("send `signed_transactions`, a `receipt`, or (secret key) `original_transaction_ids` to restore")
        }
        return Array(Set(ids)).sorted()
    }

    static func translate(_ error: ConsumeError) -> APIError {
        switch error {
        case .unknownPurchase(let id):
            APIError(.notFound, "unknown_purchase", "no purchase \(id) is recorded; upload the transaction first")
        case .notConsumable(let id, let type):
            APIError(.conflict, "not_consumable", "purchase \(id) is a \(type.apiName) product; only consumables are consumed")
        case .belongsToAnotherUser(let id):
            APIError(.conflict, "belongs_to_another_user", "purchase \(id) belongs to another user; restore it to this user first")
        case .alreadyConsumed(let id, let at):
            APIError(.conflict, "already_consumed", "purchase \(id) was already consumed at \(rfc3339(at)); deliver it once")
        case .refunded(let id):
            APIError(.conflict, "refunded", "purchase \(id) was refunded or revoked; do not deliver it")
        }
    }
}
