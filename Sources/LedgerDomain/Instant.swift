/// Placeholder; replaced below.
public struct Instant: Sendable {}
