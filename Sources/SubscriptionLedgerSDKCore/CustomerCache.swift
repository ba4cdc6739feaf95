import Foundation

/// The customer's last known snapshot and who hears of it: published to the listeners on every change, and, when
/// the ledger signed it, kept on disk with its signature to answer offline (`offline(for:at:)`) until each
/// entitlement's own expiry, as long as the snapshot is younger than `maximumAge` and its signature holds against
/// the status keys the SDK pinned.
struct CustomerCache: Sendable {
    private let snapshotFile: JSONFile<SignedSnapshot>
    private let keysFile: JSONFile<StatusKeySet>
    let maximumAge: Duration
    /// The last snapshot published, for the current user.
    private(set) var info: CustomerInfo?
    /// The last cursor of the user's live stream.
    var cursor: String?
    private(set) var keys: StatusKeySet?
    private var listeners: [UUID: AsyncStream<CustomerInfo>.Continuation] = [:]

    init(files: LedgerFiles, maximumAge: Duration) {
        snapshotFile = files.snapshot
        keysFile = files.statusKeys
        self.maximumAge = maximumAge
        keys = keysFile.read()
    }

    /// Forgets the snapshot in memory (a new user); the one on disk stays until another user's replaces it.
    mutating func reset() {
        info = nil
        cursor = nil
    }

    /// Forgets the kept snapshot too (`logOut`): the next user of the device must not see it.
    mutating func forgetKept() {
        reset()
        snapshotFile.remove()
    }

    /// Pins the key set (at configuration, and again when an answer names a key it did not hold).
    mutating func pin(_ keys: StatusKeySet) throws {
        self.keys = keys
        try keysFile.write(keys)
    }

    /// The kept snapshot of `user`, checked, and judged at `now`; nil when there is none or it is refused (`refusal`
    /// says why).
    func offline(for user: String, at now: Date) -> (info: CustomerInfo?, refusal: SignedSnapshot.Refusal?) {
        guard let kept = snapshotFile.read() else { return (nil, nil) }
        guard let keys else { return (nil, .unknownKey(kept.keyID ?? "?")) }
        do {
            let header = try kept.verified(by: keys, user: user, now: now, maximumAge: maximumAge)
            let wire = try JSONDecoder().decode(Wire.UserState.self, from: kept.body)
            let issued = Date(timeIntervalSince1970: TimeInterval(header.iat))
            return (try CustomerInfo(wire, issuedAt: issued, source: .offline).judged(at: now), nil)
        } catch let refusal as SignedSnapshot.Refusal {
            return (nil, refusal)
        } catch {
            return (nil, .malformed("the kept body: \(error)"))
        }
    }

    /// Keeps a signed answer that holds against the pinned keys (what `offline` will trust). Returns the refusal
    /// when it does not hold.
    func keep(_ snapshot: SignedSnapshot, for user: String, at now: Date) -> SignedSnapshot.Refusal? {
        guard let keys else { return .unknownKey(snapshot.keyID ?? "?") }
        do {
            // Signature and user only: its age is judged when it is used, so a device clock that is off now does not
            // lose the ledger's answer.
            _ = try snapshot.verified(by: keys, user: user, now: now, maximumAge: nil)
            try snapshotFile.write(snapshot)
            return nil
        } catch let refusal as SignedSnapshot.Refusal {
            return refusal
        } catch {
            return .malformed("cannot write the snapshot: \(error)")
        }
    }

    /// Makes `next` the last snapshot and hands it to the listeners when its facts differ from the last one's, or
    /// it confirms an offline one. Returns whether they got it.
    @discardableResult
    mutating func publish(_ next: CustomerInfo) -> Bool {
        let changed = info.map { !$0.sameFacts(as: next) || $0.source != next.source } ?? true
        info = next
        guard changed else { return false }
        for continuation in listeners.values { continuation.yield(next) }
        return true
    }

    /// A new listener; `ended` hears its id when the listener stops iterating.
    mutating func listen(ended: @escaping @Sendable (UUID) -> Void) -> AsyncStream<CustomerInfo> {
        let (stream, continuation) = AsyncStream<CustomerInfo>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        continuation.onTermination = { _ in ended(id) }
        listeners[id] = continuation
        return stream
    }

    mutating func stopListening(_ id: UUID) {
        listeners[id] = nil
    }

    mutating func finish() {
        for continuation in listeners.values { continuation.finish() }
        listeners = [:]
    }
}
