/// Why App Store data could not be turned into ledger events.
///
/// Verified data can still lack a field the ledger needs to key a fact (a transaction without a transaction id,
/// a notification without a UUID); recording it under a made-up key would break idempotency, so it is refused
/// with the field's path, and the caller answers the upload with a client error.
public enum IngestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A field the ledger needs is absent, e.g. `transaction.transactionId`.
    case missingField(String)
    /// Two parts of one upload disagree, e.g. renewal info for another original transaction id.
    case mismatch(String)

    public var description: String {
        switch self {
        case .missingField(let path): "\(path) is missing; the ledger cannot record this data without it"
        case .mismatch(let message): message
        }
    }
}
