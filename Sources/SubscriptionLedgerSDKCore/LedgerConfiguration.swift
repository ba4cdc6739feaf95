import Foundation

/// Where the ledger is and how the SDK talks to it.
public struct LedgerConfiguration: Sendable {
    /// The ledger's base URL, e.g. `https://ledger.example.com`.
    public var baseURL: URL
    /// The app's public key (`APIKey` header). Never ship a secret key in an app.
    public var apiKey: String
    /// Where the uid cookie, the last known status and the upload queue are kept between launches.
    public var storageDirectory: URL
    /// How queued uploads are retried after a network loss.
    public var retry: RetryPolicy
    /// How often the status is polled when the live stream is unavailable.
    public var pollInterval: Duration
    /// Whether to open the live stream (else the status is polled).
    public var liveUpdates: Bool
    /// How long one HTTP request may take.
    public var requestTimeout: TimeInterval
    /// Where the SDK says what it does (no logging framework: the app decides where it goes).
    public var log: (@Sendable (String) -> Void)?
    /// How old the last signed snapshot may be for the SDK to grant its entitlements offline (each until its own
    /// expiry). Older, it is refused: a purchase refunded since could otherwise be used for ever without a network.
    public var offlineEntitlementsMaximumAge: Duration
    /// The device's clock, which judges expiries offline (tests and previews move it).
    public var now: @Sendable () -> Date

    public init(
        baseURL: URL, apiKey: String, storageDirectory: URL? = nil, retry: RetryPolicy = RetryPolicy(),
        pollInterval: Duration = .seconds(60), liveUpdates: Bool = true, requestTimeout: TimeInterval = 30,
        log: (@Sendable (String) -> Void)? = nil, offlineEntitlementsMaximumAge: Duration = .seconds(7 * 86_400),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.offlineEntitlementsMaximumAge = offlineEntitlementsMaximumAge
        self.now = now
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.storageDirectory = storageDirectory ?? Self.defaultStorageDirectory
        self.retry = retry
        self.pollInterval = pollInterval
        self.liveUpdates = liveUpdates
        self.requestTimeout = requestTimeout
        self.log = log
    }

    /// Application Support/SubscriptionLedger (the user's data folder on Linux).
    public static var defaultStorageDirectory: URL {
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return base.appendingPathComponent("SubscriptionLedger", isDirectory: true)
    }

    /// From the app's Info.plist: `SubscriptionLedgerURL` and `SubscriptionLedgerAPIKey` (the seed's "API Key in
    /// the plist"); nil when either is missing.
    public static func fromMainBundle() -> LedgerConfiguration? {
        guard let url = (Bundle.main.object(forInfoDictionaryKey: "SubscriptionLedgerURL") as? String).flatMap(URL.init(string:)),
            let key = Bundle.main.object(forInfoDictionaryKey: "SubscriptionLedgerAPIKey") as? String
        else { return nil }
        return LedgerConfiguration(baseURL: url, apiKey: key)
    }
}

/// Small JSON files written atomically (write to a temporary file, then rename), so a crash never leaves half a file.
struct JSONFile<Value: Codable>: Sendable {
    let url: URL

    func read() -> Value? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Value.self, from: data)
    }

    func write(_ value: Value) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(value).write(to: url, options: .atomic)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The files of one ledger and key under the storage directory: two apps (or two ledgers) never share them.
struct LedgerFiles: Sendable {
    let directory: URL

    init(configuration: LedgerConfiguration) {
        // A stable name for (ledger, key) without writing the key itself into a path.
        let identity = configuration.baseURL.absoluteString + "\n" + configuration.apiKey
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: stable across launches, unlike Hasher
        for byte in identity.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        directory = configuration.storageDirectory.appendingPathComponent(String(hash, radix: 16), isDirectory: true)
    }

    /// The signed `uid` cookies, by user id.
    var cookies: JSONFile<[String: UIDCookie]> { JSONFile(url: directory.appendingPathComponent("uid-cookies.json")) }
    /// The user `configure(userID: nil)` resumes.
    var currentUser: JSONFile<CookieJar.CurrentUser> { JSONFile(url: directory.appendingPathComponent("current-user.json")) }
    /// The last signed status answer (`CustomerCache`).
    var snapshot: JSONFile<SignedSnapshot> { JSONFile(url: directory.appendingPathComponent("signed-snapshot.json")) }
    /// The ledger's status signing keys, as pinned.
    var statusKeys: JSONFile<StatusKeySet> { JSONFile(url: directory.appendingPathComponent("status-keys.json")) }
    var queue: JSONFile<[PendingUpload]> { JSONFile(url: directory.appendingPathComponent("upload-queue.json")) }
}
