import AppStoreSamples
import Foundation

/// One request the App Store or an app would send: a signed V2 notification or a receipt upload.
struct Delivery: Sendable {
    enum Kind: Sendable, Equatable {
        case notification(uuid: String)
        case receipt(user: String, transactionIDs: [String])
    }

    let kind: Kind
    let body: String

    func request(for tenant: LedgerTenant) -> (path: String, headers: [String: String]) {
        switch kind {
        case .notification: (tenant.notificationPath, [:])
        case .receipt: ("/uploadReceipt", tenant.publicHeaders)
        }
    }

    var notificationUUID: String? {
        if case .notification(let uuid) = kind { return uuid }
        return nil
    }
}

/// Production subscription histories of many users, signed by a test PKI, in the order Apple would send them:
/// a purchase, 0–2 renewals, and for some users a consumable, an auto-renew change, a refund or an expiry.
/// Every signing date lies in the past (1 Sep – 1 Nov 2026), so the server's clock never sees future data.
struct SubscriptionHistories: Sendable {
    static let september1: Int64 = 1_788_220_800_000
    static let day: Int64 = 86_400_000

    let users: [String]
    /// Per user, in order.
    let deliveries: [[Delivery]]
    /// `YYYY-MM` → the users with a Production payment (purchase or renewal) in that month.
    let payingUsers: [String: Set<String>]

    var all: [Delivery] { deliveries.flatMap { $0 } }

    static func user(_ index: Int, seed: Int) -> String {
        String(format: "00000000-0000-4000-8000-%06lx%06lx", seed & 0xFFFFFF, index)
    }

    /// `receipts`: also one receipt upload per user (a lifetime purchase), after its notifications.
    init(users count: Int, seed: Int, signer: AppStoreTestSigner, receipts: Bool = false) throws {
        var users: [String] = []
        var deliveries: [[Delivery]] = []
        var paying: [String: Set<String>] = [:]
        for index in 0..<count {
            let user = Self.user(index, seed: seed)
            let original = 100_000_000 * Int64(seed % 1000 + 1) + Int64(index) * 100
            var history = HistoryBuilder(signer: signer, user: user, original: original)
            let start = Self.september1 + Int64(index % 1440) * 60_000
            let renewals = index % 5 == 0 ? 1 : index % 3
            for renewal in 0...renewals {
                let purchase = start + Int64(renewal) * 30 * Self.day
                try history.payment(renewal: renewal, at: purchase, expires: purchase + 30 * Self.day)
                paying[Self.month(purchase), default: []].insert(user)
            }
            let last = start + Int64(renewals) * 30 * Self.day
            if index % 3 == 0 {
                try history.consumable(at: last + Self.day)
                paying[Self.month(last + Self.day), default: []].insert(user)
            }
            if index % 4 == 0 { try history.autoRenewOff(renewal: renewals, at: last + 2 * Self.day) }
            if index % 7 == 0 { try history.refund(renewal: renewals, at: last + 3 * Self.day) }
            if index % 5 == 0 { try history.expired(renewal: renewals, at: last + 30 * Self.day + 3_600_000) }
            if receipts { try history.receipt(at: last + 4 * Self.day) }
            users.append(user)
            deliveries.append(history.deliveries)
        }
        self.users = users
        self.deliveries = deliveries
        self.payingUsers = paying
    }

    static func month(_ milliseconds: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        return String(format: "%04ld-%02ld", parts.year!, parts.month!)
    }
}

/// Builds one user's deliveries.
private struct HistoryBuilder {
    let signer: AppStoreTestSigner
    let user: String
    let original: Int64
    var deliveries: [Delivery] = []
    private var expiries: [Int: Int64] = [:]
    private var purchases: [Int: Int64] = [:]

    init(signer: AppStoreTestSigner, user: String, original: Int64) {
        self.signer = signer
        self.user = user
        self.original = original
    }

    private func transaction(_ renewal: Int, signed: Int64, revocation: Int64? = nil) -> String {
        AppStorePayloads.transaction(
            id: "\(original + Int64(renewal))", original: "\(original)", purchase: "\(purchases[renewal] ?? signed)",
            originalPurchase: purchases[0] ?? signed, expires: expiries[renewal], reason: renewal == 0 ? "PURCHASE" : "RENEWAL",
            token: user, revocation: revocation, revocationReason: revocation == nil ? nil : 0,
            environment: "Production", signed: signed)
    }

    private mutating func notify(_ type: String, _ subtype: String?, signed: Int64, transaction: String, renewalInfo: String? = nil) throws {
        let uuid = UUID().uuidString.lowercased()
        let payload = try signer.notification(
            type: type, subtype: subtype, uuid: uuid, signed: signed, transactionJSON: transaction,
            renewalInfoJSON: renewalInfo, environment: "Production")
        deliveries.append(Delivery(kind: .notification(uuid: uuid), body: #"{"signedPayload":"\#(payload)"}"#))
    }

    mutating func payment(renewal: Int, at purchase: Int64, expires: Int64) throws {
        purchases[renewal] = purchase
        expiries[renewal] = expires
        try notify(
            renewal == 0 ? "SUBSCRIBED" : "DID_RENEW", renewal == 0 ? "INITIAL_BUY" : nil, signed: purchase + 1000,
            transaction: transaction(renewal, signed: purchase + 1000))
    }

    mutating func consumable(at instant: Int64) throws {
        let json = AppStorePayloads.transaction(
            id: "\(original + 50)", original: "\(original + 50)", product: "coins", type: "Consumable",
            purchase: "\(instant)", originalPurchase: instant, expires: nil, token: user,
            environment: "Production", signed: instant)
        try notify("ONE_TIME_CHARGE", nil, signed: instant, transaction: json)
    }

    mutating func autoRenewOff(renewal: Int, at instant: Int64) throws {
        try notify(
            "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: instant, transaction: transaction(renewal, signed: instant),
            renewalInfo: AppStorePayloads.renewalInfo(original: "\(original)", autoRenew: 0, signed: instant, environment: "Production"))
    }

    mutating func refund(renewal: Int, at instant: Int64) throws {
        try notify("REFUND", nil, signed: instant, transaction: transaction(renewal, signed: instant, revocation: instant))
    }

    mutating func expired(renewal: Int, at instant: Int64) throws {
        try notify("EXPIRED", "VOLUNTARY", signed: instant, transaction: transaction(renewal, signed: instant))
    }

    mutating func receipt(at instant: Int64) throws {
        let id = "\(original + 60)"
        let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(instant) / 1000))
        let receipt = try signer.receipt(purchases: [ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: id, purchaseDate: date)])
        deliveries.append(Delivery(kind: .receipt(user: user, transactionIDs: [id]), body: #"{"user-id":"\#(user)","data":"\#(receipt)"}"#))
    }
}
