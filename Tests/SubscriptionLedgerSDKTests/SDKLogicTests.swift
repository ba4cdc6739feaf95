import Foundation
import Testing

@testable import SubscriptionLedgerSDKCore

/// The SDK's pure parts: backoff, the upload queue's rules, Server-Sent Events parsing, the live stream's decisions,
/// the cookie and error mapping.
@Suite struct SDKLogicTests {
    @Test func backoffDoublesFromTheInitialDelayUpToTheCapAndJitterOnlyShortensIt() {
        let policy = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(10), multiplier: 2, jitter: 0.5)
        #expect(
            (0...6).map { policy.delay(afterFailures: $0, random: 0) } == [
                .zero, .seconds(1), .seconds(2), .seconds(4), .seconds(8),
                .seconds(10), .seconds(10)
            ])
        #expect(policy.delay(afterFailures: 3, random: 0.999) > .milliseconds(2000))
        #expect(policy.delay(afterFailures: 3, random: 0.999) < .seconds(4))
        #expect(policy.delay(afterFailures: 10_000, random: 0) == .seconds(10))
    }

    @Test func theQueueKeepsAFailedUploadFirstBacksOffAndDropsItOnlyWhenDeliveredOrRefused() {
        var queue = UploadQueueState(policy: RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60), jitter: 0))
        let start = Date(timeIntervalSince1970: 1_000_000)
        let first = PendingUpload(userID: "u", payload: .transactions(["a"]), enqueuedAt: start)
        let second = PendingUpload(userID: "u", payload: .receipt(Data([1])), enqueuedAt: start)
        queue.enqueue(first)
        queue.enqueue(second)
        #expect(queue.next(at: start) == first)

        queue.record(.retryLater, for: first.id, at: start)
        #expect(queue.next(at: start) == nil, "the failed upload waits its backoff, and the later one does not overtake it")
        #expect(queue.nextDue == start.addingTimeInterval(1))
        queue.record(.retryLater, for: first.id, at: start.addingTimeInterval(1))
        #expect(queue.nextDue == start.addingTimeInterval(3))
        #expect(queue.pending.first?.failures == 2)

        queue.makeAllDue(at: start.addingTimeInterval(2))
        #expect(queue.next(at: start.addingTimeInterval(2))?.id == first.id)
        queue.record(.delivered, for: first.id, at: start.addingTimeInterval(2))
        #expect(queue.next(at: start.addingTimeInterval(2)) == second)
        queue.record(.refused, for: second.id, at: start.addingTimeInterval(2))
        #expect(queue.pending.isEmpty)
        #expect(queue.nextDue == nil)
    }

    @Test func whichFailuresKeepAnUploadQueued() {
        #expect(UploadQueueState.outcome(of: .transport("offline")) == .retryLater)
        for status in [500, 502, 503, 504, 429, 408] {
            #expect(UploadQueueState.outcome(of: .server(LedgerServerError(status: status, code: .serviceUnavailable, message: ""))) == .retryLater)
        }
        #expect(UploadQueueState.outcome(of: .server(LedgerServerError(status: 400, code: .invalidSignature, message: ""))) == .refused)
        #expect(UploadQueueState.outcome(of: .restoreRefused(conflicts: [], message: "")) == .refused)
    }

    @Test func theQueueSurvivesARelaunchOnDisk() throws {
        let file = JSONFile<[PendingUpload]>(url: URL(fileURLWithPath: NSTemporaryDirectory() + "sdk-queue-\(UUID()).json"))
        defer { file.remove() }
        let upload = PendingUpload(userID: nil, payload: .receipt(Data([0xDE, 0xAD])), transactionIDs: ["9"])
        try file.write([upload])
        #expect(file.read() == [upload])
    }

    @Test func serverSentEventsAreParsedWhereverTheChunksAreCut() {
        let text =
            "id: 1-2\r\nevent: snapshot\r\ndata: {\"a\":1}\r\n\r\n: heartbeat\n\nid: 1-3\nevent: change\ndata: line1\ndata:line2\n\n"
            + "data: é\n\n"
        let bytes = Array(text.utf8)
        let expected = [
            ServerSentEvent(id: "1-2", event: "snapshot", data: #"{"a":1}"#),
            ServerSentEvent(id: "1-3", event: "change", data: "line1\nline2"),
            ServerSentEvent(id: "1-3", event: "message", data: "é")
        ]
        for chunkSize in [1, 2, 3, 7, bytes.count] {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            for start in stride(from: 0, to: bytes.count, by: chunkSize) {
                events += parser.feed(bytes[start..<min(start + chunkSize, bytes.count)])
            }
            #expect(events == expected, "chunks of \(chunkSize)")
            #expect(parser.comments == 1)
        }
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: unfinished\n".utf8)).isEmpty, "an event without its blank line is not complete")
    }

    @Test func theLiveStreamReconnectsWithItsCursorAndFallsBackToPolling() {
        var policy = LiveConnectionPolicy(
            retry: RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(30), jitter: 0),
            pollInterval: .seconds(60), failuresBeforePolling: 3)
        #expect(policy.decide(after: .droppedAfterEvents) == .reconnect(after: .zero, keepCursor: true))
        #expect(policy.decide(after: .unreachable, random: 0) == .reconnect(after: .seconds(1), keepCursor: true))
        #expect(policy.decide(after: .refused(status: 503), random: 0) == .reconnect(after: .seconds(2), keepCursor: true))
        #expect(policy.decide(after: .unreachable, random: 0) == .poll(every: .seconds(60), retryStreamAfter: .seconds(4)))
        #expect(policy.decide(after: .droppedAfterEvents) == .reconnect(after: .zero, keepCursor: true))
        #expect(policy.consecutiveFailures == 0)
        #expect(policy.decide(after: .refused(status: 400), random: 0) == .reconnect(after: .seconds(1), keepCursor: false))
        #expect(policy.decide(after: .refused(status: 406)) == .poll(every: .seconds(60), retryStreamAfter: .seconds(30)))
        #expect(policy.decide(after: .refused(status: 403)) == .stop)
        #expect(policy.decide(after: .refused(status: 401)) == .stop)
    }

    @Test func theUIDCookieIsReadFromFoldedSetCookieHeaders() throws {
        let folded =
            "uid=user%20one; Expires=Fri, 01 Jan 2027 00:00:00 GMT; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax, "
            + "uid_sig=1798761600.q3Jt0u4c9m0d-_; Expires=Fri, 01 Jan 2027 00:00:00 GMT; Max-Age=2592000; Path=/; HttpOnly"
        let cookie = try #require(UIDCookie.from(setCookie: folded, userID: "user one"))
        #expect(cookie.uid == "user%20one")
        #expect(cookie.signature == "1798761600.q3Jt0u4c9m0d-_")
        #expect(cookie.expires == Date(timeIntervalSince1970: 1_798_761_600))
        #expect(cookie.isUsable(for: "user one", now: Date(timeIntervalSince1970: 1_798_000_000)))
        #expect(!cookie.isUsable(for: "someone else", now: Date(timeIntervalSince1970: 1_798_000_000)), "a cookie is only for its user")
        #expect(!cookie.isUsable(for: "user one", now: Date(timeIntervalSince1970: 1_798_761_590)), "expired (within the margin)")
        #expect(UIDCookie.from(setCookie: "xuid=a; uid_sig=1.b", userID: "a") == nil)
    }

    @Test func errorAnswersBecomeTypedErrors() {
        let refused = LedgerError.fromAnswer(
            status: 409,
            body: Data(
                #"""
                {"error":{"code":"restore_refused","message":"kept","conflicts":[{"original_transaction_id":"1","owner_user_id":"alice"}]}}
                """#.utf8), requestID: nil)
        #expect(refused == .restoreRefused(conflicts: [RestoreConflict(originalTransactionID: "1", ownerUserID: "alice")], message: "kept"))
        let consumed = LedgerError.fromAnswer(
            status: 409, body: Data(#"{"error":{"code":"already_consumed","message":"m"}}"#.utf8),
            requestID: "r")
        #expect(consumed == .server(LedgerServerError(status: 409, code: .alreadyConsumed, message: "m", requestID: "r")))
        #expect(LedgerErrorCode(rawValue: "brand_new_code") == .other("brand_new_code"))
        #expect(LedgerErrorCode.wrongBundleID.rawValue == "wrong_bundle_id")
        #expect(!consumed.isRetryable)
        #expect(LedgerError.fromAnswer(status: 502, body: Data("<html>".utf8), requestID: nil).isRetryable)
    }

    /// `known` (false: the ledger holds no purchase of the user) is read when the ledger sends it, and an answer
    /// without it (an older ledger) or with members the SDK does not know still decodes.
    @Test func theUserStateCarriesKnownAndToleratesItsAbsence() throws {
        func state(_ members: String) throws -> Wire.UserState {
            let text =
                #"{"app_user_id":"u",\#(members)"subscriptions":[],"entitlements":[],"one_time_purchases":[],"unconsumed":[],"#
                + #""products_status":[],"intro_offer_eligibility":[]}"#
            return try JSONDecoder().decode(Wire.UserState.self, from: Data(text.utf8))
        }
        #expect(try state(#""known":false,"#).known == false)
        #expect(try state(#""known":true,"#).known == true)
        #expect(try state("").known == nil)
        #expect(try state(#""known":true,"surprise":{"a":[1]},"#).known == true)
    }
}
