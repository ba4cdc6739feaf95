import AppStoreVerification
import ExactJSON
import Foundation
import HTTPTypes
import Hummingbird
import LedgerDomain
import LedgerRecording
import LedgerStore
import LedgerTenancy
import LedgerWire
import UTCTime

/// The seed's API, kept compatible: `POST /uploadReceipt` and `GET /productsStatus`, with the app key in the
/// `APIKey` header.
///
/// The receipt upload is where the app identifies its user: the `user-id` it names (or, without one, the user of
/// a valid `uid` cookie, or a new anonymous id `anon-<uuid>`) gets the receipt's purchases, and the answer sets the
/// signed `uid` cookie the public key then reads that user's data with. As with any key shipped inside an app,
/// the public key cannot prove who the user is; read sensitive data from your backend with the secret key.
///
/// `POST /uploadTransactions` is the same for apps that use StoreKit 2 only (no receipt): the signed transactions
/// identify the user exactly as a receipt does (`identify`, shared by both). It is a route of its own rather than
/// `POST /v1/users/{id}/transactions` answering cookies, because every `/v1/users/{id}` route lets a public key act
/// only for the user of the cookie it already holds (401 without one, 403 with another user's).
struct SeedRoutes {
    let recorder: LedgerRecorder
    /// The status read's path, as `GET /v1/users/{id}` reads: the replica when there is one, `Ledger-Read-After` honoured.
    let reads: StatusReads
    let cache: TenancyCache
    let cookie: UserCookie
    let body: RequestBodyReader
    let readYourWrites: ReadYourWrites
    let signing: StatusSigning
    let clock: LedgerClock

    struct UploadInput: Decodable {
        var userID: String?
        var data: String

        enum CodingKeys: String, CodingKey {
            case userID = "user-id"
            case data
        }
    }

    /// `POST /uploadTransactions`: the named user (optional, as for a receipt) and StoreKit 2 signed transactions.
    struct UploadTransactionsInput: StrictBody {
        var userID: String?
        var transactions: [UserCommandRoutes.TransactionsInput.Upload]

        enum CodingKeys: String, CodingKey {
            case userID = "user-id"
            case transactions
        }
        static let members: [String: BodyMember] = ["user-id": .plain, "transactions": .object(UserCommandRoutes.TransactionsInput.Upload.self)]
    }

