/// An amount of money in integer units, never floating point.
///
/// App Store prices arrive in *milliunits* (1/1000 of the currency unit, `price` in JWSTransactionDecodedPayload);
/// card payments recorded by the developer's server are converted to milliunits too, so one unit serves both.
public struct Money: Sendable, Hashable, Codable {
    /// The amount in thousandths of the currency unit (e.g. 990 = 0.99).
    public var milliunits: Int64
    /// ISO 4217 code, e.g. "USD".
    public var currency: String

    /// Creates an amount from milliunits and a currency code.
    public init(milliunits: Int64, currency: String) {
        self.milliunits = milliunits
        self.currency = currency
    }
}
