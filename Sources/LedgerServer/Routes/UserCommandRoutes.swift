import AppStoreVerification
import Hummingbird
import LedgerDomain
import LedgerRecording
import LedgerStore
import LedgerTenancy
import UTCTime

/// `POST /v1/users/{user_id}/…`: uploads, restore, consume, consent to consumption answers, and external (card) purchases.
struct UserCommandRoutes {
    let recorder: LedgerRecorder
    let body: RequestBodyReader
    let readYourWrites: ReadYourWrites

    struct TransactionsInput: StrictBody {
        struct Upload: StrictBody {
            var signedTransaction: String
            var signedRenewalInfo: String?

            enum CodingKeys: String, CodingKey {
                case signedTransaction = "signed_transaction"
                case signedRenewalInfo = "signed_renewal_info"
            }
            static let members = plain("signed_transaction", "signed_renewal_info")
        }
        var transactions: [Upload]
        static let members: [String: BodyMember] = ["transactions": .object(Upload.self)]
    }

    struct RecordedAnswer: Encodable {
        var appUserID: String
        var recorded: Int
        var alreadyKnown: Int

        enum CodingKeys: String, CodingKey {
            case appUserID = "app_user_id"
            case recorded
            case alreadyKnown = "already_known"
        }
    }

    struct RestoreInput: StrictBody {
        var signedTransactions: [String]?
        var receipt: String?
        var originalTransactionIDs: [String]?

        enum CodingKeys: String, CodingKey {
            case signedTransactions = "signed_transactions"
            case receipt
            case originalTransactionIDs = "original_transaction_ids"
        }
        static let members = plain("signed_transactions", "receipt", "original_transaction_ids")
    }

    struct RestoreAnswer: Encodable {
        var appUserID: String
        var restored: [String]
        var eventsAppended: Int

        enum CodingKeys: String, CodingKey {
            case appUserID = "app_user_id"
            case restored
            case eventsAppended = "events_appended"
        }
    }

    struct ConsumeAnswer: Encodable {
        var originalTransactionID: String
        var consumedAt: String
        var position: Int64

        enum CodingKeys: String, CodingKey {
            case originalTransactionID = "original_transaction_id"
            case consumedAt = "consumed_at"
            case position
        }
    }

    struct ConsentInput: StrictBody {
        var consented: Bool
        static let members = plain("consented")
    }

    struct ConsentAnswer: Encodable {
        var appUserID: String
        var consented: Bool
        var source: String
        var recordedAt: String
        var position: Int64

        enum CodingKeys: String, CodingKey {
            case appUserID = "app_user_id"
            case consented
            case source
            case recordedAt = "recorded_at"
            case position
        }
    }

    func register(on routes: RouteTable, auth: Authenticator) {
        let (recorder, body, readYourWrites) = (recorder, body, readYourWrites)
        let perUser = routes.group("/v1/users/{user_id}", UserAuthentication(auth: auth, timeout: routes.timeout))
        perUser.on(.post, "/v1/users/{user_id}/transactions") { request, context in
            let (caller, user) = try context.actor()
            let input = try await body.json(TransactionsInput.self, from: request)
            let uploads = try Check.items(input.transactions, "transactions", max: 100, min: 1)
            let (result, _) = try await recorder.transactions(
                app: caller.app, user: user, uploads.map { ($0.signedTransaction, $0.signedRenewalInfo) }, link: true,
                metadata: Self.metadata("upload.transactions", caller, context))
            try await readYourWrites.wait(app: caller.app.id, positions: result.positions)
            return try JSONResponse.make(
                status: .ok,
                body: RecordedAnswer(
                    appUserID: user, recorded: result.recorded, alreadyKnown: result.alreadyKnown))
        }
        perUser.on(.post, "/v1/users/{user_id}/restore") { request, context in
            let (caller, user) = try context.actor()
            let input = try await body.json(RestoreInput.self, from: request)
            let (ids, appended) = try await recorder.restore(
                app: caller.app, user: user, try await Self.sources(input, caller: caller), metadata: Self.metadata("restore", caller, context))
            try await readYourWrites.wait(app: caller.app.id, positions: appended)
            return try JSONResponse.make(status: .ok, body: RestoreAnswer(appUserID: user, restored: ids, eventsAppended: appended.count))
        }
        perUser.on(.post, "/v1/users/{user_id}/purchases/{transaction_id}/consume") { _, context in
            let (caller, user) = try context.actor()
            let id = try Check.text(try context.path("transaction_id"), "transaction_id", max: 256)
            let (consumedAt, position) = try await recorder.consume(
                app: caller.app, originalTransactionID: id, by: user, metadata: Self.metadata("consume", caller, context))
            try await readYourWrites.wait(app: caller.app.id, positions: [position])
            return try JSONResponse.make(
                status: .ok,
                body: ConsumeAnswer(
                    originalTransactionID: id, consumedAt: consumedAt.rfc3339, position: position))
        }
        // The user's answer to "may we tell Apple how you used a purchase when you ask for a refund?", from the app or the
        // backend: the latest holds, and without a yes the ledger sends Apple nothing (ConsumptionAnswers).
        perUser.on(.post, "/v1/users/{user_id}/consumption-consent") { request, context in
            let (caller, user) = try context.actor()
            let input = try await body.json(ConsentInput.self, from: request)
            let (consent, position) = try await recorder.consumptionConsent(
                app: caller.app, user: user, consented: input.consented, source: caller.isSecret ? .backend : .app,
                metadata: Self.metadata("consumption_consent", caller, context))
            try await readYourWrites.wait(app: caller.app.id, positions: [position])
            return try JSONResponse.make(
                status: .ok,
                body: ConsentAnswer(
                    appUserID: user, consented: consent.consented, source: consent.source.rawValue, recordedAt: consent.recordedAt.rfc3339,
                    position: position))
        }
        // The developer's backend records what it sold outside the App Store: secret key only.
        let backend = routes.group(
            "/v1/users/{user_id}/external-purchases",
            UserAuthentication(auth: auth, timeout: routes.timeout, secretOnly: true))
        backend.on(.post, "/v1/users/{user_id}/external-purchases") { request, context in
            let (caller, user) = try context.actor()
            let input = try await body.json(ExternalPurchaseInput.self, from: request)
            let purchase = try input.validated(user: user)
            let result = try await recorder.externalPurchase(
                app: caller.app, purchase, metadata: Self.metadata("external_purchase", caller, context))
            try await readYourWrites.wait(app: caller.app.id, positions: result.positions)
            return try JSONResponse.make(
                status: result.recorded > 0 ? .created : .ok,
                body: ExternalPurchaseAnswer(paymentID: purchase.paymentID, recorded: result.recorded > 0))
        }
    }

    static func metadata(_ source: String, _ caller: AppCaller, _ context: LedgerRequestContext) -> EventMetadata {
        EventMetadata(source: source, requestID: context.requestID, actor: caller.key.id)
    }

    /// What the request names to restore, checked: signed transactions and a receipt from anyone with the user's
    /// credentials, original transaction ids only from the developer's backend (secret key).
    static func sources(_ input: RestoreInput, caller: AppCaller) async throws -> LedgerRecorder.RestoreSources {
        var sources = LedgerRecorder.RestoreSources(
            signedTransactions: try Check.items(input.signedTransactions ?? [], "signed_transactions", max: 100))
        if let receipt = input.receipt {
            sources.receiptDER = try await LedgerRecorder.verify { () async throws(AppStoreVerificationError) in try ReceiptInput.decode(receipt) }
        }
        if let named = input.originalTransactionIDs {
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
