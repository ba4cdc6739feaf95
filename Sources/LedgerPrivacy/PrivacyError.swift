/// Why a key or a sealed value could not be used, in words that say what to check.
package enum PrivacyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The master key file is missing, unreadable or malformed.
    case masterKey(String)
    /// A sealed value does not open (another installation's key, a key removed too early, or altered bytes).
    case sealing(String)

    package var description: String {
        switch self {
        case .masterKey(let why): "the master key: \(why)"
        case .sealing(let why): "a sealed secret: \(why)"
        }
    }
}
