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
    /// How long a read after a write keeps asking while the ledger has not applied the write (`read_after_pending`).
    let readAfterPatience: Duration

    public init(baseURL: URL, apiKey: String, requestTimeout: TimeInterval = 30, readAfterPatience: Duration = .seconds(15)) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.readAfterPatience = readAfterPatience
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
    func uploadReceipt(userID: String?, receipt: Data, cookie: UIDCookie?) async throws -> (Wire.UploadReceiptResult, UIDCookie, readAfter: String?) {
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
        /// The answer's `Ledger-Read-After`: a read that sends it sees the upload, on any instance, cache or replica.
        var readAfter: String?
    }

    /// Sends a queued upload with `cookie`. Signed transactions of a user with a cookie are recorded for that user;
    /// without one (a StoreKit 2 app's first upload, or an expired cookie) they identify the user as a receipt would,
    /// and the answer issues the cookie.
    func deliver(_ upload: PendingUpload, cookie: UIDCookie?) async throws -> Delivery {
        switch upload.payload {
        case .receipt(let receipt):
            let (result, issued, readAfter) = try await uploadReceipt(userID: upload.userID, receipt: receipt, cookie: cookie)
            return Delivery(recorded: result.recorded, alreadyKnown: result.alreadyKnown, issued: issued, userID: result.userID, readAfter: readAfter)
        case .transactions(let signed):
            if let user = upload.userID, let cookie {
                let (result, readAfter) = try await recordTransactions(user, signed: signed, cookie: cookie)
                return Delivery(recorded: result.recorded, alreadyKnown: result.alreadyKnown, userID: user, readAfter: readAfter)
            }
            let (result, issued, readAfter) = try await uploadTransactions(userID: upload.userID, signed: signed, cookie: nil)
            return Delivery(recorded: result.recorded, alreadyKnown: result.alreadyKnown, issued: issued, userID: result.userID, readAfter: readAfter)
        }
    }

    /// `POST /uploadTransactions`: records StoreKit 2 signed transactions for `userID` (nil: the cookie's user, else a
    /// new anonymous one) and returns the cookie that lets the public key act for that user: how an app without a
    /// receipt (StoreKit 2 only) gets its cookie.
    func uploadTransactions(userID: String?, signed: [String], cookie: UIDCookie?) async throws -> (
        Wire.UploadReceiptResult, UIDCookie, readAfter: String?
    ) {
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
    private func identifying(_ path: String, json: Data, cookie: UIDCookie?) async throws -> (Wire.UploadReceiptResult, UIDCookie, readAfter: String?)
    {
        let (data, response) = try await send("POST", path, json: json, cookie: cookie)
        let result = try decode(Wire.UploadReceiptResult.self, data)
        let header = response.value(forHTTPHeaderField: "Set-Cookie") ?? ""
        guard let issued = UIDCookie.from(setCookie: header, userID: result.userID) else {
            throw LedgerError.invalidResponse("POST \(path) set no uid cookie")
        }
        return (result, issued, response.value(forHTTPHeaderField: "Ledger-Read-After"))
    }

    /// One item of an upload of signed transactions.
    struct SignedItem: Encodable {
        var signedTransaction: String
        enum CodingKeys: String, CodingKey { case signedTransaction = "signed_transaction" }
    }

    /// A status answer: the body as sent, decoded, and its signature when the ledger signed it.
    struct StatusAnswer<Body: Decodable & Sendable>: Sendable {
        var body: Body
        var snapshot: SignedSnapshot?
    }

    /// `GET /productsStatus` (seed API) for the cookie's user.
    func productsStatus(cookie: UIDCookie) async throws -> StatusAnswer<Wire.ProductsStatusResponse> {
        let (data, response) = try await send("GET", "/productsStatus", cookie: cookie)
        return StatusAnswer(body: try decode(Wire.ProductsStatusResponse.self, data), snapshot: Self.snapshot(data, response))
    }

    /// `GET /v1/users/{id}`; `readAfter`: a write's `Ledger-Read-After`, so the read includes that write. The ledger
    /// refuses such a read (503 `read_after_pending`) until it has applied the write rather than answer an older
    /// state: the read is sent again after each refusal's `Retry-After`, for up to `readAfterPatience` in all.
    func userState(_ userID: String, cookie: UIDCookie?, readAfter: String? = nil) async throws -> StatusAnswer<Wire.UserState> {
        let headers = readAfter.map { ["Ledger-Read-After": $0] } ?? [:]
        let deadline = ContinuousClock.now + readAfterPatience
        while true {
            do {
                let (data, response) = try await send("GET", "/v1/users/\(Self.segment(userID))", headers: headers, cookie: cookie)
                return StatusAnswer(body: try decode(Wire.UserState.self, data), snapshot: Self.snapshot(data, response))
            } catch LedgerError.server(let error) where error.code == .readAfterPending {
                let delay = Duration.seconds(min(max(error.retryAfterSeconds ?? 1, 1), 5))
                guard ContinuousClock.now + delay < deadline else { throw LedgerError.server(error) }
                try await Task.sleep(for: delay)  // the server's Retry-After: there is no event a client can await
            }
        }
    }

    static func snapshot(_ data: Data, _ response: HTTPURLResponse) -> SignedSnapshot? {
        response.value(forHTTPHeaderField: "Ledger-Signature").map { SignedSnapshot(body: data, signature: $0) }
    }

    /// `GET /.well-known/jwks.json`: the keys status answers are signed with.
    func statusKeys() async throws -> StatusKeySet {
        let (data, _) = try await send("GET", "/.well-known/jwks.json", cookie: nil)
        return try decode(StatusKeySet.self, data)
    }

    /// `GET /v1/users/{id}/unconsumed`.
    func unconsumed(_ userID: String, cookie: UIDCookie?) async throws -> [Wire.Unconsumed] {
        let (data, _) = try await send("GET", "/v1/users/\(Self.segment(userID))/unconsumed", cookie: cookie)
        return try decode(Wire.UserUnconsumed.self, data).unconsumed
    }

    /// `POST /v1/users/{id}/transactions`: StoreKit 2 signed transactions (idempotent); the answer and its
    /// `Ledger-Read-After`.
    func recordTransactions(_ userID: String, signed: [String], cookie: UIDCookie?) async throws -> (Wire.RecordResult, readAfter: String?) {
        struct Body: Encodable { var transactions: [SignedItem] }
        let body = try JSONEncoder().encode(Body(transactions: signed.map(SignedItem.init)))
        let (data, response) = try await send("POST", "/v1/users/\(Self.segment(userID))/transactions", json: body, cookie: cookie)
        return (try decode(Wire.RecordResult.self, data), response.value(forHTTPHeaderField: "Ledger-Read-After"))
    }

    /// `POST /v1/users/{id}/restore` with signed transactions and/or the receipt.
    func restore(_ userID: String, signedTransactions: [String], receipt: Data?, cookie: UIDCookie?) async throws -> (
        Wire.RestoreResult, readAfter: String?
    ) {
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
        let (data, response) = try await send("POST", "/v1/users/\(Self.segment(userID))/restore", json: body, cookie: cookie)
        return (try decode(Wire.RestoreResult.self, data), response.value(forHTTPHeaderField: "Ledger-Read-After"))
    }

    /// `POST /v1/users/{id}/purchases/{transaction_id}/consume`: the answer and its `Ledger-Read-After`.
    func consume(_ userID: String, transactionID: String, cookie: UIDCookie?) async throws -> (Wire.ConsumeResult, readAfter: String?) {
        let path = "/v1/users/\(Self.segment(userID))/purchases/\(Self.segment(transactionID))/consume"
        let (data, response) = try await send("POST", path, cookie: cookie)
        return (try decode(Wire.ConsumeResult.self, data), response.value(forHTTPHeaderField: "Ledger-Read-After"))
    }

    /// `POST /v1/users/{id}/consumption-consent`.
    func recordConsumptionConsent(_ userID: String, consented: Bool, cookie: UIDCookie?) async throws -> Wire.ConsumptionConsentResult {
        let body = try JSONEncoder().encode(["consented": consented])
        let (data, _) = try await send("POST", "/v1/users/\(Self.segment(userID))/consumption-consent", json: body, cookie: cookie)
        return try decode(Wire.ConsumptionConsentResult.self, data)
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

    func send(
        _ method: String, _ path: String, json: Data? = nil, headers: [String: String] = [:], cookie: UIDCookie?
    ) async throws -> (Data, HTTPURLResponse) {
        var request = request(method, path, cookie: cookie)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = json
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await Self.load(request, on: session, describing: "\(method) \(path)")
        guard let http = response as? HTTPURLResponse else { throw LedgerError.invalidResponse("not an HTTP answer") }
        guard (200..<300).contains(http.statusCode) else {
            throw LedgerError.fromAnswer(
                status: http.statusCode, body: data, requestID: http.value(forHTTPHeaderField: "X-Request-Id"),
                retryAfterSeconds: http.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) })
        }
        return (data, http)
    }

    /// One request, answered by its completion handler. Not `URLSession.data(for:)`: on Linux, FoundationNetworking
    /// cancels that call's task from inside the Swift task's cancellation (holding the task's status lock) with a
    /// synchronous hop to the session's queue, while the session's queue, finishing the same request, waits for that
    /// lock to resume the caller: cancelling the SDK's live stream or a caller mid-request deadlocked the process. A
    /// cancelled caller here simply gets the answer when it comes (within `requestTimeout`).
    static func load(_ request: URLRequest, on session: URLSession, describing what: String) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let data, let response {
                    continuation.resume(returning: (data, response))
                } else {
                    let why = error?.localizedDescription ?? "no answer"
                    continuation.resume(throwing: LedgerError.transport("\(what): \(why)"))
                }
            }.resume()
        }
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
