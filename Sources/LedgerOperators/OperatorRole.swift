/// What an operator may do. Each role's reach is listed in the README's "Operators"; the server enforces it on every
/// route.
package enum OperatorRole: String, Sendable, Equatable, CaseIterable {
    /// Reads everything, writes nothing.
    case auditor
    /// Customers: consume, grants, webhook redelivery, a user's reconciliation.
    case support
    /// Invoices: finalize, void, adjustments, downloads.
    case finance
    /// Accounts, apps, keys, webhook endpoints, operators.
    case admin

    /// Admin and finance sign in with a one-time password as well as the password; for the others it is optional.
    package var requiresOneTimePassword: Bool { self == .admin || self == .finance }

    /// The roles, as a refusal lists them.
    package static let names = allCases.map(\.rawValue).joined(separator: ", ")

    /// `roles` in a fixed order, as a 403 names what it needs ("finance or auditor").
    package static func listed(_ roles: Set<OperatorRole>) -> String {
        allCases.filter(roles.contains).map(\.rawValue).joined(separator: " or ")
    }
}
