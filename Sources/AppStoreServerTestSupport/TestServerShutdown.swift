import ServiceLifecycle

/// Stops a test server that runs in `running` under `group`: a graceful shutdown first, a cancellation only if it
/// has not finished within `patience`.
///
/// Cancelling the serving task can drop a connection the server has accepted but not yet handed out, and NIO traps
/// on that connection ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#2637): a fresh-clone CI
/// run of the whole suite crashed so. A graceful shutdown closes the listener and still serves what it accepted. The
/// patience is long because the trap came back with 10 s while the whole suite loaded the machine: the cancellation is
/// for a server that hangs, not one that is slow.
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
