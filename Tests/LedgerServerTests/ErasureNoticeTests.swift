import Foundation
import HTTPTypes
import LedgerPrivacy
import LedgerServer
import LedgerServerTestSupport
import Logging
import PostgresClient
import PostgresTestSupport
import Testing

/// An erasure on one instance reaches the others (`ErasureNotices`): the user's live streams there end, and the data
/// keys they hold are forgotten at once rather than after their minute in the cache.
@Suite struct ErasureNoticeTests {
    @Test(.timeLimit(.minutes(10))) func anErasureEndsTheUsersStreamsAndForgetsTheKeysOnAnotherInstance() async throws {
        let database = try await TestDatabase.makeDatabase(prefix: "erasure_notice")
        let first = try await APIHarness.make(database: database, now: SupportGrantTests.start)
        let second = try await APIHarness.make(database: database, now: SupportGrantTests.start)
        let listener = PostgresListener(configuration: second.pool.configuration, channels: [UserErasure.channel])
        let (events, observer) = AsyncStream<ListenerEvent>.makeStream()
        let notices = ErasureNotices(api: second.api, logger: Logger(label: "test"))
        let following = Task { await notices.follow(listener.events()) { observer.yield($0) } }
        let user = "dora-51c0"
        try await first.test { a in
            try await second.test { b in
                var heard = events.makeAsyncIterator()
                try #require(await heard.next() == .connected)
                let tenant = try await a.tenant()
                let external =
                    #"{"payment_id":"ch_5","provider":"paylike","product_id":"coins","product_type":"consumable","#
                    + #""price":{"amount_milliunits":990,"currency":"USD"},"purchased_at":"2026-01-02T10:00:00Z","#
                    + #""developer_payload":"for dora"}"#
                #expect(try await a.send(.post, "/v1/users/\(user)/external-purchases", headers: tenant.secret, json: external).status == .created)
                try await first.project()

                // The second instance streams the user's state and has read their purchase (its key is in its cache).
                let hub = second.api.live
                let stream = try hub.open(app: tenant.appID, user: user, pseudonym: try await hub.pseudonym(app: tenant.appID, user: user), key: "k")
                let read = try await b.send(.get, "/v1/users/\(user)/unconsumed", headers: tenant.secret)
                #expect(read.text.contains(#""developer_payload":"for dora""#), "\(read.text)")

                let erased = try await a.send(.delete, "/v1/users/\(user)?reason=ticket-3", headers: tenant.secret)
                #expect(erased.status == .ok, "\(erased.text)")
                while let event = await heard.next() {
                    if case .notification(let channel, _) = event, channel == UserErasure.channel { break }
                }
                // The stream has ended (iterating it returns; were it open, the time limit would fail the test)...
                for await _ in stream.messages {}
                // ...and the purchase's key is no longer held: its sealed payload does not open here either.
                let sealed = try #require(
                    try await second.pool.query("SELECT developer_payload FROM ledger.purchases WHERE app_id = \(tenant.appID)").first?
                        .decode(String.self, at: 0))
                #expect(try await second.identities.fields.open(app: tenant.appID, [sealed]).isEmpty)
            }
        }
        await listener.stop()
        following.cancel()
    }
}
