import AppStoreServerTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization
import Testing

@testable import SubscriptionLedgerSDKCore

/// A read after a write (`Ledger-Read-After`) that the ledger refuses with 503 `read_after_pending` (it has not
/// applied the write yet) is sent again after the refusal's `Retry-After`, with the same token, until it is answered.
@Suite struct ReadAfterPendingTests {
    static let state =
        #"{"app_user_id":"buyer","subscriptions":[],"entitlements":[],"one_time_purchases":[],"unconsumed":[],"#
        + #""products_status":[],"intro_offer_eligibility":[]}"#

    /// The tokens the ledger was sent, one per read.
    final class Tokens: Sendable {
        let sent = Mutex<[String?]>([])
    }

    /// A ledger that refuses the first `refusals` reads with `code`, then answers; the tokens it was sent.
    static func ledger(refusals: Int, code: String) async throws -> (TestServer, Tokens) {
        let tokens = Tokens()
        let router = Router()
        router.get("/v1/users/:id") { request, _ -> Response in
            let count = tokens.sent.withLock { tokens in
                tokens.append(request.headers[HTTPField.Name("Ledger-Read-After")!])
                return tokens.count
            }
            var headers: HTTPFields = [.contentType: "application/json"]
            guard count > refusals else {
                headers[.retryAfter] = "1"
                let body = #"{"error":{"code":"\#(code)","message":"not yet"}}"#
                return Response(status: .serviceUnavailable, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: state)))
        }
        return (try await TestServer.start(router, label: "test.sdk-ledger"), tokens)
    }

    @Test func aPendingReadIsSentAgainWithItsTokenUntilAnswered() async throws {
        let (server, tokens) = try await Self.ledger(refusals: 2, code: "read_after_pending")
        // Patience far beyond the two refusals' Retry-After: a loaded machine's slow requests must not end it (the
        // default 15 s did once, with the whole suite running).
        let client = LedgerClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, apiKey: "pk_test", readAfterPatience: .seconds(600))
        let answer = try await client.userState("buyer", cookie: nil, readAfter: "7514-1203")
        await server.stop()
        #expect(answer.body.appUserID == "buyer")
        #expect(tokens.sent.withLock { $0 } == ["7514-1203", "7514-1203", "7514-1203"])
    }

    @Test func aReadStillPendingWhenItsPatienceEndsIsRefused() async throws {
        let (server, tokens) = try await Self.ledger(refusals: 1, code: "read_after_pending")
        let client = LedgerClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, apiKey: "pk_test", readAfterPatience: .zero)
        await #expect {
            try await client.userState("buyer", cookie: nil, readAfter: "7514-1203")
        } throws: { error in
            guard case LedgerError.server(let refusal) = error else { return false }
            return refusal.code == .readAfterPending && refusal.retryAfterSeconds == 1
        }
        await server.stop()
        #expect(tokens.sent.withLock { $0.count } == 1, "no Retry-After fits in no patience")
    }

    @Test func anotherUnavailableAnswerIsNotSentAgain() async throws {
        let (server, tokens) = try await Self.ledger(refusals: 1, code: "service_unavailable")
        let client = LedgerClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, apiKey: "pk_test")
        await #expect(throws: LedgerError.self) { try await client.userState("buyer", cookie: nil, readAfter: "7514-1203") }
        await server.stop()
        #expect(tokens.sent.withLock { $0.count } == 1)
    }
}
