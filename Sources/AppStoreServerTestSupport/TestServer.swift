import HTTPServerChannels
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// Stops a test server that runs in `running` under `group`: a graceful shutdown first, a cancellation only if it
/// has not finished within `patience`.
///
/// Cancelling the serving task drops the connections the server has accepted but not yet handed out (closed by
/// `ClosingChildChannel`, where NIO would trap); a graceful shutdown still serves them. The patience is long: the
/// cancellation is for a server that hangs, not one that is slow under the whole suite's load.
package func stopTestServer(_ group: ServiceGroup?, running: Task<Void, any Error>?, patience: Duration = .seconds(60)) async {
    guard let running else { return }
    await group?.triggerGracefulShutdown()
    let fallback = Task {
        try await Task.sleep(for: patience)
        running.cancel()
    }
    _ = try? await running.value
    fallback.cancel()
}

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1.1 server, each connection closed if the server drops it unserved as it stops
    /// (`ClosingChildChannel`): every test server stops while clients may still connect.
    package static var closingHTTP1: HTTPServerBuilder {
        HTTPServerBuilder { responder in ClosingChildChannel(HTTP1Channel(responder: responder)) }
    }
}

/// A Hummingbird server for a test, on a loopback port chosen by the system, running until `stop`.
package struct TestServer: Sendable {
    package let group: ServiceGroup
    package let running: Task<Void, any Error>
    package let port: Int

    package enum StartError: Error { case didNotStart }

    /// Starts serving `router` and returns once the server listens.
    package static func start(_ router: Router<BasicRequestContext>, label: String) async throws -> TestServer {
        let quiet = Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        let application = Application(
            router: router, server: .closingHTTP1, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in readyContinuation.yield(channel.localAddress?.port ?? 0) }, logger: quiet)
        let group = ServiceGroup(configuration: .init(services: [application], gracefulShutdownSignals: [], logger: quiet))
        let running = Task {
            defer { readyContinuation.finish() }
            try await group.run()
        }
        for await port in ready where port > 0 {
            return TestServer(group: group, running: running, port: port)
        }
        _ = try await running.value
        throw StartError.didNotStart
    }

    package func stop() async { await stopTestServer(group, running: running) }
}
