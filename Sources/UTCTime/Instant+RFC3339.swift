/// RFC 3339, the text form of an instant at every edge (the API, exports, the command line), computed with the same
/// integer civil-calendar arithmetic as `CalendarMonth`: no `Calendar`, no time zone database.
extension Instant {
    /// UTC with microseconds, e.g. `2026-11-21T10:54:47.123456Z`.
    public var rfc3339: String { CalendarMonth.isoString(self) }

    /// Appends `rfc3339`'s UTF-8 to `bytes`, without making the string.
    public func appendRFC3339(to bytes: inout [UInt8]) { CalendarMonth.appendISO(self, to: &bytes) }

    /// Parses RFC 3339: `T`, `t` or a space between date and time, 0–9 fraction digits (digits past microseconds are
    /// truncated), `Z` or a numeric offset. Nil for anything else, impossible dates (30 February) included.
    public init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= b.count else { return nil }
            var value: Int64 = 0
            for i in range {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(b[10]),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        if b[index] == UInt8(ascii: ".") {
            let start = index + 1
            var end = start
            while end < b.count, end - start < 9, b[end] >= UInt8(ascii: "0"), b[end] <= UInt8(ascii: "9") { end += 1 }
            guard end > start, let fraction = number(start..<min(end, start + 6)) else { return nil }
            micros = fraction
            for _ in 0..<max(0, 6 - (end - start)) { micros *= 10 }
            index = end
        }
        var offset: Int64 = 0
        switch b.count - index {
        case 1 where b[index] == UInt8(ascii: "Z") || b[index] == UInt8(ascii: "z"):
            break
        case 6 where (b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-")) && b[index + 3] == UInt8(ascii: ":"):
            guard let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6) else { return nil }
            offset = (hours * 3_600 + minutes * 60) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
        default:
            return nil
        }
        let seconds = Self.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second - offset
        self.init(microsecondsSinceEpoch: seconds * 1_000_000 + micros)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
