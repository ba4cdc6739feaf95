import AsyncHTTPClient
import Foundation
import LedgerServerTestSupport
import NIOCore
import NIOHTTP1
import Testing

@Suite struct WebhookReceiverTests {
    /// The test receiver can go down (connections refused) and come back on its port, also while a client keeps a
    /// connection to it open.
    @Test(.timeLimit(.minutes(5))) func theReceiverRestartsOnItsPort() async throws {
        let receiver = WebhookReceiver()
        try await receiver.start()
        let port = receiver.port
        // The shared client needs no shutdown: a client of its own, dropped unshut when an expectation below threw
        // (a request timing out under the whole suite), trapped in its deinit and took the test process down.
        let client = HTTPClient.shared
        var request = HTTPClientRequest(url: receiver.url)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: "{}"))
        #expect(try await client.execute(request, timeout: .seconds(10)).status == .noContent)
        await receiver.stop()
        // Refused (AsyncHTTPClient tries to connect again until the deadline, then fails).
        await #expect(throws: (any Error).self) { _ = try await client.execute(request, timeout: .seconds(1)) }
        try await receiver.start()
        #expect(receiver.port == port)
        #expect(try await client.execute(request, timeout: .seconds(10)).status == .noContent)
        #expect(receiver.accepted.count == 2)
        await receiver.stop()
    }
}
