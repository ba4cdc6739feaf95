import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ledger's HTTP API for an app's public key, over URLSession. Every failure is a `LedgerError`.
///
/// Cookies are not left to URLSession: the signed `uid` cookie is passed in for the user the call is for, so a
/// cookie is never sent for another user or to another host.
public struct LedgerClient: Sendable {
    public let baseURL: URL
    let apiKey: String
    let session: URLSession

    public init(baseURL: URL, apiKey: String, requestTimeout: TimeInterval = 30) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        session = URLSession(configuration: Self.sessionConfiguration(timeout: requestTimeout))
    }

    static func sessionConfiguration(timeout: TimeInterval) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = timeout
        return configuration
    }

    /// `POST /uploadReceipt`: records the receipt for `userID` (nil: the cookie's user, else a new anonymous one)
    /// and returns the cookie that lets the public key act for that user.
    func uploadReceipt(userID: String?, receipt: Data, cookie: UIDCookie?) async throws -> (UploadReceiptResult, UIDCookie) {
        var body: [String: String] = ["data": receipt.base64EncodedString()]
        if let userID { body["user-id"] = userID }
        return try await identifying("/uploadReceipt", json: try JSONEncoder().encode(body), cookie: cookie)
    }

    /// What delivering a queued upload recorded, and the cookie the answer issued (with the user it names), if any.
    struct Delivery {
        var recorded: Int
        var alreadyKnown: Int
        var issued: UIDCookie?
        var userID: String?
    }

    /// Sends a queued upload with `cookie`. Signed transactions of a user with a cookie are recorded for that user;
    /// without one (a StoreKit 2 app's first upload, or an expired cookie) they identify the user as a receipt would,
    /// and the answer issues the cookie.
    func deliver(_ upload: PendingUpload, cookie: UIDCookie?) async throws -> Delivery {
        switch upload.payload {
        case .receipt(let receipt):
            let (result, issued) = try await uploadReceipt(userID: upload.userID, receipt: receipt, cookie: cookie)
            return Delivery(recorded: result.recorded, alreadyKnown: result.alreadyKnown, issued: issued, userID: result.userID)
        case .transactions(let signed):
            if let user = upload.userID, let cookie {
                let result = try await recordTransactions(user, signed: signed, cookie: cookie)
                return Delivery(recorded: result.recorded, alreadyKnown: result.alreadyKnown)
            }
            let (result, issued) = try await uploadTransactions(userID: upload.userID, signed: signed, cookie: nil)
            return Delivery(recorded: result.recorded, alreadyKnown: result.alreadyKnown, issued: issued, userID: result.userID)
        }
    }

    /// `POST /uploadTransactions`: records StoreKit 2 signed transactions for `userID` (nil: the cookie's user, else a
    /// new anonymous one) and returns the cookie that lets the public key act for that user: how an app without a
    /// receipt (StoreKit 2 only) gets its cookie.
    func uploadTransactions(userID: String?, signed: [String], cookie: UIDCookie?) async throws -> (UploadReceiptResult, UIDCookie) {
        struct Body: Encodable {
            var userID: String?
            var transactions: [SignedItem]
            enum CodingKeys: String, CodingKey {
                case userID = "user-id"
                case transactions
            }
        }
        let body = try JSONEncoder().encode(Body(userID: userID, transactions: signed.map(SignedItem.init)))
        return try await identifying("/uploadTransactions", json: body, cookie: cookie)
    }

    /// An upload that identifies the user: its answer names the user and sets their `uid` cookie.
    private func identifying(_ path: String, json: Data, cookie: UIDCookie?) async throws -> (UploadReceiptResult, UIDCookie) {
        let (data, response) = try await send("POST", path, json: json, cookie: cookie)
        let result = try decode(UploadReceiptResult.self, data)
        let header = response.value(forHTTPHeaderField: "Set-Cookie") ?? ""
        guard let issued = UIDCookie.from(setCookie: header, userID: result.userID) else {
            throw LedgerError.invalidResponse("POST \(path) set no uid cookie")
        }
        return (result, issued)
    }

    /// One item of an upload of signed transactions.
    struct SignedItem: Encodable {
        var signedTransaction: String
        enum CodingKeys: String, CodingKey { case signedTransaction = "signed_transaction" }
    }

    /// `GET /productsStatus` (seed API) for the cookie's user.
    func productsStatus(cookie: UIDCookie) async throws -> [ProductStatus] {
        struct Answer: Decodable {
            struct Embedded: Decodable { var products: [ProductStatus] }
            var embedded: Embedded
            enum CodingKeys: String, CodingKey { case embedded = "_embedded" }
        }
        let (data, _) = try await send("GET", "/productsStatus", cookie: cookie)
        return try decode(Answer.self, data).embedded.products
    }

    /// `GET /v1/users/{id}`.
    func userState(_ userID: String, cookie: UIDCookie?) async throws -> UserState {
        let (data, _) = try await send("GET", "/v1/users/\(Self.segment(userID))", cookie: cookie)
        return try decode(UserState.self, data)
    }

    /// `GET /v1/users/{id}/unconsumed`.
    func unconsumed(_ userID: String, cookie: UIDCookie?) async throws -> [UnconsumedPurchase] {
        struct Answer: Decodable { var unconsumed: [UnconsumedPurchase] }
        let (data, _) = try await send("GET", "/v1/users/\(Self.segment(userID))/unconsumed", cookie: cookie)
        return try decode(Answer.self, data).unconsumed
    }

    /// `POST /v1/users/{id}/transactions`: StoreKit 2 signed transactions (idempotent).
    func recordTransactions(_ userID: String, signed: [String], cookie: UIDCookie?) async throws -> RecordResult {
        struct Body: Encodable { var transactions: [SignedItem] }
        let body = try JSONEncoder().encode(Body(transactions: signed.map(SignedItem.init)))
        let (data, _) = try await send("POST", "/v1/users/\(Self.segment(userID))/transactions", json: body, cookie: cookie)
        return try decode(RecordResult.self, data)
    }

    /// `POST /v1/users/{id}/restore` with signed transactions and/or the receipt.
    func restore(_ userID: String, signedTransactions: [String], receipt: Data?, cookie: UIDCookie?) async throws -> RestoreResult {
        struct Body: Encodable {
            var signedTransactions: [String]?
            var receipt: String?
            enum CodingKeys: String, CodingKey {
                case signedTransactions = "signed_transactions"
                case receipt
            }
        }
        let body = try JSONEncoder().encode(
            Body(
                signedTransactions: signedTransactions.isEmpty ? nil : signedTransactions,
                receipt: receipt?.base64EncodedString()))
        let (data, _) = try await send("POST", "/v1/users/\(Self.segment(userID))/restore", json: body, cookie: cookie)
        return try decode(RestoreResult.self, data)
    }

    /// `POST /v1/users/{id}/purchases/{transaction_id}/consume`.
    func consume(_ userID: String, transactionID: String, cookie: UIDCookie?) async throws -> ConsumeResult {
        let path = "/v1/users/\(Self.segment(userID))/purchases/\(Self.segment(transactionID))/consume"
        let (data, _) = try await send("POST", path, cookie: cookie)
        return try decode(ConsumeResult.self, data)
    }

    /// `POST /v1/users/{id}/consumption-consent`.
    func recordConsumptionConsent(_ userID: String, consented: Bool, cookie: UIDCookie?) async throws -> ConsumptionConsentResult {
        let body = try JSONEncoder().encode(["consented": consented])
        let (data, _) = try await send("POST", "/v1/users/\(Self.segment(userID))/consumption-consent", json: body, cookie: cookie)
        return try decode(ConsumptionConsentResult.self, data)
    }

    // MARK: plumbing

    func request(_ method: String, _ path: String, cookie: UIDCookie?) -> URLRequest {
        var request = URLRequest(url: URL(string: baseURL.absoluteString.trimmingSuffix("/") + path)!)
        request.httpMethod = method
        request.setValue(apiKey, forHTTPHeaderField: "APIKey")
        request.setValue("SubscriptionLedgerSDK", forHTTPHeaderField: "User-Agent")
        if let cookie { request.setValue(cookie.header, forHTTPHeaderField: "Cookie") }
        return request
    }

    func send(_ method: String, _ path: String, json: Data? = nil, cookie: UIDCookie?) async throws -> (Data, HTTPURLResponse) {
        var request = request(method, path, cookie: cookie)
        if let json {
            request.httpBody = json
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw LedgerError.transport("\(method) \(path): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else { throw LedgerError.invalidResponse("not an HTTP answer") }
        guard (200..<300).contains(http.statusCode) else {
            throw LedgerError.fromAnswer(status: http.statusCode, body: data, requestID: http.value(forHTTPHeaderField: "X-Request-Id"))
        }
        return (data, http)
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw LedgerError.invalidResponse("\(T.self): \(error)")
        }
    }

    /// A path segment: user and transaction ids may hold any character.
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
