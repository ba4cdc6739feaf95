import Foundation
import LedgerDomain
import LedgerStore
@testable import LedgerWebhooks
import LedgerWebhooks
import NIOCore
import Testing
import UTCTime

@Suite struct WebhookSignatureTests {
    /// The example of the Standard Webhooks specification (and of its reference libraries' tests).
    @Test func theSpecificationsExampleSignsAsPublished() throws {
        let header = try WebhookSignature.header(
            secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
            timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func aRotationSignsWithBothSecretsAndABadSecretIsAnError() throws {
        let body = Array("{}".utf8)
        let header = try WebhookSignature.header(secrets: ["whsec_AAAA", "whsec_BBBB"], id: "msg_1", timestamp: 1, body: body)
        let parts = header.split(separator: " ")
        #expect(parts.count == 2)
        #expect(parts[0] == "v1," + (try WebhookSignature.sign(secret: "whsec_AAAA", id: "msg_1", timestamp: 1, body: body)))
        #expect(parts[1] == "v1," + (try WebhookSignature.sign(secret: "whsec_BBBB", id: "msg_1", timestamp: 1, body: body)))
        #expect(parts[0] != parts[1])
        #expect(throws: WebhookSignature.Failure.malformedSecret) {
            try WebhookSignature.sign(secret: "whsec_not base64!", id: "msg_1", timestamp: 1, body: body)
        }
    }

    @Test func theSecretsSigningDependOnTheRotationsExpiry() {
        let now = Instant(microsecondsSinceEpoch: 1_000_000_000)
        var endpoint = WebhookEndpoint(
            appID: "a", endpointID: "e", url: "https://x", description: nil, eventTypes: [],
            environments: ["production"], secret: "new", previousSecret: "old",
            previousSecretExpiresAt: now.adding(microseconds: 1), status: .enabled, disabledReason: nil,
            failingSince: nil, createdAt: now, updatedAt: now)
        #expect(endpoint.signingSecrets(at: now) == ["new", "old"])
        endpoint.previousSecretExpiresAt = now
        #expect(endpoint.signingSecrets(at: now) == ["new"])
        #expect(endpoint.accepts(type: "subscription.renewed", environment: "production"))
        #expect(!endpoint.accepts(type: "subscription.renewed", environment: "sandbox"))
        endpoint.eventTypes = ["purchase.consumed"]
        #expect(!endpoint.accepts(type: "subscription.renewed", environment: "production"))
        #expect(endpoint.accepts(type: "purchase.consumed", environment: nil))
    }
}

@Suite struct RetryScheduleTests {
    let start = Instant(microsecondsSinceEpoch: 1_700_000_000_000_000)

    @Test func delaysDoubleUpToTheCapWithinTheJitter() {
        let schedule = RetrySchedule()
        #expect(schedule.delay(after: 1, unit: 0.5) == .seconds(5))
        #expect(schedule.delay(after: 2, unit: 0.5) == .seconds(10))
        #expect(schedule.delay(after: 5, unit: 0.5) == .seconds(80))
        #expect(schedule.delay(after: 30, unit: 0.5) == .seconds(6 * 3600))
        #expect(schedule.delay(after: 1_000, unit: 0.5) == .seconds(6 * 3600))
        for attempt in 1...30 {
            let middle = schedule.delay(after: attempt, unit: 0.5)
            #expect(schedule.delay(after: attempt, unit: 0) == middle * 0.8)
            #expect(schedule.delay(after: attempt, unit: 0.999_999) <= middle * 1.2)
            #expect(schedule.delay(after: attempt, unit: 0.999_999) > middle)
        }
    }

