import LedgerStore
import Testing

@Suite struct NotifyCoalescerTests {
    @Test func aLoneAppendIsAnnouncedAtOnce() {
        var coalescer = NotifyCoalescer()
        #expect(coalescer.appended(app: "a") == .send(["a"]))
        #expect(coalescer.sent() == .none)
        #expect(coalescer.appended(app: "a") == .send(["a"]))  // idle again: the next append sends at once
    }

    /// Appends that commit while a NOTIFY is on its way may have committed after it was sent: they share the next
    /// one, which names each of their apps once.
    @Test func appendsDuringASendShareTheNextOne() {
        var coalescer = NotifyCoalescer()
        #expect(coalescer.appended(app: "b") == .send(["b"]))
        #expect(coalescer.appended(app: "b") == .none)
        #expect(coalescer.appended(app: "a") == .none)
        #expect(coalescer.appended(app: "b") == .none)
        #expect(coalescer.sent() == .send(["a", "b"]))
        #expect(coalescer.appended(app: "c") == .none)
        #expect(coalescer.sent() == .send(["c"]))
        #expect(coalescer.sent() == .none)
    }

    /// Whatever the interleaving, every append is followed by a send that began after it, and at most one send is
    /// under way at a time.
    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func everyAppendIsCoveredByALaterSend(seed: UInt64) {
        var random = RandomHistoryTests.SeededGenerator(state: seed)
        var coalescer = NotifyCoalescer()
        var inFlight: [String]? = nil
        var uncovered: Set<String> = []  // apps appended since the in-flight send began
        for _ in 0..<500 {
            if inFlight != nil, random.next() % 3 == 0 {
                let action = coalescer.sent()
                if case .send(let apps) = action {
                    #expect(Set(apps) == uncovered)
                    uncovered = []
                    inFlight = apps
                } else {
                    #expect(uncovered.isEmpty)
                    inFlight = nil
                }
            } else {
                let app = "app-\(random.next() % 4)"
                switch coalescer.appended(app: app) {
                case .send(let apps):
                    #expect(inFlight == nil && apps == [app])
                    inFlight = apps
                case .none:
                    #expect(inFlight != nil)
                    uncovered.insert(app)
                }
            }
        }
    }
}
