import UTCTime

/// Why an operator command was refused, in words that say what to do instead.
package enum OperatorError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidName(String)
    case nameTaken(String)
    case unknownOperator(String)
    case weakPassword(String)
    case oneTimePasswordRequired(OperatorRole)
    case invalidToken(String)
    /// A sign-in that did not succeed. Deliberately one case: the answer never says whether the name exists, the
    /// password was wrong, the code was wrong or used, or the operator is disabled.
    case signInRefused
    /// Too many failed sign-ins of this name or from this address: refused unchecked until then.
    case signInThrottled(until: Instant)

    package var description: String {
        switch self {
        case .invalidName(let name):
            "\(name.debugDescription) is not an operator name: use 1–64 lowercase letters, digits, '.', '_', '-' or '@', "
                + "starting with a letter or digit"
        case .nameTaken(let name): "there is already an operator named \(name); choose another name"
        case .unknownOperator(let name): "there is no operator named \(name); see `ledger operators list`"
        case .weakPassword(let why): "the password is not accepted: \(why)"
        case .oneTimePasswordRequired(let role):
            "the \(role.rawValue) role signs in with a one-time password: leave out --without-one-time-password"
        case .invalidToken(let why): "the token is not made: \(why)"
        case .signInRefused: "the name, the password or the one-time password is wrong"
        case .signInThrottled(let until): "too many failed sign-ins: try again after \(until.rfc3339)"
        }
    }
}
