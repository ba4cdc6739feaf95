import UTCTime

/// An operator as `ledger.operators` keeps it, without its secrets.
package struct OperatorRecord: Sendable, Equatable {
    package var id: String
    package var name: String
    package var role: OperatorRole
    /// Whether signing in asks for a one-time password.
    package var hasOneTimePassword: Bool
    package var createdAt: Instant
    package var disabledAt: Instant?

    package var isDisabled: Bool { disabledAt != nil }
}
