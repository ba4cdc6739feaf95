import AppStoreVerification
import LedgerStore
import LedgerTenancy
import Synchronization

/// One App Store verifier set per app, shared by every request: an app's bundle id, Apple id and environments never
/// change after creation, and a verifier caches the certificate chains it has verified, so reusing it saves the
/// chain work on every notification after the first.
final class VerifierCache: Sendable {
    let roots: TrustRoots
    private let verifiers = Mutex<[String: AppStoreVerifierSet]>([:])

    init(roots: TrustRoots) { self.roots = roots }

    func verifiers(for app: AppRecord) -> AppStoreVerifierSet {
        if let cached = verifiers.withLock({ $0[app.id] }) { return cached }
        var environments: [AppStoreEnvironment] = [.production, .sandbox]
        if app.allowXcode { environments += [.xcode, .localTesting] }
        let made = AppStoreVerifierSet(bundleId: app.bundleID, appAppleId: app.appleAppID, environments: environments, roots: roots)
        return verifiers.withLock { cache in
            if let raced = cache[app.id] { return raced }
            cache[app.id] = made
            return made
        }
    }
}
