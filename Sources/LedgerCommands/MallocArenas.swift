import CMalloc
import Foundation

/// glibc's malloc arenas in `ledger serve`.
///
/// glibc gives threads that allocate at the same time arenas of their own, up to eight per core, and each keeps
/// its freed memory. The server's threads (event loops, Swift's pool, one libpq thread per pooled connection, the
/// webhook client's) all allocate per request. Under 1,000 live streams and a load of notifications on 2 cores the
/// server peaked at 214–222 MiB with glibc's default, 141–143 MiB with two arenas and 127–130 MiB with one, at the same
/// throughput; status reads cost the same CPU per request with one, two or the default (Benchmarks/README.md).
/// So: one arena per two cores. glibc's own `MALLOC_ARENA_MAX`, when set, wins.
///
/// glibc gives each new thread that allocates an arena of its own until the cap, and a cap set later does not take
/// arenas back: `ServeCommand.run` already runs on a thread of Swift's pool, so capping there left two arenas
/// (146–148 MiB). The `ledger` executable caps them first thing in `main` (`limit(forCommand:)`).
public enum MallocArenas {
    package static var serveLimit: Int32 { Int32(max(1, ProcessInfo.processInfo.activeProcessorCount / 2)) }

    /// For `main`, before anything else runs: caps the arenas when `arguments` (without the program's name) run
    /// `ledger serve`. Other commands keep glibc's default (a rebuild's fold threads allocate side by side).
    public static func limit(forCommand arguments: [String]) {
        guard arguments.first == "serve" else { return }
        limit(environment: ProcessInfo.processInfo.environment)
    }

    /// Caps the arenas at `serveLimit` unless `MALLOC_ARENA_MAX` is set; answers the cap applied (nil: none, or not
    /// glibc).
    @discardableResult
    package static func limit(environment: [String: String]) -> Int32? {
        guard environment["MALLOC_ARENA_MAX"] == nil else { return nil }
        let arenas = serveLimit
        return c_malloc_limit_arenas(arenas) == 1 ? arenas : nil
    }
}
