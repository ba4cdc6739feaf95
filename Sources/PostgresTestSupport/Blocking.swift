import Foundation

/// Blocking work (libpq, initdb, waiting for a child) on a thread of its own. The cooperative pool has as many threads
/// as cores: on two cores, two tests blocking there stall every other test and every in-process server of the run.
public enum Blocking {
    public static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
