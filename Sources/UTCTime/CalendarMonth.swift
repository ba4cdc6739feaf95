/// A calendar month in UTC, e.g. 2026-11: the billing period of paying-user counts and invoices.
///
/// Computed with integer civil-calendar arithmetic (Howard Hinnant's `civil_from_days`) so it needs no
/// `Calendar`, no time zone database and gives the same answer on every platform.
public struct CalendarMonth: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The year, e.g. 2026.
    public var year: Int
    /// The month, 1...12.
    public var month: Int

    /// Creates a month; `month` is expected in 1...12.
    public init(year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    /// The UTC month that contains `instant`.
    public init(containing instant: Instant) {
        let civil = CalendarMonth.civil(instant)
        self.init(year: civil.year, month: civil.month)
    }

    /// Parses `YYYY-MM` (month 01–12); nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month)
        else { return nil }
        self.init(year: year, month: month)
    }

    /// `YYYY-MM`, zero padded: the form used in projection keys.
    public var description: String {
        let m = month < 10 ? "0\(month)" : "\(month)"
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + m
    }

    public static func < (lhs: CalendarMonth, rhs: CalendarMonth) -> Bool {
        (lhs.year, lhs.month) < (rhs.year, rhs.month)
    }

    /// Year, month, day, and microseconds into the day of an instant (UTC).
    static func civil(_ instant: Instant) -> (year: Int, month: Int, day: Int, microsOfDay: Int64) {
        let perDay: Int64 = 86_400_000_000
        let micros = instant.microsecondsSinceEpoch
        var days = micros / perDay
        var rest = micros % perDay
        if rest < 0 { rest += perDay; days -= 1 }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day), rest)
    }

    /// ISO 8601 text of an instant, for descriptions and error messages only.
    static func isoString(_ instant: Instant) -> String {
        let c = civil(instant)
        if (0...9_999).contains(c.year) {
            return String(unsafeUninitializedCapacity: fixedISOLength) { fillFixedISO(c, $0) }
        }
        return paddedISO(c)
    }

    /// Appends `isoString(instant)`'s UTF-8 to `bytes` without making the string (a rebuild writes millions).
    static func appendISO(_ instant: Instant, to bytes: inout [UInt8]) {
        let c = civil(instant)
        guard (0...9_999).contains(c.year) else {
            bytes.append(contentsOf: paddedISO(c).utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: fixedISOLength) { buffer in
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<fillFixedISO(c, buffer)]))
        }
    }

    private static let fixedISOLength = 27

    /// A year of four digits, written digit by digit into `buffer` (27 bytes); returns the length.
    private static func fillFixedISO(
        _ c: (year: Int, month: Int, day: Int, microsOfDay: Int64), _ buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        let seconds = c.microsOfDay / 1_000_000
        let micros = c.microsOfDay % 1_000_000
        func put(_ value: Int64, _ width: Int, at start: Int) {
            var v = value
            for index in stride(from: start + width - 1, through: start, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
        }
        put(Int64(c.year), 4, at: 0)
        buffer[4] = UInt8(ascii: "-")
        put(Int64(c.month), 2, at: 5)
        buffer[7] = UInt8(ascii: "-")
        put(Int64(c.day), 2, at: 8)
        buffer[10] = UInt8(ascii: "T")
        put(seconds / 3_600, 2, at: 11)
        buffer[13] = UInt8(ascii: ":")
        put(seconds % 3_600 / 60, 2, at: 14)
        buffer[16] = UInt8(ascii: ":")
        put(seconds % 60, 2, at: 17)
        buffer[19] = UInt8(ascii: ".")
        put(micros, 6, at: 20)
        buffer[26] = UInt8(ascii: "Z")
        return fixedISOLength
    }

    private static func paddedISO(_ c: (year: Int, month: Int, day: Int, microsOfDay: Int64)) -> String {
        let seconds = c.microsOfDay / 1_000_000
        let micros = c.microsOfDay % 1_000_000
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(Int64(c.year), 4))-\(pad(Int64(c.month), 2))-\(pad(Int64(c.day), 2))T"
            + "\(pad(seconds / 3_600, 2)):\(pad(seconds % 3_600 / 60, 2)):\(pad(seconds % 60, 2)).\(pad(micros, 6))Z"
    }
}
