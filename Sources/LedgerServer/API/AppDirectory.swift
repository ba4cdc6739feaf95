import LedgerStore
import Synchronization

/// Apps by id, cached: an app's settings never change after creation, and every authenticated request looks its
/// app up.
final class AppDirectory: Sendable {
    let tenancy: TenancyStore
    private let cache = Mutex<[String: AppRecord]>([:])

    init(tenancy: TenancyStore) {
        self.tenancy = tenancy
    }

    func app(id: String) async throws -> AppRecord? {
        if let cached = cache.withLock({ $0[id] }) { return cached }
        guard let app = try await tenancy.app(id: id) else { return nil }
        cache.withLock { $0[id] = app }
        return app
    }
}
