@testable import LedgerWebhooks
import Testing
import UTCTime

/// The dispatcher's window, driven directly: what it admits, and when it reads the due deliveries again.
@Suite struct DeliveryWindowTests {
    static func delivery(_ id: String) -> WebhookDelivery {
        WebhookDelivery(
            appID: "app", endpointID: "endpoint", deliveryID: id, position: 1, eventType: "subscription.started", appUserID: nil,
            orderKey: "user-\(id)", sequence: 1, previousSequence: nil, payload: "{}", status: .pending, attempts: 0,
            nextAttemptAt: Instant(epochMilliseconds: 0), createdAt: Instant(epochMilliseconds: 0), firstAttemptAt: nil, finishedAt: nil)
    }

    static func deliveries(_ ids: ClosedRange<Int>) -> [WebhookDelivery] { ids.map { delivery("d\($0)") } }

    @Test func admitsUpToItsCapacityAndNeverADeliveryInFlight() {
        var window = DeliveryWindow(capacity: 4)
        #expect(window.admit(Self.deliveries(1...6)).map(\.deliveryID) == ["d1", "d2", "d3", "d4"])
        #expect(window.admit(Self.deliveries(1...6)).isEmpty, "full")
        _ = window.finished("d2", recorded: true)
        // `due` still returns the deliveries in flight (each is its user's head until recorded), not d2 (recorded):
        // only d5 is new, and there is room for one.
        let due = Self.deliveries(1...6).filter { $0.deliveryID != "d2" }
        #expect(window.admit(due).map(\.deliveryID) == ["d5"])
        #expect(window.sending == ["d1", "d3", "d4", "d5"])
    }

    @Test func readsTheDueDeliveriesAgainOnceHalfThePlacesAreFree() {
        var window = DeliveryWindow(capacity: 8)
        _ = window.admit(Self.deliveries(1...8))
        #expect(!window.wantsWakeUp, "full: the deliveries' ends drive it")
        #expect(window.finished("d1", recorded: true) == false)
        #expect(window.finished("d2", recorded: true) == false)
        #expect(window.finished("d3", recorded: true) == false)
        #expect(window.finished("d4", recorded: true) == true, "four of eight in flight")
        #expect(window.wantsWakeUp, "half free: new deliveries made meanwhile are read on a wake-up too")
        #expect(window.finished("d5", recorded: true) == true)
    }

    @Test func aFailureWaitsForTheNextWakeUp() {
        var window = DeliveryWindow(capacity: 2)
        _ = window.admit(Self.deliveries(1...2))
        #expect(window.finished("d1", recorded: false) == false, "an unrecorded attempt: the database may be down")
        #expect(window.wantsWakeUp)
        #expect(window.finished("d2", recorded: true) == false, "still backing off")
        window.wokenUp()
        #expect(!window.backingOff)
        _ = window.admit(Self.deliveries(1...1))
        window.failed()
        #expect(window.finished("d1", recorded: true) == false)
    }

    @Test func aWindowOfOneSendsOneAtATime() {
        var window = DeliveryWindow(capacity: 1)
        #expect(window.admit(Self.deliveries(1...3)).map(\.deliveryID) == ["d1"])
        #expect(!window.wantsWakeUp)
        #expect(window.finished("d1", recorded: true) == true)
        #expect(DeliveryWindow(capacity: 0).capacity == 1)
    }
}
