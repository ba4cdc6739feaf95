import Foundation
import UTCTime
import Testing

@Suite("Instant and calendar months")
struct InstantTests {
    @Test func millisecondsRoundTrip() {
        #expect(Instant(epochMilliseconds: 1_700_000_000_123).microsecondsSinceEpoch == 1_700_000_000_123_000)
        #expect(Instant(epochMilliseconds: -1).epochMilliseconds == -1)
        #expect(Instant(microsecondsSinceEpoch: -1).epochMilliseconds == -1)
        #expect(Instant(epochMilliseconds: .max).microsecondsSinceEpoch == .max)
    }

    @Test func codableAsTheBareInteger() throws {
        let data = try JSONEncoder().encode([Instant(microsecondsSinceEpoch: 42)])
        #expect(String(decoding: data, as: UTF8.self) == "[42]")
        #expect(try JSONDecoder().decode([Instant].self, from: data) == [Instant(microsecondsSinceEpoch: 42)])
    }

    @Test func civilCalendarMatchesKnownDates() {
        #expect(Instant(microsecondsSinceEpoch: 0).description == "1970-01-01T00:00:00.000000Z")
        #expect(Instant(epochMilliseconds: 1_709_164_800_000).description == "2024-02-29T00:00:00.000000Z")
        #expect(Instant(microsecondsSinceEpoch: -1).description == "1969-12-31T23:59:59.999999Z")
        #expect(CalendarMonth(containing: Instant(epochMilliseconds: 1_798_761_599_999)) == CalendarMonth(year: 2026, month: 12))
        #expect(CalendarMonth(containing: Instant(epochMilliseconds: 1_798_761_600_000)) == CalendarMonth(year: 2027, month: 1))
    }
}
