/// What a webhook endpoint may be, checked whenever one is created or changed; the edges turn a refusal into their
/// own answer (the API's 400).
package enum WebhookEndpointRules {
    /// A refusal, with what to send instead.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// The URL as stored, checked by the same rule as each delivery (`OutboundPolicy.check`: the host resolved, every
    /// address judged), so that an endpoint no delivery could reach is refused here rather than failed at every attempt.
    package static func url(_ text: String, allowPrivateAddresses: Bool) async throws(Refusal) -> String {
        do {
            return try await OutboundPolicy(allowPrivateAddresses: allowPrivateAddresses).check(text)
        } catch {
            throw Refusal(description: error.description)
        }
    }

    /// Ledger event types (`subscription.renewed`, …), at most 100, each once; types this version does not know yet
    /// are allowed.
    package static func eventTypes(_ types: [String]) throws(Refusal) -> [String] {
        guard types.count <= 100 else {
            throw Refusal(description: "`event_types` has more than 100 items; send them in several requests")
        }
        for (index, type) in types.enumerated() {
            guard type.utf8.count <= 100, type.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E || $0 == 0x5F }),
                type.contains(".")
            else {
                throw Refusal(description: "`event_types[\(index)]` must be a ledger event type such as subscription.renewed or purchase.consumable")
            }
        }
        return Array(Set(types)).sorted()
    }

    /// `production`, `sandbox` or both, each once.
    package static func environments(_ list: [String]) throws(Refusal) -> [String] {
        guard !list.isEmpty, list.allSatisfy({ $0 == "production" || $0 == "sandbox" }) else {
            throw Refusal(description: "`environments` must list production, sandbox or both")
        }
        return Array(Set(list)).sorted()
    }
}
