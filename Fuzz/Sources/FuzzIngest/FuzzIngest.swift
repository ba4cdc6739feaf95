import AppStoreIngest
import AppStoreVerification
import ExactJSON
import LedgerDomain

/// Feeds arbitrary JSON to the path after verification: `{"notification":…,"transaction":…,"renewal":…}` → the
/// payload models → `NotificationIngest` / `TransactionIngest` under each appAccountToken policy → every ledger
/// event encoded and decoded again. Thrown errors are expected; a trap, or an event that does not survive its own
/// encoding (the log would keep something replay cannot read back), is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIngest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let json = try? JSONParser.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    let transaction = json["transaction"].flatMap { try? TransactionPayload(json: $0) }
    let renewal = json["renewal"].flatMap { try? RenewalInfoPayload(json: $0) }
    var events: [LedgerEvent] = []
    for policy in [AppAccountTokenPolicy.ignore, .tokenIsAppUserID] {
        if let payload = json["notification"].flatMap({ try? NotificationPayload(json: $0) }) {
            let notification = VerifiedNotification(payload: payload, transaction: transaction, renewalInfo: renewal)
            events += (try? NotificationIngest(appAccountTokens: policy).events(for: notification)) ?? []
        }
        if let transaction {
            let user = json["user"]?.stringValue ?? "fuzz-user"
            events += (try? TransactionIngest(appAccountTokens: policy).events(transaction: transaction, renewalInfo: renewal, appUserID: user)) ?? []
        }
    }
    for event in events {
        let encoded = event.encoded()
        let decoded = try? LedgerEvent.decode(type: encoded.type, schemaVersion: encoded.schemaVersion, payload: encoded.payload)
        precondition(decoded == event, "\(encoded.type) does not survive its encoding: \(encoded.payload)")
    }
    return 0
}
let LLVMFuzzerTestOneInputPointer: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt = { fuzzIngest($0, $1) }
