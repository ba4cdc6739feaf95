import UTCTime

/// A fast reader for the most common payloads — purchases, subscription starts and renewals, each one transaction —
/// used by `LedgerEvent.decode` before the general decoder. A rebuild decodes every event of the log, and
/// `JSONDecoder` is slow for that (Benchmarks/README.md has the measure).
///
/// It reads only what it fully understands: a JSON object of the known keys, strings without escapes, integers,
/// booleans and null. Anything else (an unknown key, an escape, a fraction, an array) answers nil and the general
/// decoder reads the payload instead, so both always agree (a property test holds them to it).
struct TransactionPayloadReader {
    private let bytes: [UInt8]
    private var index = 0

    private init(_ payload: String) { bytes = Array(payload.utf8) }

    /// `{"transaction": {…}}`, plus `isResubscribe` (required) when `startsSubscription`.
    static func read(_ payload: String, startsSubscription: Bool) -> (transaction: TransactionFacts, isResubscribe: Bool)? {
        var reader = TransactionPayloadReader(payload)
        var transaction: TransactionFacts?
        var isResubscribe: Bool?
        guard
            reader.object({ reader, key in
                switch key {
                case "transaction":
                    guard transaction == nil, let value = reader.transaction() else { return false }
                    transaction = value
                    return true
                case "isResubscribe" where startsSubscription:
                    guard isResubscribe == nil, let value = reader.bool() else { return false }
                    isResubscribe = value
                    return true
                default:
                    return false
                }
            }), reader.atEnd, let transaction
        else { return nil }
        if startsSubscription {
            guard let isResubscribe else { return nil }
            return (transaction, isResubscribe)
        }
        return (transaction, false)
    }

    // MARK: Values

    private mutating func transaction() -> TransactionFacts? {
        // One variable per field (outer nil: not seen yet), not a dictionary: no hashing per member.
        var appUserID, productID, transactionID, originalTransactionID, subscriptionGroupID, environment, developerPayload,
            storefront, webOrderLineItemID, appTransactionID, billingPlanType: String??
        var purchaseDate, originalPurchaseDate, expiresDate, signedDate: Int64??
        var price: Money??, offer: Offer??, commitment: Commitment??, familyShared: Bool??, quantity: Int64??
        guard
            object({ reader, key in
                switch key {
                case "appUserID": Self.once(&appUserID, reader.optionalString())
                case "productID": Self.once(&productID, reader.optionalString())
                case "transactionID": Self.once(&transactionID, reader.optionalString())
                case "originalTransactionID": Self.once(&originalTransactionID, reader.optionalString())
                case "subscriptionGroupID": Self.once(&subscriptionGroupID, reader.optionalString())
                case "environment": Self.once(&environment, reader.optionalString())
                case "developerPayload": Self.once(&developerPayload, reader.optionalString())
                case "storefront": Self.once(&storefront, reader.optionalString())
                case "webOrderLineItemID": Self.once(&webOrderLineItemID, reader.optionalString())
                case "appTransactionID": Self.once(&appTransactionID, reader.optionalString())
                case "billingPlanType": Self.once(&billingPlanType, reader.optionalString())
                case "purchaseDate": Self.once(&purchaseDate, reader.optionalInteger())
                case "originalPurchaseDate": Self.once(&originalPurchaseDate, reader.optionalInteger())
                case "expiresDate": Self.once(&expiresDate, reader.optionalInteger())
                case "signedDate": Self.once(&signedDate, reader.optionalInteger())
                case "price": Self.once(&price, reader.optional { $0.money() })
                case "offer": Self.once(&offer, reader.optional { $0.offer() })
                case "commitment": Self.once(&commitment, reader.optional { $0.commitment() })
                case "familyShared": Self.once(&familyShared, reader.optional { $0.bool() })
                case "quantity": Self.once(&quantity, reader.optionalInteger())
                default: false
                }
            })
        else { return nil }
        guard let productID = productID ?? nil, let transactionID = transactionID ?? nil,
            let originalTransactionID = originalTransactionID ?? nil, let purchase = purchaseDate ?? nil
        else { return nil }
        var count = 1
        if let value = quantity ?? nil {
            guard let exact = Int(exactly: value) else { return nil }
            count = exact
        }
        let instant = { (value: Int64??) in (value ?? nil).map(Instant.init(microsecondsSinceEpoch:)) }
        let purchaseInstant = Instant(microsecondsSinceEpoch: purchase)
        return TransactionFacts(
            appUserID: appUserID ?? nil, productID: productID, transactionID: transactionID,
            originalTransactionID: originalTransactionID, subscriptionGroupID: subscriptionGroupID ?? nil,
            environment: (environment ?? nil).map(StoreEnvironment.init(rawValue:)) ?? .production, purchaseDate: purchaseInstant,
            originalPurchaseDate: instant(originalPurchaseDate), expiresDate: instant(expiresDate),
            signedDate: instant(signedDate) ?? purchaseInstant, price: price ?? nil, offer: offer ?? nil,
            familyShared: (familyShared ?? nil) ?? false, developerPayload: developerPayload ?? nil, quantity: count,
            storefront: storefront ?? nil, webOrderLineItemID: webOrderLineItemID ?? nil, appTransactionID: appTransactionID ?? nil,
            billingPlanType: billingPlanType ?? nil, commitment: commitment ?? nil)
    }

