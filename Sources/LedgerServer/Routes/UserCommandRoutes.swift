import AppStoreVerification
import Hummingbird
import LedgerDomain
import LedgerRecording
import LedgerStore

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
            let (result, _) = try await api.recorder.transactions(
                app: caller.app, user: user, uploads.map { ($0.signed_transaction, $0.signed_renewal_info) }, link: true,
                metadata: Self.metadata("upload.transactions", caller, context))
            try await api.settle(app: caller.app.id, positions: result.positions)
            return try JSONResponse.make(status: .ok, body: RecordedAnswer(
                app_user_id: user, recorded: result.recorded, already_known: result.alreadyKnown))
        }
        routes.on(.post, "/v1/users/{user_id}/restore") { request, context in
            let (caller, user) = try await Self.user(api, request, context, secretOnly: false)
            let input = try await api.body.json(RestoreInput.self, from: request)
            let (ids, appended) = try await api.recorder.restore(
                app: caller.app, user: user, try await Self.sources(input, caller: caller), metadata: Self.metadata("restore", caller, context))
            try await api.settle(app: caller.app.id, positions: appended)
            return try JSONResponse.make(status: .ok, body: RestoreAnswer(app_user_id: user, restored: ids, events_appended: appended.count))
        }
        routes.on(.post, "/v1/users/{user_id}/purchases/{transaction_id}/consume") { request, context in
            let (caller, user) = try await Self.user(api, request, context, secretOnly: false)
            let id = try Check.text(try context.path("transaction_id"), "transaction_id", max: 256)
            let (consumedAt, position) = try await api.recorder.consume(
                app: caller.app, originalTransactionID: id, by: user, metadata: Self.metadata("consume", caller, context))
            try await api.settle(app: caller.app.id, positions: [position])
            return try JSONResponse.make(status: .ok, body: ConsumeAnswer(original_transaction_id: id, consumed_at: rfc3339(consumedAt), position: position))
        }
        routes.on(.post, "/v1/users/{user_id}/external-purchases") { request, context in
            let (caller, user) = try await Self.user(api, request, context, secretOnly: true)
            let input = try await api.body.json(ExternalPurchaseInput.self, from: request)
            let purchase = try input.validated(user: user)
            let result = try await api.recorder.externalPurchase(
                app: caller.app, purchase, metadata: Self.metadata("external_purchase", caller, context))
            try await api.settle(app: caller.app.id, positions: result.positions)
            return try JSONResponse.make(status: result.recorded > 0 ? .created : .ok,
                                         body: ExternalPurchaseAnswer(payment_id: purchase.paymentID, recorded: result.recorded > 0))
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

    /// What the request names to restore, checked: signed transactions and a receipt from anyone with the user's
    /// credentials, original transaction ids only from the developer's backend (secret key).
    static func sources(_ input: RestoreInput, caller: AppCaller) async throws -> LedgerRecorder.RestoreSources {
        var sources = LedgerRecorder.RestoreSources(
            signedTransactions: try Check.items(input.signed_transactions ?? [], "signed_transactions", max: 100))
        if let receipt = input.receipt {
            sources.receiptDER = try await LedgerRecorder.verify { () async throws(AppStoreVerificationError) in try ReceiptInput.decode(receipt) }
        }
        if let named = input.original_transaction_ids {
            guard caller.isSecret else {
                throw APIError.forbidden("`original_transaction_ids` needs the secret key; the app restores with signed transactions or its receipt")
            }
            for (index, id) in try Check.items(named, "original_transaction_ids", max: 100).enumerated() {
                sources.originalTransactionIDs.append(try Check.text(id, "original_transaction_ids[\(index)]", max: 256))
            }
        }
        return sources
    }
}
