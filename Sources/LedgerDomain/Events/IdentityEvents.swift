import UTCTime

/// How a transaction came to be linked to an app user.
public enum LinkSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// The user restored purchases (StoreKit restore / current entitlements upload).
    case restore
    /// An SDK or receipt upload carried the app user id.
    case upload
    /// The transaction's `appAccountToken` maps to the app user.
    case appAccountToken
}

/// Transactions (by original transaction id) now belong to an app user who had no conflicting claim.
///
/// Notifications carry no app user id; this event is how subscriptions known only by their original transaction
/// id get an owner, at any time after their first notification.
public struct TransactionLink: Sendable, Hashable, Codable {
    public var appUserID: String
    public var originalTransactionIDs: [String]
    public var linkedAt: Instant
    public var source: LinkSource
    public init(appUserID: String, originalTransactionIDs: [String], linkedAt: Instant, source: LinkSource) {
        self.appUserID = appUserID
        self.originalTransactionIDs = originalTransactionIDs
        self.linkedAt = linkedAt
        self.source = source
    }
}

/// What to do when a restore finds transactions that already belong to another app user.
public enum TransferPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Move them to the restoring user (the default).
    case transfer
    /// Move them only if the old owner has nothing active; otherwise refuse.
    case transferIfNoActive
    /// Keep them with the old owner and refuse the restore.
    case keepAndRefuse
}

/// Transactions moved from one app user to another under the app's transfer policy.
///
/// Schema version 2 (current) lists several original transaction ids; version 1 carried one
/// (`originalTransactionID`) and is upcast on decoding.
public struct Transfer: Sendable, Hashable, Codable {
    public var fromUserID: String
    public var toUserID: String
    public var originalTransactionIDs: [String]
    public var transferredAt: Instant
    public var policy: TransferPolicy
    public init(
        fromUserID: String, toUserID: String, originalTransactionIDs: [String], transferredAt: Instant,
        policy: TransferPolicy
    ) {
        self.fromUserID = fromUserID
        self.toUserID = toUserID
        self.originalTransactionIDs = originalTransactionIDs
        self.transferredAt = transferredAt
        self.policy = policy
    }
}
