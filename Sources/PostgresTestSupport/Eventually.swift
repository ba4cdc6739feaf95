/// Polls `check` every `interval` until it holds or `timeout` has passed, then checks once more: a test process
/// starved past its deadline (a loaded machine pauses it for seconds) still sees what happened meanwhile instead of
/// giving up unchecked. For what no event announces: a read model catching up, a lock wait, a lease renewal.
/// Whether it held.
public func eventually(
    within timeout: Duration = .seconds(90), every interval: Duration = .milliseconds(50),
    isolation: isolated (any Actor)? = #isolation, _ check: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await check() { return true }
        try await Task.sleep(for: interval)
    }
    return try await check()
}
