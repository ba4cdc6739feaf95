/// A graduated price plan: each band charges its unit price only for the paying users inside it (SPEC §6), plus an
/// optional flat fee when the band is reached. Money in integer minor units of `currency` (cents for USD).
public struct PricePlan: Sendable, Hashable, Codable {
    /// One band: users `from`…`to` (1-based, inclusive; `to` nil = no upper end).
    public struct Tier: Sendable, Hashable, Codable {
        public var from: Int
        public var to: Int?
        public var unitPriceMinor: Int64
        public var flatFeeMinor: Int64

        public init(from: Int, to: Int?, unitPriceMinor: Int64, flatFeeMinor: Int64 = 0) {
            self.from = from
            self.to = to
            self.unitPriceMinor = unitPriceMinor
            self.flatFeeMinor = flatFeeMinor
        }
    }

    public var id: String
    public var currency: String
    public var tiers: [Tier]

    public init(id: String, currency: String, tiers: [Tier]) {
        self.id = id
        self.currency = currency
        self.tiers = tiers
    }

    /// The seed's table: 1–100 free, 101–1,000 $0.01, 1,001–10,000 $0.02, above $0.03 per paying user.
    public static let standard = PricePlan(
        id: "standard", currency: "USD",
        tiers: [
            Tier(from: 1, to: 100, unitPriceMinor: 0),
            Tier(from: 101, to: 1_000, unitPriceMinor: 1),
            Tier(from: 1_001, to: 10_000, unitPriceMinor: 2),
            Tier(from: 10_001, to: nil, unitPriceMinor: 3)
        ])

    /// Why a plan is not usable.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case invalid(String)
        public var description: String { if case .invalid(let m) = self { return m }; return "" }
    }

    static let maximumPrice: Int64 = 1_000_000_000
    static let maximumUsers = 1_000_000_000

    /// Tiers must start at 1, be contiguous and ascending, only the last open-ended, prices not negative.
    public func validate() throws(Problem) {
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw .invalid("currency must be an ISO 4217 code such as USD")
        }
        guard let first = tiers.first, first.from == 1 else { throw .invalid("the first tier must start at user 1") }
        guard tiers.count <= 100 else { throw .invalid("a plan has at most 100 tiers") }
        for (index, tier) in tiers.enumerated() {
            guard tier.unitPriceMinor >= 0, tier.flatFeeMinor >= 0 else { throw .invalid("tier \(index + 1): prices must not be negative") }
            // Bounds that keep every amount far inside Int64, whatever the number of users.
            guard tier.unitPriceMinor <= Self.maximumPrice, tier.flatFeeMinor <= Self.maximumPrice else {
                throw .invalid("tier \(index + 1): prices above \(Self.maximumPrice) minor units are not supported")
            }
            if let to = tier.to {
                guard to < Self.maximumUsers else { throw .invalid("tier \(index + 1): `to` must be below \(Self.maximumUsers)") }
                guard to >= tier.from else { throw .invalid("tier \(index + 1): `to` is below `from`") }
                guard index + 1 < tiers.count else { throw .invalid("the last tier must be open-ended (no `to`)") }
                guard tiers[index + 1].from == to + 1 else { throw .invalid("tier \(index + 2) must start at \(to + 1)") }
            } else if index + 1 != tiers.count {
                throw .invalid("only the last tier may be open-ended")
            }
        }
    }

    /// The charge for `users` paying users, band by band (bands no user reaches are left out).
    public func bands(for users: Int) -> [BandCharge] {
        tiers.compactMap { tier in
            guard users >= tier.from else { return nil }
            let upper = min(users, tier.to ?? Int.max)
            let count = upper - tier.from + 1
            return BandCharge(
                from: tier.from, to: tier.to, users: count, unitPriceMinor: tier.unitPriceMinor,
                flatFeeMinor: tier.flatFeeMinor, amountMinor: Int64(count) * tier.unitPriceMinor + tier.flatFeeMinor)
        }
    }

    /// The total for `users` paying users.
    public func total(for users: Int) -> Int64 {
        bands(for: users).reduce(0) { $0 + $1.amountMinor }
    }
}

/// One band of a computed charge: its range, the users in it, the unit price and the amount.
public struct BandCharge: Sendable, Hashable, Codable {
    public var from: Int
    public var to: Int?
    public var users: Int
    public var unitPriceMinor: Int64
    public var flatFeeMinor: Int64
    public var amountMinor: Int64
}
