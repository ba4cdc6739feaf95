import AsyncHTTPClient
import Foundation
import LedgerServerTestSupport
import NIOCore
import NIOHTTP1
import Testing

@Suite struct WebhookReceiverTests {
    /// The test receiver can go down (connections refused) and come back on its port, also while a client keeps a
    /// connection to it open.
    @Test(.timeLimit(.minutes(10))) func theReceiverRestartsOnItsPort() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        let port = receiver.port
        var request = HTTPClientRequest(url: receiver.url)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: "{}"))
        #expect(try await Self.withClient { try await $0.execute(request, timeout: .seconds(30)).status } == .noContent)
        await receiver.stop()
        // Refused (AsyncHTTPClient tries to connect again until the deadline, then fails).
        await #expect(throws: (any Error).self) { _ = try await Self.withClient { try await $0.execute(request, timeout: .seconds(1)) } }
        try await receiver.start()
        #expect(receiver.port == port)
        #expect(try await Self.withClient { try await $0.execute(request, timeout: .seconds(30)).status } == .noContent)
        #expect(receiver.accepted.count == 2)
        await receiver.stop()
    }

    /// A client of its own per phase, always shut down. One shared client kept the refused phase's connection
    /// attempts (and their back-off) for the port, so the request after the restart could wait past its deadline
    /// under the whole suite's load; a client dropped without `shutdown()` traps in its deinit.
    static func withClient<T: Sendable>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
