/// How many decimals a currency's minor unit has (ISO 4217 exponent): 2 for USD (cents), 0 for JPY, 3 for KWD.
///
/// Amounts are integers in the currency's minor unit; this is what renders them in major units. A currency not in
/// the table has 2 decimals, as most do.
public enum CurrencyDigits {
    /// Currencies whose minor unit is the major unit.
    static let none: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF",
        "XPF"
    ]
    /// Currencies with thousandths.
    static let three: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
    /// Currencies with ten-thousandths.
    static let four: Set<String> = ["CLF", "UYW"]

    /// The number of decimals of `currency` (an ISO 4217 code, any case).
    public static func of(_ currency: String) -> Int {
        let code = currency.uppercased()
        if none.contains(code) { return 0 }
        if three.contains(code) { return 3 }
        if four.contains(code) { return 4 }
        return 2
    }

    /// `minor` units of `currency` as a decimal in major units with the currency's own decimals (`1234` USD →
    /// `12.34`, JPY → `1234`, KWD → `1.234`), by integer arithmetic only.
    public static func major(_ minor: Int64, currency: String) -> String {
        let digits = of(currency)
        let sign = minor < 0 ? "-" : ""
        let magnitude = minor.magnitude
        guard digits > 0 else { return sign + String(magnitude) }
        var scale: UInt64 = 1
        for _ in 0..<digits { scale *= 10 }
        let fraction = String(magnitude % scale)
        return sign + String(magnitude / scale) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
