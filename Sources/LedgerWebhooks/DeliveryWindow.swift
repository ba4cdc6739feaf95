/// An endpoint's deliveries in flight, and when its dispatcher reads the due ones again: a sliding window, not rounds.
///
/// Sent in rounds, the slowest delivery of a round held every other user's next one back (a receiver slow for one user
/// slowed all), and nothing was in flight while the round's statements ran. Here a finished delivery frees its place at
/// once; the due deliveries are read again once half the places are free (one statement per half window, not one per
/// delivery), or when the fan-out made new ones. A delivery stays the head of its user's order until its attempt is
/// recorded, so `due` keeps returning it while it is in flight: the window holds it back from being sent twice.
package struct DeliveryWindow: Sendable {
    package let capacity: Int
    /// Delivery ids in flight.
    package private(set) var sending: Set<String> = []
    /// After a failure (the database unreadable, an attempt unrecorded, the endpoint disabled) nothing is read or sent
    /// until the next wake-up: the poll interval or new deliveries.
    package private(set) var backingOff = false

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The due deliveries are read again when no more than this many are in flight.
    package var refillAt: Int { capacity / 2 }

    /// Whether the dispatcher should wait for a wake-up besides its deliveries: when it would read the due ones on one.
    package var wantsWakeUp: Bool { backingOff || sending.count <= refillAt }

    /// Takes from `due` (sending order) what is not in flight yet, as far as there is room, and counts it as in flight.
    package mutating func admit(_ due: [WebhookDelivery]) -> [WebhookDelivery] {
        var admitted: [WebhookDelivery] = []
        for delivery in due where sending.count < capacity && !sending.contains(delivery.deliveryID) {
            sending.insert(delivery.deliveryID)
            admitted.append(delivery)
        }
        return admitted
    }

    /// A delivery's attempt is over (`recorded`: its outcome was written). Returns whether to read the due ones now.
    package mutating func finished(_ deliveryID: String, recorded: Bool) -> Bool {
        sending.remove(deliveryID)
        if !recorded { backingOff = true }
        return !backingOff && sending.count <= refillAt
    }

    /// Reading the due deliveries or the endpoint failed, or the endpoint is not enabled.
    package mutating func failed() { backingOff = true }

    /// The poll interval passed or new deliveries were made: read the due ones.
    package mutating func wokenUp() { backingOff = false }
}
