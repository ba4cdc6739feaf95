import Foundation

/// An App Store date: UNIX epoch milliseconds.
///
/// Kept as `Decimal` because Xcode writes fractional milliseconds (`1697679936049.7297`) and a `Double` would not
/// reproduce them exactly; `wholeMilliseconds` is what the ledger stores.
public struct AppStoreTimestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z, possibly fractional.
    public let milliseconds: Decimal

    public init(milliseconds: Decimal) { self.milliseconds = milliseconds }

    public init(milliseconds: Int64) { self.milliseconds = Decimal(milliseconds) }

    /// Parses a JSON number literal; nil if it is not a finite number within ±10^15 ms (about ±31,000 years).
    init?(literal: String) {
        guard let value = Decimal(string: literal, locale: Locale(identifier: "en_US_POSIX")), value.isFinite,
            abs(value) < Decimal(sign: .plus, exponent: 15, significand: 1)
        else { return nil }
        self.milliseconds = value
    }

    /// Milliseconds rounded toward negative infinity (so `…049.7297` is `…049`).
    public var wholeMilliseconds: Int64 {
        var input = milliseconds
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, 0, .down)
        return NSDecimalNumber(decimal: rounded).int64Value
    }

    /// As X.509 validity is checked (swift-certificates takes a `Date`), fraction included.
    var date: Date {
        Date(timeIntervalSince1970: NSDecimalNumber(decimal: milliseconds).doubleValue / 1000)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public var description: String { "\(milliseconds)" }

    public init(from decoder: any Decoder) throws {
        self.milliseconds = try decoder.singleValueContainer().decode(Decimal.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(milliseconds)
    }
}
