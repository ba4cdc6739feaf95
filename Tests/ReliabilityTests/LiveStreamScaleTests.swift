import AppStoreSamples
import Foundation
import Glibc
import PostgresTestSupport
import Testing

/// Idle live streams are cheap: a thousand Server-Sent Events streams (each past its snapshot, so each is a
/// registered stream with its connection, task and buffer) cost a real `ledger serve` less than 100 MB.
@Suite struct LiveStreamScaleTests {
    @Test(.timeLimit(.minutes(10))) func aThousandIdleStreamsCostTheServerLessThan100MB() async throws {
        let signer = try AppStoreTestSigner()
        let (server, _) = try await ServerProcess.started(databasePrefix: "live", signer: signer)
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL, timeout: 15)
        let tenant = try await LedgerTenant.create(client)
        let pid = try #require(server.pid)
        let port = server.port
        // Warm up (first allocations of every path), then measure from there.
        for socket in try await Self.openStreams(20, port: port, key: tenant.secretKey, prefix: "warm") { close(socket) }
        let before = try Self.residentBytes(pid)
        let sockets = try await Self.openStreams(1000, port: port, key: tenant.secretKey, prefix: "user")
        let after = try Self.residentBytes(pid)
        let cost = after - before
        #expect(sockets.count == 1000)
        #expect(cost < 100 << 20, "1,000 idle streams cost \(cost >> 20) MiB")
        ReliabilityScale.report(
            "live-streams",
            [
                "streams": sockets.count, "rss_before_kib": before >> 10, "rss_after_kib": after >> 10,
                "bytes_per_stream": cost / max(1, sockets.count)
            ])
        for socket in sockets { close(socket) }
        _ = await server.stop()
    }

    /// Opens `count` streams (users `<prefix>-0`…) over plain sockets and returns them once each has had its snapshot.
    static func openStreams(_ count: Int, port: Int, key: String, prefix: String) async throws -> [Int32] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    var sockets: [Int32] = []
                    for index in 0..<count {
                        let socket = try connect(port: port)
                        let request =
                            "GET /v1/users/\(prefix)-\(index)/live HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n"
                            + "Accept: text/event-stream\r\n\r\n"
                        _ = request.withCString { send(socket, $0, strlen($0), 0) }
                        sockets.append(socket)
                    }
                    for socket in sockets { try waitForSnapshot(socket) }
                    continuation.resume(returning: sockets)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    struct StreamFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw StreamFailure(description: "connect failed: errno \(errno)") }
        return fd
    }

    /// Reads until the stream's first event (its snapshot) has arrived.
    static func waitForSnapshot(_ socket: Int32) throws {
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains("event: snapshot") {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { throw StreamFailure(description: "the stream ended before its snapshot: \(received.prefix(300))") }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        guard received.hasPrefix("HTTP/1.1 200") else { throw StreamFailure(description: received) }
    }

    /// The process's resident memory (VmRSS), in bytes.
    static func residentBytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else {
            throw StreamFailure(description: "no VmRSS for \(pid)")
        }
        return kib << 10
    }
}
