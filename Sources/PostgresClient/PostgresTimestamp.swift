import Foundation

/// An exact `timestamptz`: microseconds since the Unix epoch, UTC.
///
/// `Date` is a Double; timestamps that feed hashes and invoices must round-trip exactly, so the client keeps
/// PostgreSQL's own integer microseconds and converts to `Date` only at the edges.
public struct PostgresTimestamp: Hashable, Comparable, Sendable, PostgresEncodable, CustomStringConvertible {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var microsecondsSinceEpoch: Int64

    /// PostgreSQL counts from 2000-01-01; this is that instant in Unix microseconds.
    static let postgresEpochOffset: Int64 = 946_684_800_000_000

    public init(microsecondsSinceEpoch: Int64) { self.microsecondsSinceEpoch = microsecondsSinceEpoch }

    public init(_ date: Date) {
        microsecondsSinceEpoch = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    public static func now() -> PostgresTimestamp { PostgresTimestamp(Date()) }

    public var date: Date { Date(timeIntervalSince1970: Double(microsecondsSinceEpoch) / 1_000_000) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch }

    public var postgresValue: PostgresValue {
        PostgresValue(type: .timestamptz, bytes: BigEndian.bytes(of: microsecondsSinceEpoch - Self.postgresEpochOffset))
    }

    /// RFC 3339 in UTC with microseconds, e.g. `2026-11-21T10:54:47.123456Z`.
    public var rfc3339: String {
        let seconds = microsecondsSinceEpoch.floorDivided(by: 1_000_000)
        let micros = microsecondsSinceEpoch - seconds * 1_000_000
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                            from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        func pad(_ value: Int?, _ width: Int) -> String {
            let text = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T"
            + "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2)).\(pad(Int(micros), 6))Z"
    }

    /// Parses RFC 3339 (`Z` or a numeric offset, 0–9 fraction digits; digits past microseconds are truncated).
    public init?(rfc3339 text: String) {
        let pattern = #"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})$"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        func group(_ index: Int) -> String? {
            guard let range = Range(match.range(at: index), in: text) else { return nil }
            return String(text[range])
        }
        var components = DateComponents()
        components.year = Int(group(1) ?? "")
        components.month = Int(group(2) ?? "")
        components.day = Int(group(3) ?? "")
        components.hour = Int(group(4) ?? "")
        components.minute = Int(group(5) ?? "")
        components.second = Int(group(6) ?? "")
        guard let month = components.month, (1...12).contains(month),
              let day = components.day, (1...31).contains(day),
              let hour = components.hour, hour < 24, let minute = components.minute, minute < 60,
              let second = components.second, second < 61 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        // No 30 February: the calendar would roll it over into March.
        guard let base = calendar.date(from: components), calendar.component(.day, from: base) == day else { return nil }
        var micros = Int64(base.timeIntervalSince1970) * 1_000_000
        if let fraction = group(7) {
            let digits = String((fraction + "000000").prefix(6))
            micros += Int64(digits) ?? 0
        }
        if let zone = group(8), zone != "Z", zone != "z" {
            let sign: Int64 = zone.hasPrefix("-") ? -1 : 1
            let hours = Int64(zone.dropFirst().prefix(2)) ?? 0
            let minutes = Int64(zone.suffix(2)) ?? 0
            micros -= sign * (hours * 3600 + minutes * 60) * 1_000_000
        }
        self.init(microsecondsSinceEpoch: micros)
    }

    public var description: String { rfc3339 }
}

extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
