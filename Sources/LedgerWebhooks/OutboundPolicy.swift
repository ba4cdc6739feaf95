import Foundation
import NIOCore
import NIOPosix

/// Where webhooks may go. Addresses in loopback, private, link-local, shared (CGNAT), unspecified and multicast
/// ranges are refused unless the operator allows them (`LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES=1`; the tests and
/// local development set it): an endpoint URL is a tenant's input, and must not reach the ledger's own network.
///
/// `check` is the one decision, made when an endpoint's URL is set (so that an endpoint no delivery could ever reach
/// is refused then, not failed at every attempt) and again before each delivery: it resolves the host as the
/// connection would (getaddrinfo, so `localhost`, `127.1`, `0x7f000001` and `2130706433` are all 127.0.0.1) and
/// refuses if any address is not allowed. (A host that resolves differently between the check and the connection
/// could still slip through; the operator's egress firewall is the complete answer, and docs/webhooks.md says so.)
package struct OutboundPolicy: Sendable {
    package var allowPrivateAddresses: Bool

    package init(allowPrivateAddresses: Bool) { self.allowPrivateAddresses = allowPrivateAddresses }

    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case invalidURL(String)
        case blockedAddress(host: String, address: String)
        case unresolvable(String)

        package var description: String {
            switch self {
            case .invalidURL(let why): why
            case .blockedAddress(let host, let address):
                "\(host) is \(address), a private or loopback address; webhooks to such addresses are refused unless the operator "
                    + "sets LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES=1"
            case .unresolvable(let host):
                "\(host) does not resolve to an address; check the host name of the URL (it must resolve when the endpoint is set, "
                    + "and at each delivery)"
            }
        }
    }

    /// The URL of an endpoint, checked for what it must be whatever it resolves to: http(s), a host, no user info.
    package static func parse(_ text: String) throws(Refusal) -> (url: URL, host: String) {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http"
        else {
            throw .invalidURL("`url` must be an absolute http:// or https:// URL of at most 2048 bytes")
        }
        guard let host = url.host, !host.isEmpty else { throw .invalidURL("`url` must name a host") }
        guard url.user == nil, url.password == nil else {
            throw .invalidURL("`url` must not carry a user or password; the signature authenticates the ledger")
        }
        return (url, host)
    }

    /// Refuses a URL that is malformed, or whose host does not resolve or resolves to any address that is not allowed
    /// (resolved on a thread of NIO's pool, never an event loop; nothing is resolved when every address is allowed).
    /// Returns the URL as stored: its scheme in lower case (`HTTPS://` is the same URL, and the table's check wants
    /// `https://`).
    @discardableResult
    package func check(_ text: String) async throws(Refusal) -> String {
        let (url, host) = try Self.parse(text)
        let scheme = url.scheme ?? ""
        let stored = scheme.lowercased() + text.dropFirst(scheme.count)
        if allowPrivateAddresses { return stored }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        let port = url.port ?? (scheme.lowercased() == "https" ? 443 : 80)
        let addresses: [SocketAddress]
        do {
            addresses = try await NIOThreadPool.singleton.runIfActive {
                try Self.resolve(bare, port: port)
            }
        } catch {
            throw .unresolvable(host)
        }
        guard !addresses.isEmpty else { throw .unresolvable(host) }
        for address in addresses where !allowed(address) {
            throw .blockedAddress(host: host, address: address.ipAddress ?? bare)
        }
        return stored
    }

    /// Whether the policy allows a connection to `address`.
    package func allowed(_ address: SocketAddress) -> Bool {
        allowPrivateAddresses || Self.isPublic(address)
    }

    /// Not loopback, private, link-local, shared, unspecified, documentation-only or multicast.
    package static func isPublic(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            let bytes = withUnsafeBytes(of: v4.address.sin_addr.s_addr) { Array($0) }
            return isPublicV4(bytes)
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            // IPv4-mapped (::ffff:a.b.c.d): judged as the IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff { return isPublicV4(Array(bytes[12..<16])) }
            if bytes.allSatisfy({ $0 == 0 }) { return false }  // ::
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return false }  // ::1
            // IPv4-compatible (::a.b.c.d, deprecated), NAT64 (64:ff9b::/96) and 6to4 (2002:a.b.c.d::/16) carry an IPv4
            // address that a gateway may reach: judged as it.
            if bytes[0..<12].allSatisfy({ $0 == 0 }) { return isPublicV4(Array(bytes[12..<16])) }
            if bytes[0..<12] == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return isPublicV4(Array(bytes[12..<16])) }
            if bytes[0] == 0x20 && bytes[1] == 0x02 { return isPublicV4(Array(bytes[2..<6])) }
            if bytes[0] & 0xfe == 0xfc { return false }  // fc00::/7 unique local
            if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return false }  // fe80::/10 link-local
            if bytes[0] == 0xff { return false }  // multicast
            return true
        case .unixDomainSocket:
            return false
        }
    }

    static func isPublicV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): false
        case (100, 64...127): false  // shared address space (CGNAT)
        case (169, 254): false  // link-local
        case (172, 16...31): false
        case (192, 168): false
        case (192, 0) where b[2] == 0 || b[2] == 2: false  // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): false  // benchmarking
        case (198, 51) where b[2] == 100: false  // TEST-NET-2
        case (203, 0) where b[2] == 113: false  // TEST-NET-3
        case (224..., _): false  // multicast, reserved, broadcast
        default: true
        }
    }

    /// Blocking name resolution (getaddrinfo).
    static func resolve(_ host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let raw = info.pointee.ai_addr {
                switch Int32(raw.pointee.sa_family) {
                case AF_INET:
                    addresses.append(raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
                case AF_INET6:
                    addresses.append(raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
                default: break
                }
            }
            cursor = info.pointee.ai_next
        }
        return addresses
    }
}
