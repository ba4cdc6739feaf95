import Foundation
import SubscriptionLedgerSDK

// `swift run ledger-sdk-demo --url http://127.0.0.1:8080 --key <public key> --user <id> --receipt <file>`: the SDK
// against a local `ledger serve`. It uploads the receipt (base64, e.g. from `ledger appstore sample receipt --raw`),
// or, as a StoreKit 2 app without a receipt does, the signed transaction of `--transaction <file>` (e.g. from
// `ledger appstore sample transaction --raw`) as the store's current entitlement; then it prints the status, the
// unconsumed purchases and the active subscriptions, then every change the live stream brings (post a notification
// with curl to see one) for `--watch` seconds.

/// The demo's store: a receipt and signed transactions read from files; no purchases (there is no StoreKit on the
/// command line).
struct FileStore: PurchaseStore {
    let receipt: Data?
    let entitlements: [StoreTransaction]
    func appReceipt() async -> Data? { receipt }
    func currentEntitlements() async -> [StoreTransaction] { entitlements }
    func allTransactions() async -> [StoreTransaction] { entitlements }
    func purchase(productID: String, appAccountToken: UUID?) async throws -> StorePurchaseOutcome { .userCancelled }
    func transactionUpdates() -> AsyncStream<StoreTransaction> { AsyncStream { $0.finish() } }
    func sync() async throws {}
}

/// One line on stdout, written at once: `print` is block-buffered when stdout is a file or a pipe (`| tee`), so
/// the live updates would only show when the demo exits.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let url = option("url").flatMap(URL.init(string:)) ?? URL(string: "http://127.0.0.1:8080"), let key = option("key") else {
    say(
        "usage: ledger-sdk-demo --key PUBLIC_KEY [--url http://127.0.0.1:8080] [--user ID] [--receipt FILE] [--transaction FILE]"
            + " [--watch SECONDS]")
    exit(2)
}
func readReceipt(_ path: String) throws -> Data {
    let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    guard let data = Data(base64Encoded: text) else { throw LedgerError.store("\(path) is not a base64 receipt") }
    return data
}
/// A StoreKit 2 signed transaction (JWS) from a file, with the ids its payload names.
func readTransaction(_ path: String) throws -> StoreTransaction {
    let jws = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    let parts = jws.split(separator: ".")
    var payload = parts.count == 3 ? parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") : ""
    payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
    guard let data = Data(base64Encoded: payload),
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let id = json["transactionId"] as? String, let product = json["productId"] as? String
    else { throw LedgerError.store("\(path) is not a signed transaction (JWS)") }
    return StoreTransaction(id: id, productID: product, jwsRepresentation: jws, finish: {})
}
let receipt: Data? = try option("receipt").map(readReceipt)
let entitlements: [StoreTransaction] = try option("transaction").map { [try readTransaction($0)] } ?? []
let storage = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ledger-sdk-demo", isDirectory: true)
/// `LEDGER_SDK_DEMO_VERBOSE=1` prints what the SDK does.
func demoConfiguration(url: URL, key: String, storage: URL) -> LedgerConfiguration {
    var configuration = LedgerConfiguration(baseURL: url, apiKey: key, storageDirectory: storage)
    if ProcessInfo.processInfo.environment["LEDGER_SDK_DEMO_VERBOSE"] != nil {
        configuration.log = { message in say("sdk: " + message) }
    }
    return configuration
}
let configuration = demoConfiguration(url: url, key: key, storage: storage)

@MainActor
func runDemo() async throws {
    let manager = PurchaseManager.setUp(configuration, store: FileStore(receipt: receipt, entitlements: entitlements))
    let updates = try await manager.customerInfoUpdates()
    let customer = try await manager.configure(userID: option("user"))
    say("user \(customer.userID)\(customer.source == .offline ? " (offline: the kept signed snapshot)" : "")")
    func productsLine(_ customer: CustomerInfo) -> String {
        customer.productsStatus.map { "\($0.id)=\($0.status.rawValue)" }.joined(separator: ", ")
    }
    say("products: \(productsLine(customer))")
    say("active entitlements: \(customer.activeEntitlements.sorted().joined(separator: ", "))")
    say("unconsumed: \(customer.unconsumedPurchases.map(\.transactionID))")
    say("active subscriptions: \(customer.activeSubscriptions.map { "\($0.productID ?? "?") (\($0.status.rawValue))" })")
    say("intro offer eligibility: \(customer.introOfferEligibility.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
    let seconds = option("watch").flatMap(Int.init) ?? 30
    say("watching the live stream for \(seconds) s…")
    // The stream was opened before `configure` so no change is missed; it also holds the snapshots `configure` went
    // through (the kept one, its own read), which are not news: only a later, different one is printed.
    let watch = Task {
        var shown = productsLine(customer)
        for await update in updates where update.issuedAt >= customer.issuedAt && productsLine(update) != shown {
            shown = productsLine(update)
            say("update: \(shown)")
        }
    }
    try? await Task.sleep(for: .seconds(seconds))
    watch.cancel()
    manager.shutdown()
}

do {
    try await runDemo()
} catch {
    say("error: \(error)")
    if case LedgerError.notConfigured = error {
        say("(the ledger sets the user's cookie in answer to signed App Store data: pass --receipt FILE or --transaction FILE)")
    }
    exit(1)
}
