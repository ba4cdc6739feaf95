/// What one write did to the log.
package struct RecordResult: Sendable, Equatable {
    /// Events newly appended.
    package var recorded: Int
    /// Events of this write that the log already held (a redelivery, or the same fact by another path).
    package var alreadyKnown: Int
    /// Log positions of the write's events, new or already known: what a read-your-writes wait waits for.
    package var positions: [Int64]

    package init(recorded: Int = 0, alreadyKnown: Int = 0, positions: [Int64] = []) {
        self.recorded = recorded
        self.alreadyKnown = alreadyKnown
        self.positions = positions
    }

    mutating func add(linked positions: [Int64]) {
        recorded += positions.count
        self.positions += positions
    }
}
