import AppStoreServerAPI
import AsyncHTTPClient
import Foundation
import LedgerStore
import LedgerTenancy
import Logging
import Synchronization

/// The App Store Server API client of each configured app, made on first use from the settings file and the app's
/// record (its bundle id), then reused: the private key is read once, and each client's concurrency limit holds across
/// every backfill and reconciliation of the process.
package final class AppStoreClients: Sendable {
    package let settings: AppStoreAPISettings
    let environment: [String: String]
    let httpClient: HTTPClient
    let retryPolicy: AppStoreRetryPolicy
    let logger: Logger
    private let clients = Mutex<[String: AppStoreServerAPIClient]>([:])

    package init(
        settings: AppStoreAPISettings, environment: [String: String] = ProcessInfo.processInfo.environment,
        httpClient: HTTPClient = .appStore, retryPolicy: AppStoreRetryPolicy = AppStoreRetryPolicy(), logger: Logger
    ) {
        self.settings = settings
        self.environment = environment
        self.httpClient = httpClient
        self.retryPolicy = retryPolicy
        self.logger = logger
    }

    /// The apps with settings, sorted.
    package var configuredApps: [String] { settings.apps.keys.sorted() }

    package func appSettings(for appID: String) throws(AppStoreSyncError) -> AppStoreAPISettings.AppSettings {
        guard let app = settings.apps[appID] else { throw .notConfigured(app: appID) }
        return app
    }

    package func client(for app: AppRecord) throws(AppStoreSyncError) -> AppStoreServerAPIClient {
        if let cached = clients.withLock({ $0[app.id] }), cached.key.bundleID == app.bundleID { return cached }
        let settings = try appSettings(for: app.id)
        let client: AppStoreServerAPIClient
        do throws(AppStoreAPIKeyError) {
            client = try AppStoreServerAPIClient(
                key: try settings.key(bundleID: app.bundleID, environment: environment), baseURL: settings.baseURL, httpClient: httpClient,
                retryPolicy: retryPolicy, logger: logger)
        } catch {
            throw .unusableSettings(app: app.id, error.message)
        }
        clients.withLock { $0[app.id] = client }
        return client
    }
}