    /// Failing every time, a delivery is retried for 72 hours and then given up, never later, whatever the draws.
    @Test func aDeliveryFailingForeverIsGivenUpAfterTheWindow() {
        let schedule = RetrySchedule()
        for seed in 0..<20 {
            var generator = SplitMix(seed: UInt64(seed))
            var now = start
            var attempt = 1
            while case .retry(let next) = schedule.afterFailure(
                attempt: attempt, firstAttempt: start, now: now,
                unit: Double(generator.next() % 1_000_000) / 1_000_000)
            {
                #expect(next > now)
                now = next
                attempt += 1
            }
            let hours = Double(now.microsecondsSinceEpoch - start.microsecondsSinceEpoch) / 3_600_000_000
            #expect(hours <= 72)
            #expect(hours > 72 - 6 * 1.2)
            #expect((15...40).contains(attempt))
        }
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}

@Suite struct OutboundPolicyTests {
    @Test(arguments: [
        ("127.0.0.1", false), ("10.1.2.3", false), ("172.16.0.1", false), ("172.31.255.255", false), ("172.32.0.1", true),
        ("192.168.1.1", false), ("169.254.169.254", false), ("100.64.0.1", false), ("0.0.0.0", false), ("224.0.0.1", false),
        ("255.255.255.255", false), ("8.8.8.8", true), ("17.253.144.10", true), ("::1", false), ("::", false),
        ("fe80::1", false), ("fd00::1", false), ("::ffff:127.0.0.1", false), ("::ffff:8.8.8.8", true), ("2001:4860:4860::8888", true),
        ("198.51.100.7", false), ("203.0.113.9", false), ("192.0.2.1", false), ("198.51.99.1", true), ("::127.0.0.1", false),
        ("64:ff9b::10.0.0.1", false), ("64:ff9b::8.8.8.8", true), ("2002:c0a8:0101::1", false), ("2002:0808:0808::1", true)
    ])
    func privateAndLoopbackAddressesAreNotPublic(address: String, isPublic: Bool) throws {
        #expect(OutboundPolicy.isPublic(try SocketAddress(ipAddress: address, port: 443)) == isPublic)
    }

    @Test func urlsAreCheckedBeforeAnyConnection() async throws {
        let strict = OutboundPolicy(allowPrivateAddresses: false)
        for bad in [
            "ftp://example.com/x", "example.com/hooks", "https://", "https://user:pw@example.com/x", "javascript:alert(1)",
            "https://" + String(repeating: "a", count: 3000) + ".com"
        ] {
            await #expect(throws: OutboundPolicy.Refusal.self, "\(bad.prefix(40))") { try await strict.check(bad) }
        }
        await #expect(throws: OutboundPolicy.Refusal.blockedAddress(host: "127.0.0.1", address: "127.0.0.1")) {
            try await strict.check("http://127.0.0.1:9000/hooks")
        }
        await #expect(throws: OutboundPolicy.Refusal.blockedAddress(host: "::1", address: "::1")) { try await strict.check("http://[::1]/hooks") }
        #expect(try await strict.check("https://17.253.144.10/ledger") == "https://17.253.144.10/ledger")
        #expect(
            try await strict.check("HTTPS://17.253.144.10/Ledger?A=B") == "https://17.253.144.10/Ledger?A=B",
            "the scheme is stored in lower case")
        #expect(try await OutboundPolicy(allowPrivateAddresses: true).check("http://127.0.0.1:9000/hooks") == "http://127.0.0.1:9000/hooks")
        // Names and the other IPv4 notations are judged by the address getaddrinfo gives them: all loopback here.
        for host in ["localhost", "127.1", "0x7f000001", "2130706433", "0177.0.0.1"] {
            do throws(OutboundPolicy.Refusal) {
                try await strict.check("http://\(host):9000/hooks")
                Issue.record("\(host) was allowed")
            } catch {
                // localhost may come first as ::1: either address is loopback.
                guard case .blockedAddress(host: host, let address) = error else { Issue.record("\(host): \(error)"); continue }
                #expect(address == "127.0.0.1" || address == "::1", "\(host): \(error)")
            }
            #expect(try await OutboundPolicy(allowPrivateAddresses: true).check("http://\(host):9000/hooks") == "http://\(host):9000/hooks")
        }
        // `.invalid` never resolves (RFC 6761).
        await #expect(throws: OutboundPolicy.Refusal.unresolvable("hooks.invalid")) { try await strict.check("https://hooks.invalid/ledger") }
    }
}
