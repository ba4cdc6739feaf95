import Foundation
import SubscriptionLedgerSDK

// `swift run ledger-sdk-demo --url http://127.0.0.1:8080 --key <public key> --user <id> --receipt <file>`: the SDK
// against a local `ledger serve`. It uploads the receipt (base64, e.g. from `ledger appstore sample receipt --raw`),
// prints the status, the unconsumed purchases and the active subscriptions, then every change the live stream
// brings (post a notification with curl to see one) for `--watch` seconds.

/// The demo's store: a receipt read from a file; no purchases (there is no StoreKit on the command line).
struct ReceiptFileStore: PurchaseStore {
    let receipt: Data?
    func appReceipt() async -> Data? { receipt }
    func currentEntitlements() async -> [StoreTransaction] { [] }
    func allTransactions() async -> [StoreTransaction] { [] }
    func purchase(productID: String, appAccountToken: UUID?) async throws -> StorePurchaseOutcome { .userCancelled }
    func transactionUpdates() -> AsyncStream<StoreTransaction> { AsyncStream { $0.finish() } }
    func sync() async throws {}
}

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let url = option("url").flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:8080"), let key = option("key") else {
    print("usage: ledger-sdk-demo --key PUBLIC_KEY [--url http://127.0.0.1:8080] [--user ID] [--receipt FILE] [--watch SECONDS]")
    exit(2)
}
func readReceipt(_ path: String) throws -> Data {
    let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    guard let data = Data(base64Encoded: text) else { throw LedgerError.store("\(path) is not a base64 receipt") }
    return data
}
let receipt: Data? = try option("receipt").map(readReceipt)
let storage = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ledger-sdk-demo", isDirectory: true)
/// `LEDGER_SDK_DEMO_VERBOSE=1` prints what the SDK does.
func demoConfiguration(url: URL, key: String, storage: URL) -> LedgerConfiguration {
    var configuration = LedgerConfiguration(baseURL: url, apiKey: key, storageDirectory: storage)
    if ProcessInfo.processInfo.environment["LEDGER_SDK_DEMO_VERBOSE"] != nil {
        configuration.log = { message in print("sdk: " + message) }
    }
    return configuration
}
let configuration = demoConfiguration(url: url, key: key, storage: storage)

@MainActor
func runDemo() async throws {
    let manager = PurchaseManager.setUp(configuration, store: ReceiptFileStore(receipt: receipt))
    let updates = try await manager.statusUpdates()
    let status = try await manager.configure(userID: option("user"))
    print("user \(status.userID)\(status.isCached ? " (cached: the ledger is unreachable)" : "")")
    print("products: \(status.products.map { "\($0.id)=\($0.status)" }.joined(separator: ", "))")
    print("active entitlements: \(status.activeEntitlements.sorted().joined(separator: ", "))")
    let unconsumed: [UnconsumedPurchase] = try await manager.unconsumedPurchases()
    print("unconsumed: \(unconsumed.map { $0.transactionID })")
    let subscriptions: [Subscription] = try await manager.activatedSubscriptions()
    print("active subscriptions: \(subscriptions.compactMap { $0.productID })")
    let seconds = option("watch").flatMap(Int.init) ?? 30
    print("watching the live stream for \(seconds) s…")
    let watch = Task {
        for await update in updates {
            print("update: \(update.products.map { "\($0.id)=\($0.status)" }.joined(separator: ", "))  cursor \(update.cursor ?? "-")")
        }
    }
    try? await Task.sleep(for: .seconds(seconds))
    watch.cancel()
    manager.shutdown()
}

do {
    try await runDemo()
} catch {
    print("error: \(error)")
    exit(1)
}
