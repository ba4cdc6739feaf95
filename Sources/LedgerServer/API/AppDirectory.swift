import AppStoreIngest
import AppStoreVerification
import LedgerStore
import Synchronization

/// Apps by id, with their App Store verifiers, cached: an app's settings never change after creation, and a
/// verifier caches verified certificate chains, so one per app is shared by every request.
final class AppDirectory: Sendable {
    let tenancy: TenancyStore
    let roots: TrustRoots
    private let cache = Mutex<[String: (app: AppRecord, verifiers: AppStoreVerifierSet)]>([:])

    init(tenancy: TenancyStore, roots: TrustRoots) {
        self.tenancy = tenancy
        self.roots = roots
    }

    func app(id: String) async throws -> AppRecord? {
        try await entry(id: id)?.app
    }

    func verifiers(for appID: String) async throws -> AppStoreVerifierSet? {
        try await entry(id: appID)?.verifiers
    }

    private func entry(id: String) async throws -> (app: AppRecord, verifiers: AppStoreVerifierSet)? {
        if let cached = cache.withLock({ $0[id] }) { return cached }
        guard let app = try await tenancy.app(id: id) else { return nil }
        var environments: [AppStoreEnvironment] = [.production, .sandbox]
        if app.allowXcode { environments += [.xcode, .localTesting] }
        let entry = (app: app, verifiers: AppStoreVerifierSet(
            bundleId: app.bundleID, appAppleId: app.appleAppID, environments: environments, roots: roots))
        cache.withLock { $0[id] = entry }
        return entry
    }
}

extension AppRecord {
    /// The ingest policy for the app's `appAccountToken` convention.
    var tokenPolicy: AppAccountTokenPolicy {
        switch appAccountTokenPolicy {
        case .ignore: .ignore
        case .tokenIsAppUserID: .tokenIsAppUserID
        }
    }
}
