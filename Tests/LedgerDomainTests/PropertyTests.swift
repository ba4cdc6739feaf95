import LedgerDomain
import PropertyBased
import Testing

@Suite("Properties over random histories")
struct PropertyTests {
    static let history = Gen.int(in: 0...1_000_000).array(of: 0...40)

    @Test func asOfTheLastInstantEqualsTheFullFold() async {
        await propertyCheck(count: 200, input: Self.history) { seeds in
            let events = record(seeds.map(randomEvent))
            let last = events.last?.recordedAt ?? day(0)
            #expect(AllProjections(events, asOf: last) == AllProjections(events))
        }
    }

    @Test func foldingAPrefixThenTheRestEqualsFoldingAll() async {
        await propertyCheck(count: 200, input: Self.history, Gen.int(in: 0...40)) { seeds, cut in
            let events = record(seeds.map(randomEvent))
            let k = min(cut, events.count)
            let live = AllProjections(Array(events.prefix(k))).applying(Array(events.dropFirst(k)))
            #expect(live == AllProjections(events))
        }
    }

    @Test func anyDeliveryOrderWithDuplicatesConverges() async {
        await propertyCheck(count: 200, input: Self.history, Gen.int(in: 0...1_000_000).array(of: 0...80)) { seeds, noise in
            let events = seeds.map(randomEvent)
            guard !events.isEmpty else { return }
            // A reordering with duplicates, driven by `noise`: every event at least once.
            var delivered = events
            for n in noise { delivered.append(events[n % events.count]) }
            var order = Array(delivered.indices)
            for (i, n) in noise.enumerated() where !order.isEmpty {
                order.swapAt(i % order.count, n % order.count)
            }
            let shuffled = order.map { delivered[$0] }
            #expect(AllProjections(record(shuffled)) == AllProjections(record(events)))
        }
    }

    @Test func asOfAnyInstantEqualsFoldingThePrefixRecordedByThen() async {
        await propertyCheck(count: 100, input: Self.history, Gen.int(in: 0...40)) { seeds, cut in
            let events = record(seeds.map(randomEvent))
            guard !events.isEmpty else { return }
            let at = events[min(cut, events.count - 1)].recordedAt
            #expect(AllProjections(events, asOf: at) == AllProjections(events.filter { $0.recordedAt <= at }))
        }
    }
}

@Suite("Projection states survive storage")
struct StateStorageTests {
    @Test func statesRoundTripThroughJSON() async {
        await propertyCheck(count: 100, input: PropertyTests.history) { seeds in
            let all = AllProjections(record(seeds.map(randomEvent)))
            for state in all.subscriptions.values {
                let text = StateCodec.encode(state)
                #expect((try? StateCodec.decode(SubscriptionStatus.self, from: text)) == state)
                #expect((try? StateCodec.decode(SubscriptionStatus.self, from: text)).map(StateCodec.encode) == text)
            }
            for state in all.purchases.values {
                #expect((try? StateCodec.decode(PurchaseRecord.self, from: StateCodec.encode(state))) == state)
            }
            for state in all.paying.values {
                #expect((try? StateCodec.decode(PayingPurchase.self, from: StateCodec.encode(state))) == state)
            }
        }
    }

    @Test func subscriptionStateIsStoredAsText() {
        #expect(StateCodec.encode([SubscriptionState.expired(.billingError), .inGracePeriod]) == #"["expired:billingError","inGracePeriod"]"#)
        #expect(SubscriptionState(storedValue: "expired:SOMETHING") == .expired(.other("SOMETHING")))
        #expect(SubscriptionState(storedValue: "bogus") == nil)
    }
}
