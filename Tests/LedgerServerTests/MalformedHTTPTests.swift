import Foundation
import Hummingbird
import HummingbirdTesting
import LedgerServerTestSupport
import PostgresClient
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes that are not valid HTTP/1.1 reach the server over a real socket: the client's mistake is a 400 with the
/// error shape, never a 500.
@Suite struct MalformedHTTPTests {
    @Test(arguments: ["zz", "FFFFFFFFFFFFFFFFFFFF", "-1", "5\r\nhello\r\n0;x=\"unterminated"])
    func malformedChunkedBodiesAre400(chunkSize: String) async throws {
        let harness = try await APIHarness.make()
        try await harness.application.test(.live) { client in
            let port = try #require(client.port)
            let request =
                "POST /v1/admin/accounts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(APIHarness.adminToken)\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "\(chunkSize)\r\n{\"name\":\"x\"}\r\n0\r\n\r\n"
            let answer = try await RawHTTP.exchange(port: port, request: request)
            let statusLine = answer.split(separator: "\r\n").first.map(String.init) ?? ""
            #expect(statusLine.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains(#""code":"invalid_request""#), "\(answer)")
            #expect(answer.contains("chunk"), "the message says how to fix it: \(answer)")
        }
        await harness.pool.shutdown()
    }

    /// Bytes outside ASCII in the request target, raw (HTTP wants them percent-encoded), UTF-8 or not: each once held
    /// its connection open with no answer. Now a 400 in the error shape that says how to send them, at once, and the
    /// connection closed; the server goes on serving.
    @Test(.timeLimit(.minutes(10))) func rawNonASCIIBytesInTheTargetAre400AndFreeTheConnection() async throws {
        let harness = try await APIHarness.make()
        try await harness.application.test(.live) { client in
            let api = try APIClient(live: client, harness: harness)
            let tenant = try await api.tenant()
            let port = try #require(client.port)
            let targets: [[UInt8]] = [
                Array("/v1/users/jos\u{E9}".utf8), Array("/health\u{FC}".utf8), Array("/".utf8) + [0xFF, 0xFE],
                Array("/v1/users/".utf8) + [0xC3, 0x28], Array("/productsStatus?user-id=\u{FC}".utf8)
            ]
            for target in targets {
                let head = " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(tenant.secretKey)\r\n\r\n"
                let shown = target.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
                let (answer, closed) = try await RawHTTP.exchange(
                    port: port, bytes: Array("GET ".utf8) + target + Array(head.utf8),
                    timeoutSeconds: 30)
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(shown): \(answer)")
                #expect(answer.contains(#""code":"invalid_request""#), "\(shown): \(answer)")
                #expect(answer.contains("percent-encode"), "\(shown): the message says how to fix it: \(answer)")
                #expect(closed, "\(shown): the connection was left open after the answer")
            }
            // Any first request that does not parse hung the same way (the connection's upgrade stage, see FirstRequestGuard).
            for request in [
                "G@T /health HTTP/1.1\r\nHost: localhost\r\n\r\n", "GET /health HTTP/1.1\r\nHo st: localhost\r\n\r\n",
                "GET /he\u{1}alth HTTP/1.1\r\nHost: localhost\r\n\r\n"
            ] {
                let (answer, closed) = try await RawHTTP.exchange(port: port, bytes: Array(request.utf8), timeoutSeconds: 30)
                #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains(#""code":"invalid_request""#), "\(request.debugDescription): \(answer)")
                #expect(closed, "\(request.debugDescription): the connection was left open after the answer")
            }
            #expect(try await api.send(.get, "/health").status == .ok)
            #expect(try await api.send(.get, "/v1/users/jos%C3%A9", headers: tenant.secret).status == .ok, "percent-encoded, it is a user id")
        }
        await harness.pool.shutdown()
    }
}

/// One request written to a TCP socket on 127.0.0.1 and everything read back until the server closes, on a thread
/// of its own so that no task of the in-process server waits behind a blocking read. The timeout only bounds a hang:
/// while a whole run starts on two cores, the in-process server was seen to take over 10 s to answer.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func exchange(port: Int, request: String, timeoutSeconds: Int = 300) async throws -> String {
        try await exchange(port: port, bytes: Array(request.utf8), timeoutSeconds: timeoutSeconds).answer
    }

    /// The same with the request as raw bytes (not necessarily UTF-8); also whether the server closed the connection
    /// (rather than the read timing out after an answer).
    static func exchange(port: Int, bytes: [UInt8], timeoutSeconds: Int = 300) async throws -> (answer: String, closed: Bool) {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(answer: String, closed: Bool), any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try blockingExchange(port: port, bytes: bytes, timeoutSeconds: timeoutSeconds) })
            }
            thread.start()
        }
    }

    static func blockingExchange(port: Int, bytes: [UInt8], timeoutSeconds: Int) throws -> (answer: String, closed: Bool) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect() failed: \(errno)") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "send() failed: \(errno)") }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += buffer[0..<n]; continue }
            if n == 0 || !received.isEmpty { return (String(decoding: received, as: UTF8.self), n == 0) }
            throw Failure(description: "no answer within \(timeoutSeconds) s (errno \(errno))")
        }
    }
}
