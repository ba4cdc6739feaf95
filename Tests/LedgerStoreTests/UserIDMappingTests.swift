import LedgerDomain
import Testing

/// `LedgerEvent.mappingUserIDs` (docs/erasure.md: pseudonyms in the log): over histories that make every case of
/// `LedgerEvent`, every app user id an event names is replaced, nothing else is, and the replacement maps back.
@Suite struct UserIDMappingTests {
    @Test func everyUserIDOfEveryCaseIsReplacedAndMapsBack() {
        var events: [LedgerEvent] = []
        for seed in 1...12 as ClosedRange<UInt64> {
            var builder = HistoryBuilder(app: "a", random: ReadModelRebuildTests.SeededGenerator(state: seed))
            builder.build()
            events += builder.writes.compactMap(\.event)
        }
        #expect(Set(events.map(caseIndex)) == Set(0..<caseCount))
        var named = Set<Int>()
        for event in events {
            let ids = event.userIDs
            let mapped = event.mappingUserIDs { "usr_" + $0 }
            #expect(mapped.userIDs == ids.map { "usr_" + $0 })
            #expect(mapped.mappingUserIDs { String($0.dropFirst(4)) } == event, "case \(caseIndex(event)) maps back")
            if let owner = event.appUserID { #expect(ids.contains(owner), "case \(caseIndex(event)): its user is among its ids") }
            guard !ids.isEmpty else { continue }
            named.insert(caseIndex(event))
            // A field the mapping forgot would keep an id in the stored payload.
            let payload = mapped.encoded().payload
            for id in Set(ids) {
                #expect(!payload.contains(StateCodec.encode(id)), "case \(caseIndex(event)): \(id) left in \(payload)")
            }
        }
        // Every case that can name a user was seen naming one (all but the three without a user id field).
        #expect(named.count == caseCount - 3, "cases never seen with a user: \(Set(0..<caseCount).subtracting(named).sorted())")
    }
}
