import LedgerDomain
import Testing

@Suite struct CurrencyDigitsTests {
    @Test(arguments: [
        (Int64(123_456), "USD", "1234.56"), (5, "USD", "0.05"), (-905, "EUR", "-9.05"), (0, "USD", "0.00"),
        (123_456, "JPY", "123456"), (-7, "KRW", "-7"),
        (123_456, "KWD", "123.456"), (7, "BHD", "0.007"), (12_345, "CLF", "1.2345"),
        (Int64.min, "USD", "-92233720368547758.08"), (99, "usd", "0.99")
    ])
    func majorUnits(minor: Int64, currency: String, text: String) {
        #expect(CurrencyDigits.major(minor, currency: currency) == text)
    }
}
