import LedgerDomain
import LedgerStore
import LedgerTenancy
import UTCTime

/// A card (or other non-App Store) payment recorded by the developer's server. The provider's `payment_id` is the
/// idempotency key: the same payment posted again is recorded once (and answers 200 instead of 201).
struct ExternalPurchaseInput: StrictBody {
    static let members = plain("payment_id", "provider", "product_id", "product_type", "purchased_at", "environment")
        .merging(["price": .object(Price.self), "expires_at": .nullable, "developer_payload": .nullable]) { $1 }

    struct Price: StrictBody {
        static let members = plain("amount_milliunits", "currency")
        /// Thousandths of the currency unit, like App Store prices (990 = 0.99): exact for every currency.
        var amountMilliunits: Int64
        var currency: String

        enum CodingKeys: String, CodingKey {
            case amountMilliunits = "amount_milliunits"
            case currency
        }
    }

    var paymentID: String
    var provider: String
    var productID: String
    var productType: String
    var price: Price
    var purchasedAt: String
    var expiresAt: String?
    var environment: String?
    var developerPayload: String?

    enum CodingKeys: String, CodingKey {
        case paymentID = "payment_id"
        case provider
        case productID = "product_id"
        case productType = "product_type"
        case price
        case purchasedAt = "purchased_at"
        case expiresAt = "expires_at"
        case environment
        case developerPayload = "developer_payload"
    }

    func validated(user: String) throws(APIError) -> ExternalPurchase {
        guard let type = ProductType(apiName: productType) else {
            throw .badRequest("`product_type` must be one of \(ProductType.allCases.map(\.apiName).joined(separator: ", "))")
        }
        guard price.amountMilliunits >= 0 else { throw .badRequest("`price.amount_milliunits` must not be negative") }
        guard price.currency.count == 3, price.currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw .badRequest("`price.currency` must be an ISO 4217 code such as \"USD\"")
        }
        let purchased = try Self.instant(purchasedAt, "purchased_at")
        let expires = try expiresAt.map { text throws(APIError) in try Self.instant(text, "expires_at") }
        if let expires, expires <= purchased { throw .badRequest("`expires_at` must be after `purchased_at`") }
        let environment: StoreEnvironment
        switch self.environment ?? "production" {
        case "production": environment = .production
        case "test": environment = StoreEnvironment(rawValue: "Test")
        default: throw .badRequest("`environment` must be \"production\" or \"test\" (test payments never count as paying)")
        }
        if let payload = developerPayload, payload.unicodeScalars.count > 4096 {
            throw .badRequest("`developer_payload` is longer than 4096 characters")
        }
        // Checked here because the payload is stored sealed: PostgreSQL, which refuses NUL in text, never sees it.
        if let payload = developerPayload, payload.unicodeScalars.contains("\u{0}") {
            throw .badRequest("`developer_payload` contains a NUL character (U+0000); send text without it")
        }
        return ExternalPurchase(
            appUserID: user, productID: try Check.text(productID, "product_id", max: 200), productType: type,
            paymentID: try Check.text(paymentID, "payment_id", max: 256), provider: try Check.text(provider, "provider", max: 100),
            purchasedAt: purchased, expiresDate: expires, price: Money(milliunits: price.amountMilliunits, currency: price.currency),
            environment: environment, developerPayload: developerPayload)
    }

    static func instant(_ text: String, _ field: String) throws(APIError) -> Instant {
        guard let instant = Instant(rfc3339: text) else {
            throw .badRequest("`\(field)` must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z")
        }
        return instant
    }
}

struct ExternalPurchaseAnswer: Encodable {
    var paymentID: String
    var recorded: Bool

    enum CodingKeys: String, CodingKey {
        case paymentID = "payment_id"
        case recorded
    }
}
