/// How the app's `appAccountToken` (a UUID the app sets when it starts a purchase, returned by Apple in every
/// copy of the transaction) names an app user.
///
/// The default is `.ignore`: a token is an opaque UUID, and treating it as a user id when the app does not would
/// create users that do not exist. An app opts in by saying which convention it follows.
public enum AppAccountTokenPolicy: Sendable {
    /// Tokens name no user; only uploads link.
    case ignore
    /// The app passes its user id (a UUID) as the token: the token, as Apple returns it (lowercase), is the app
    /// user id. Apps using this should use lowercase user ids, as Apple returns tokens lowercase.
    case tokenIsAppUserID
    /// The app's own table from token to user id; nil when the token is unknown.
    case mapping(@Sendable (String) -> String?)

    /// The app user the token names under this policy, if any.
    public func appUserID(forToken token: String?) -> String? {
        guard let token, !token.isEmpty else { return nil }
        switch self {
        case .ignore: return nil
        case .tokenIsAppUserID: return token
        case .mapping(let lookup): return lookup(token)
        }
    }
}
