/// What the verified data must belong to: our app, in the environment we run in.
public struct AppConfiguration: Sendable, Hashable {
    /// The app's bundle identifier; every payload that carries one must match it exactly.
    public var bundleId: String
    /// The app's Apple ID in the App Store. Checked only in production, where Apple always sends it (sandbox and
    /// Xcode data may omit it). In production with `nil` here, data that carries an app Apple ID is rejected.
    public var appAppleId: Int64?
    /// The environment data must come from.
    public var environment: AppStoreEnvironment

    public init(bundleId: String, appAppleId: Int64? = nil, environment: AppStoreEnvironment) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
    }

    /// Whether locally signed (Xcode / LocalTesting, single self-signed certificate) data may be accepted: only when
    /// the app is configured for one of those environments, never for Production or Sandbox.
    public var allowsLocallySignedData: Bool { environment.isLocal }
}
