import UTCTime

/// The order of two facts about the same thing: their own time, then a rank for facts of equal time, then a
/// text tie-break (a transaction id or the value itself).
///
/// Why: Apple delivers notifications late, out of order and more than once. A register that keeps the value
/// with the greatest stamp ends in the same state whatever the delivery order, and a duplicate (same stamp,
/// same value) changes nothing. The stamp is stored with the value so a later, older fact can be recognised.
public struct Stamp: Sendable, Hashable, Comparable, Codable {
    public var at: Instant
    public var rank: Int
    public var tie: String

    public init(at: Instant, rank: Int = 0, tie: String = "") {
        self.at = at
        self.rank = rank
        self.tie = tie
    }

    public static func < (lhs: Stamp, rhs: Stamp) -> Bool {
        (lhs.at, lhs.rank, lhs.tie) < (rhs.at, rhs.rank, rhs.tie)
    }
}

/// A last-writer-wins register: a value and the stamp of the fact that set it.
public struct Register<Value: Sendable & Codable & Equatable>: Sendable, Codable, Equatable {
    public var value: Value
    public var stamp: Stamp

    public init(value: Value, stamp: Stamp) {
        self.value = value
        self.stamp = stamp
    }

    /// Keeps whichever of the current and the offered value has the greater stamp. Equal stamps with different
    /// values (two copies of one fact that differ in detail) are settled by their JSON text, so the result never
    /// depends on which arrived first.
    public static func merge(_ current: Register?, _ value: Value, _ stamp: Stamp) -> Register {
        guard let current else { return Register(value: value, stamp: stamp) }
        if current.stamp != stamp { return current.stamp > stamp ? current : Register(value: value, stamp: stamp) }
        if current.value == value { return current }
        return EventCodec.json(current.value) >= EventCodec.json(value) ? current : Register(value: value, stamp: stamp)
    }
}

/// Ownership of a transaction by an app user. A *claim* from a link, transfer or first purchase is strong; an
/// app user id seen on any other event is weak and only fills an empty owner, so that an old device uploading
/// a renewal cannot undo a transfer.
public struct OwnerClaim: Sendable, Codable, Equatable {
    public var appUserID: String
    public var strong: Bool
    public var stamp: Stamp

    public init(appUserID: String, strong: Bool, stamp: Stamp) {
        self.appUserID = appUserID
        self.strong = strong
        self.stamp = stamp
    }

    /// The winning claim of two: strong beats weak, then the later stamp, then the smaller user id.
    public static func merge(_ current: OwnerClaim?, _ offered: OwnerClaim?) -> OwnerClaim? {
        guard let current else { return offered }
        guard let offered else { return current }
        let a = (current.strong ? 1 : 0, current.stamp, offered.appUserID)
        let b = (offered.strong ? 1 : 0, offered.stamp, current.appUserID)
        if a.0 != b.0 { return a.0 > b.0 ? current : offered }
        if a.1 != b.1 { return a.1 > b.1 ? current : offered }
        return current.appUserID <= offered.appUserID ? current : offered
    }
}
