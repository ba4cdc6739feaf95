import HTTPServerChannels
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// A connection the server drops unserved is closed by its own task; without the guard NIO traps when the
/// connection becomes active ("Deinited NIOAsyncWriter without calling finish()"), so a broken guard crashes this test.
@Suite struct ClosingChildChannelTests {
    let logger = Logger(label: "test.channels")
    let connection = ClosingChildChannel(
        HTTP1Channel(responder: { _, writer, _ in try await writer.writeResponse(HTTPResponse(status: .noContent)) }))

    @Test func aConnectionTheServerDropsIsClosedNotTrapped() async throws {
        let channel = NIOAsyncTestingChannel()
        // In one turn of the event loop, as when NIO's accept stream drops a connection: set up, released unserved,
        // then active, when NIO's handler lets go of its writer (the last reference but the dropped connection's task).
        try await channel.eventLoop.submit { [connection, logger] in
            connection.setup(channel: channel, logger: logger).whenSuccess { _ in }
            channel.pipeline.fireChannelActive()
        }.get()
        try await channel.closeFuture.get()
    }

    @Test func aConnectionDroppedOnceActiveIsClosedToo() async throws {
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        try await setUpAndDrop(channel)
        try await channel.closeFuture.get()
        #expect(!channel.isActive)
    }

    @Test func aServedConnectionIsLeftToItsHandler() async throws {
        let channel = NIOAsyncTestingChannel()
        try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        let value = try await channel.eventLoop.flatSubmit { [connection, logger] in connection.setup(channel: channel, logger: logger) }.get()
        let served = Task { [connection, logger] in await connection.handle(value: value, logger: logger) }
        // A request answered on the served connection, which its handler then closes (the request said so).
        try await channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: ledger\r\nConnection: close\r\n\r\n"))
        let answer = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
        #expect(String(buffer: answer).hasPrefix("HTTP/1.1 204"))
        await served.value
        try await channel.closeFuture.get()
        // Handled once only: a second hand-over (as by a released value's task) does nothing.
        await connection.handle(value: value, logger: logger)
    }

    /// Sets a connection up on `channel` and releases its value unserved, as NIO's accept stream does after the
    /// listener closed.
    private func setUpAndDrop(_ channel: NIOAsyncTestingChannel) async throws {
        _ = try await channel.eventLoop.flatSubmit { [connection, logger] in
            connection.setup(channel: channel, logger: logger).map { _ in () }
        }.get()
    }
}
