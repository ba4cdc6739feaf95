import AppStoreSamples
import ArgumentParser
import Foundation
import LedgerDomain
import UTCTime

extension AppStoreCommand {
    /// `ledger appstore sample`: Xcode-signed App Store data to try the service with, printed as the request body of
    /// the endpoint that takes it (pipe it to `curl -d @-`).
    public struct Sample: ParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "sample",
            abstract: "Make Xcode-signed sample data: a notification, a signed transaction or a receipt.",
            discussion: """
                notification → {"signedPayload": …} for POST /v1/apps/{app_id}/notifications
                transaction  → {"transactions": [{"signed_transaction": …}]} for POST /v1/users/{user_id}/transactions
                receipt      → {"data": …} for POST /uploadReceipt

                The data is signed by a self-signed certificate, as StoreKit testing in Xcode signs it: the ledger \
                accepts it only for apps created with "allow_xcode": true, and it never counts as paying.
                """
        )

        @Argument(help: "notification, transaction or receipt.")
        var kind: String

        @Option(name: .customLong("bundle-id"), help: "The app's bundle identifier.")
        var bundleID = "com.example.app"

        @Option(help: "The product id.")
        var product = "monthly"

        @Option(name: .customLong("product-type"), help: "auto_renewable, consumable, non_consumable or non_renewing.")
        var productType = "auto_renewable"

        @Option(name: .customLong("transaction-id"), help: "The transaction id (default: a random one).")
        var transactionID: String?

        @Option(name: .customLong("original-transaction-id"), help: "The original transaction id (default: the transaction id).")
        var originalTransactionID: String?

        @Option(name: .customLong("purchase-date"), help: "RFC 3339 (default: now).")
        var purchaseDate: String?

        @Option(name: .customLong("expires-date"), help: "RFC 3339 (default for subscriptions: 30 days after the purchase).")
        var expiresDate: String?

        @Option(name: .customLong("type"), help: "The notification type, e.g. SUBSCRIBED, DID_RENEW, EXPIRED, REFUND, ONE_TIME_CHARGE.")
        var notificationType = "SUBSCRIBED"

        @Option(help: "The notification subtype, e.g. INITIAL_BUY, VOLUNTARY.")
        var subtype: String?

        @Option(
            name: .customLong("subscription-group"),
            help: "The subscription group of an auto-renewable product (the walkthrough's catalog calls it main).")
        var subscriptionGroup = "main"

        @Option(name: .customLong("app-account-token"), help: "The transaction's appAccountToken (a UUID).")
        var appAccountToken: String?

        @Flag(help: "Print only the signed data, not the request body.")
        var raw = false

        public init() {}

        static let appleTypes = [
            "auto_renewable": "Auto-Renewable Subscription", "consumable": "Consumable",
            "non_consumable": "Non-Consumable", "non_renewing": "Non-Renewing Subscription"
        ]

        public func run() throws {
            guard let appleType = Self.appleTypes[productType] else {
                throw ValidationError("--product-type must be one of \(Self.appleTypes.keys.sorted().joined(separator: ", "))")
            }
            let now = LedgerClock.system.now()
            let purchased = try purchaseDate.map { try Self.timestamp($0, "--purchase-date") } ?? now
            let expires =
                try expiresDate.map { try Self.timestamp($0, "--expires-date") }
                ?? (productType == "auto_renewable" ? purchased.adding(days: 30) : nil)
            let id = transactionID ?? String(2_000_000_000_000_000 + Int64.random(in: 0..<1_000_000_000_000))
            let signer = try XcodeSigner()
            let output: String
            switch kind {
            case "transaction", "notification":
                let transaction = AppStorePayloads.transaction(
                    id: id, original: originalTransactionID ?? id, product: product, type: appleType,
                    purchase: String(purchased.microsecondsSinceEpoch / 1000), originalPurchase: purchased.microsecondsSinceEpoch / 1000,
                    expires: expires.map { $0.microsecondsSinceEpoch / 1000 }, token: appAccountToken, environment: "Xcode",
                    signed: now.microsecondsSinceEpoch / 1000, bundleID: bundleID, group: subscriptionGroup)
                if kind == "transaction" {
                    let signed = try signer.sign(transaction)
                    output = raw ? signed : #"{"transactions":[{"signed_transaction":"\#(signed)"}]}"#
                } else {
                    let signed = try signer.sign(
                        AppStorePayloads.notification(
                            type: notificationType, subtype: subtype, uuid: UUID().uuidString.lowercased(),
                            signed: now.microsecondsSinceEpoch / 1000, environment: "Xcode", bundleID: bundleID,
                            signedTransaction: try signer.sign(transaction)))
                    output = raw ? signed : #"{"signedPayload":"\#(signed)"}"#
                }
            case "receipt":
                let receipt = try signer.receipt(
                    bundleID: bundleID,
                    purchases: [
                        ReceiptBuilder.inAppPurchase(
                            product: product, transactionId: id, originalTransactionId: originalTransactionID,
                            purchaseDate: Self.receiptDate(purchased), expiresDate: expires.map(Self.receiptDate) ?? "")
                    ])
                output = raw ? receipt : #"{"data":"\#(receipt)"}"#
            default:
                throw ValidationError("the kind must be notification, transaction or receipt")
            }
            print(output)
        }

        static func timestamp(_ text: String, _ option: String) throws -> Instant {
            guard let value = Instant(rfc3339: text) else {
                throw ValidationError("\(option) must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z")
            }
            return value
        }

        /// Receipts hold whole seconds, `2026-01-31T12:00:00Z`.
        static func receiptDate(_ timestamp: Instant) -> String {
            let text = timestamp.rfc3339
            return String(text.prefix(19)) + "Z"
        }
    }
}
