/// What one write did to the log.
public struct RecordResult: Sendable, Equatable {
    /// Events newly appended.
    public var recorded: Int
    /// Events of this write that the log already held (a redelivery, or the same fact by another path).
    public var alreadyKnown: Int
    /// Log positions of the write's events, new or already known: what a read-your-writes wait waits for.
    public var positions: [Int64]

    public init(recorded: Int = 0, alreadyKnown: Int = 0, positions: [Int64] = []) {
        self.recorded = recorded
        self.alreadyKnown = alreadyKnown
        self.positions = positions
    }

    mutating func add(linked positions: [Int64]) {
        recorded += positions.count
        self.positions += positions
    }
}