    struct UploadAnswer: Encodable {
        var userID: String
        var recorded: Int
        var alreadyKnown: Int

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case recorded
            case alreadyKnown = "already_known"
        }
    }

    static let userIDHeader = HTTPField.Name("user-id")!

    func register(on routes: RouteTable, auth: Authenticator) {
        let seed = self
        let app = routes.group("", AppKeyAuthentication(auth: auth, timeout: routes.timeout))
        app.on(.post, "/uploadReceipt") { request, context in
            let caller = try context.caller()
            let (named, der) = try await seed.receipt(request)
            return try await seed.identify(request, context, caller: caller, named: named, source: "upload.receipt") { user, metadata in
                try await seed.recorder.receipt(app: caller.app, user: user, der: der, link: true, metadata: metadata).0
            }
        }
        app.on(.post, "/uploadTransactions") { request, context in
            let caller = try context.caller()
            let input = try await seed.body.json(UploadTransactionsInput.self, from: request)
            let uploads = try Check.items(input.transactions, "transactions", max: 100, min: 1)
            let named = input.userID ?? request.headers[Self.userIDHeader]
            return try await seed.identify(request, context, caller: caller, named: named, source: "upload.transactions") { user, metadata in
                try await seed.recorder.transactions(
                    app: caller.app, user: user, uploads.map { ($0.signedTransaction, $0.signedRenewalInfo) }, link: true, metadata: metadata
                ).0
            }
        }
        app.on(.get, "/productsStatus") { request, context in
            let caller = try context.caller()
            // Every source given is checked, and they must agree.
            var named: [String] = []
            for source in [request.headers[Self.userIDHeader], try request.query("user-id")] {
                if let source { named.append(try Check.text(source, "user-id", max: 256)) }
            }
            guard Set(named).count <= 1 else { throw APIError.badRequest("the `user-id` header and query name different users; send one") }
            let user: String
            if caller.isSecret, named.isEmpty, let fromCookie = seed.cookieUser(request, caller: caller) {
                user = fromCookie
            } else {
                user = try auth.user(request, caller: caller, claimed: named.first)
            }
            let catalog = try await seed.cache.products(app: caller.app.id)
            let now = seed.clock.now()
            let (owned, source) = try await seed.reads.owned(request, app: caller.app.id, user: user)
            let snapshot = UserSnapshot(appUserID: owned.owner ?? user, owned: owned, catalog: catalog.catalog, at: now)
            return try seed.signing.response(
                request, caller: caller, user: user, at: now, headers: [StatusReads.sourceHeader: source.rawValue],
                body: ProductsStatusAnswer(embedded: .init(products: ProductStatusBody.list(snapshot.productsStatus, catalog: catalog))))
        }
    }

    /// The named user (if any) and the receipt bytes, from a JSON body or raw bytes.
    func receipt(_ request: Request) async throws -> (user: String?, der: [UInt8]) {
        let contentType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        switch contentType {
        case "application/octet-stream":
            let bytes = try await body.bytes(request)
            guard !bytes.isEmpty else { throw APIError(.badRequest, "malformed", "the body is empty; send the receipt file's bytes") }
            return (request.headers[Self.userIDHeader], bytes)
        case nil, "application/json", "text/json":
            let input = try await body.json(UploadInput.self, from: request)
            let der = try await LedgerRecorder.verify { () async throws(AppStoreVerificationError) in try ReceiptInput.decode(input.data) }
            return (input.userID ?? request.headers[Self.userIDHeader], der)
        default:
            throw APIError(
                .unsupportedMediaType, "unsupported_media_type",
                "send the receipt as application/json {\"data\": base64} or as application/octet-stream bytes")
        }
    }

    /// How an upload of signed App Store data identifies its user, for the receipt and for StoreKit 2 transactions
    /// alike: the user is the one `named` (else the user of a valid `uid` cookie, else a new `anon-<uuid>`); `record`
    /// verifies and records the data for that user and links its purchases under the app's transfer policy (a refused
    /// transfer throws, so no cookie is set); then, once the reads see the upload, the answer sets that user's cookie.
    func identify(
        _ request: Request, _ context: LedgerRequestContext, caller: AppCaller, named: String?, source: String,
        record: (_ user: String, _ metadata: EventMetadata) async throws -> RecordResult
    ) async throws -> Response {
        let user =
            try named.map { name throws(APIError) in try Check.text(name, "user-id", max: 256) }
            ?? cookieUser(request, caller: caller)
            ?? "anon-" + UUID().uuidString.lowercased()
        let result = try await record(user, EventMetadata(source: source, requestID: context.requestID, actor: caller.key.id))
        try await readYourWrites.wait(app: caller.app.id, positions: result.positions)
        let issued = cookie.issue(app: caller.app.id, user: user, now: clock.now().secondsSinceEpoch)
        var headers = HTTPFields()
        for value in cookie.setCookieHeaders(uid: issued.uid, signature: issued.signature, expires: issued.expires) {
            headers.append(HTTPField(name: .setCookie, value: value))
        }
        return try JSONResponse.make(
            status: .ok,
            body: UploadAnswer(
                userID: user, recorded: result.recorded, alreadyKnown: result.alreadyKnown), headers: headers)
    }

    /// The user of a valid `uid` cookie for this app, if the request carries one.
    func cookieUser(_ request: Request, caller: AppCaller) -> String? {
        let result = cookie.verify(
            app: caller.app.id, uid: request.cookies[UserCookie.userName]?.value,
            signature: request.cookies[UserCookie.signatureName]?.value,
            now: clock.now().secondsSinceEpoch)
        return try? result.get()
    }
}

/// Exactly the seed's shape: `{"_embedded":{"products":[…]}}`. Byte for byte, so no `known` here (unlike
/// `GET /v1/users/{id}`): the seed's clients and the answers recorded from earlier versions compare it whole.
struct ProductsStatusAnswer: Encodable, JSONWritable {
    struct Embedded: Encodable, JSONWritable {
        var products: [ProductStatusBody]

        enum CodingKeys: String, CodingKey {
            case products
        }

        func write(to json: inout JSONOutput) { json.object { $0.member(CodingKeys.products, products) } }
    }
    var embedded: Embedded

    enum CodingKeys: String, CodingKey {
        case embedded = "_embedded"
    }

    func write(to json: inout JSONOutput) { json.object { $0.member(CodingKeys.embedded, embedded) } }
}