    /// Stores a member's value (`.some(nil)` for null) in its slot; false when the value did not read or the member
    /// came twice.
    private static func once<T>(_ slot: inout T??, _ value: T??) -> Bool {
        guard case .none = slot, let value else { return false }
        slot = .some(value)
        return true
    }

    private mutating func money() -> Money? {
        var milliunits: Int64?, currency: String?
        guard
            object({ reader, key in
                switch key {
                case "milliunits" where milliunits == nil: milliunits = reader.integer()
                case "currency" where currency == nil: currency = reader.string()
                default: return false
                }
                return true
            }), let milliunits, let currency
        else { return nil }
        return Money(milliunits: milliunits, currency: currency)
    }

    private mutating func offer() -> Offer? {
        var type: OfferType?, strings: [String: String] = [:]
        guard
            object({ reader, key in
                switch key {
                case "type" where type == nil:
                    guard let raw = reader.string(), let value = OfferType(rawValue: raw) else { return false }
                    type = value
                case "identifier", "paymentMode", "period":
                    guard strings[key] == nil, let value = reader.optionalString() else { return false }
                    if let value { strings[key] = value }
                default:
                    return false
                }
                return true
            }), let type
        else { return nil }
        return Offer(type: type, identifier: strings["identifier"], paymentMode: strings["paymentMode"], period: strings["period"])
    }

    private mutating func commitment() -> Commitment? {
        var integers: [String: Int64] = [:], priceAfter: Money?, seenPrice = false
        guard
            object({ reader, key in
                switch key {
                case "billingPeriodNumber", "totalBillingPeriods", "expiresAt":
                    guard integers[key] == nil, let value = reader.optionalInteger() else { return false }
                    if let value { integers[key] = value }
                case "priceAfter" where !seenPrice:
                    seenPrice = true
                    guard let value = reader.optional({ $0.money() }) else { return false }
                    priceAfter = value
                default:
                    return false
                }
                return true
            })
        else { return nil }
        func int(_ key: String) -> Int?? { integers[key].map { Int(exactly: $0) } }
        if case .some(nil) = int("billingPeriodNumber") { return nil }
        if case .some(nil) = int("totalBillingPeriods") { return nil }
        return Commitment(
            billingPeriodNumber: int("billingPeriodNumber") ?? nil, totalBillingPeriods: int("totalBillingPeriods") ?? nil,
            expiresAt: integers["expiresAt"].map(Instant.init(microsecondsSinceEpoch:)), priceAfter: priceAfter)
    }

    // MARK: Syntax

    private var atEnd: Bool {
        mutating get {
            skipWhitespace()
            return index == bytes.count
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// An object, each member handed to `member` (false: not understood).
    private mutating func object(_ member: (inout TransactionPayloadReader, String) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), consume(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    /// A string without escapes or control characters.
    private mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: bytes[start..<index], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A whole number that fits Int64, without fraction or exponent.
    private mutating func integer() -> Int64? {
        skipWhitespace()
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let digit = Int64(bytes[index] - UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        guard index > start, !(bytes[start] == UInt8(ascii: "0") && index - start > 1) else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            return nil
        }
        return value
    }

    private mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        skipWhitespace()
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// `null` as `.some(nil)`, a value read by `read` as `.some(value)`, anything else nil.
    private mutating func optional<T>(_ read: (inout TransactionPayloadReader) -> T?) -> T?? {
        if literal("null") { return .some(nil) }
        return read(&self).map { .some($0) }
    }

    private mutating func optionalString() -> String?? { optional { $0.string() } }
    private mutating func optionalInteger() -> Int64?? { optional { $0.integer() } }
}
