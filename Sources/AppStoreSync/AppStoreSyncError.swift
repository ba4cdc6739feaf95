import AppStoreServerAPI

/// Why a backfill or a reconciliation could not run at all (per-item failures are in its summary instead).
package enum AppStoreSyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The App Store API configuration names no settings for this app.
    case notConfigured(app: String)
    /// The app's settings cannot be used (its key, its base URL); the message says what to fix.
    case unusableSettings(app: String, String)
    /// No app has this id.
    case unknownApp(String)
    /// Apple refused the credentials, or the call the whole run depends on failed: the run stops.
    case appStore(AppStoreServerAPIError)
    /// Apple keeps notification history for 180 days.
    case tooEarly(String)

    package var description: String {
        switch self {
        case .notConfigured(let app):
            "app \(app) has no App Store Server API settings: add it under \"apps\" in the file LEDGER_APPSTORE_API_CONFIG (or --config) names"
        case .unusableSettings(let app, let why): "the App Store Server API settings of app \(app): \(why)"
        case .unknownApp(let app): "there is no app \(app)"
        case .appStore(let error): error.description
        case .tooEarly(let why): why
        }
    }
}
