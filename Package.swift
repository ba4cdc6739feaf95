// swift-tools-version:6.2
import PackageDescription

// Strict settings for every target of ours: Swift 6 language mode (strict concurrency) is the package default.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility")
]

let package = Package(
    name: "subscription-ledger",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "ledger", targets: ["Ledger"]),
        .library(name: "PostgresClient", targets: ["PostgresClient"]),
        .library(name: "LedgerStore", targets: ["LedgerStore"]),
        .library(name: "LedgerBilling", targets: ["LedgerBilling"]),  // for the Benchmarks package
        .library(name: "AppStoreVerification", targets: ["AppStoreVerification"]),
        .library(name: "AppStoreIngest", targets: ["AppStoreIngest"]),  // for Fuzz/ (FuzzIngest)
        // For the Benchmarks package (a separate package, so this one never depends on a benchmark tool).
        .library(name: "LedgerDomain", targets: ["LedgerDomain"]),
        .library(name: "UTCTime", targets: ["UTCTime"]),
        .library(name: "LedgerTracing", targets: ["LedgerTracing"]),
        .library(name: "LedgerTenancy", targets: ["LedgerTenancy"]),
        .library(name: "LedgerWebhooks", targets: ["LedgerWebhooks"]),
        .library(name: "LedgerCommands", targets: ["LedgerCommands"]),
        .library(name: "EmbeddedPostgres", targets: ["EmbeddedPostgres"]),
        .library(name: "AppStoreSamples", targets: ["AppStoreSamples"]),
        .library(name: "PostgresTestSupport", targets: ["PostgresTestSupport"]),
        // The iOS SDK: Foundation only, so an app that adds it builds none of the server (CI checks it with
        // `swift build --product SubscriptionLedgerSDK`, scripts/check-sdk-build.sh). Static rather than automatic
        // because SwiftPM refuses `--product` for an automatic library and builds the whole package instead. For apps
        // this changes nothing: Xcode links an automatic product statically into the target that adds it anyway, and a
        // static product is what Xcode (and SwiftPM for iOS) links into an app; embedding is not needed, so there is
        // no framework to sign. As with any static library, add it to one target per app binary (an app and its own
        // dynamic frameworks each linking it would each hold a copy, with two `PurchaseManager.sharedInstance()`s).
        .library(name: "SubscriptionLedgerSDK", type: .static, targets: ["SubscriptionLedgerSDK"]),
        .executable(name: "ledger-sdk-demo", targets: ["LedgerSDKDemo"])
    ],
    dependencies: [
        // Builds the SDK's DocC catalog (scripts/build-sdk-docs.sh); a command plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // No traits (we use neither swift-configuration readers nor Foundation date formatters in forms): with its two
        // default traits SwiftPM emits their -D flags in an order that changes between runs, so a build with nothing
        // changed recompiled Hummingbird now and then.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        // Traces: the API in every module that makes spans; the tracer and its OTLP/HTTP exporter are the ledger's own
        // (`LedgerTraceExport`), bootstrapped by LedgerCommands when the standard OTEL_* variables ask for it.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3")
    ],
    targets: [
        // C interop: libpq through pkg-config (Debian: libpq-dev + pkgconf).
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev", "pkgconf"])]),

        // JSON kept exactly as received (numbers as their literal text, members in order), for signed payloads and
        // for event data that must not be rewritten.
        .target(name: "ExactJSON", swiftSettings: strict),

        // Time as the ledger counts it: `Instant` (whole microseconds, UTC, with RFC 3339) and `CalendarMonth`, by integer
        // arithmetic; the one crossing to Foundation's `Date`. Nothing of the ledger, so the verifier can take it too.
        .target(name: "UTCTime", swiftSettings: strict),

        // What every HTTP server here (the ledger's and the tests') shares about its connections: one the server drops
        // unserved at shutdown is closed instead of trapping NIO (ClosingChildChannel).
        .target(
            name: "HTTPServerChannels",
            dependencies: [
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio")
            ],
            swiftSettings: strict
        ),

        // The pure domain: ledger events, projection reducers, rules. No I/O, so it replays and tests exhaustively.
        .target(name: "LedgerDomain", dependencies: ["UTCTime"], swiftSettings: strict),

        // A trace's context as W3C header text (event metadata, webhook and App Store API requests); the Tracing API only.
        .target(
            name: "LedgerTracing",
            dependencies: [.product(name: "Tracing", package: "swift-distributed-tracing")],
            swiftSettings: strict
        ),

        // The ledger's tracer and its OTLP/HTTP exporter: sampled spans recorded under a lock and posted in batches.
        .target(
            name: "LedgerTraceExport",
            dependencies: [
                "LedgerTracing",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            swiftSettings: strict
        ),

        // A small PostgreSQL client over libpq: connections, binary parameters, rows, COPY, LISTEN, a pool.
        .target(
            name: "PostgresClient",
            dependencies: [
                "CLibPQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),

        // Small concurrency primitives (the first of several answers, a wake-up flag); deadlines on NIO's timers.
        .target(
            name: "LedgerConcurrency",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio")
            ],
            swiftSettings: strict
        ),

        // The event log (append, group commit, hash chain, subscriptions, verification), the projections and read models
        // over it, and the migrations of every table (schema/). Features keep their own tables' SQL in their modules.
        .target(
            name: "LedgerStore",
            dependencies: [
                "UTCTime",
                "ExactJSON",
                "LedgerConcurrency",
                "LedgerDomain",
                "PostgresClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                "LedgerTracing", .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),

        // Accounts, apps, API keys and product catalogs (`ledger.accounts`, `apps`, `api_keys`, `products`).
        .target(
            name: "LedgerTenancy",
            dependencies: [
                "UTCTime",
                "LedgerDomain",
                "LedgerStore",
                "PostgresClient",
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strict
        ),

        // The JSON of a user's purchases and state, one shape for the API's answers, the live streams and webhook payloads.
        .target(name: "LedgerWire", dependencies: ["UTCTime", "LedgerDomain", "LedgerStore", "LedgerTenancy", "ExactJSON"], swiftSettings: strict),

        // Jobs that run on one instance at a time across the service's instances (a PostgreSQL advisory lock each).
        .target(
            name: "LedgerJobs",
            dependencies: [
                "PostgresClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics")
            ],
            swiftSettings: strict
        ),

        // Who acts on the admin side: operator accounts (bcrypt passwords and one-time passwords from hummingbird-auth,
        // secrets sealed under the master key), console sessions, their CSRF tokens and the record of every console
        // write (`ledger.operators`, `ledger.console_sessions`, `ledger.console_actions`).
        // The installation's master keys (the key file, its rotation), AES-GCM sealing under them, and the keys and
        // pseudonyms that protect personal data (docs/erasure.md).
        .target(
            name: "LedgerPrivacy",
            dependencies: ["LedgerDomain", "LedgerStore", "PostgresClient", "UTCTime", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "LedgerOperators",
            dependencies: [
                "UTCTime",
                "LedgerDomain",
                "LedgerStore",
                "LedgerPrivacy",
                "PostgresClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdOTP", package: "hummingbird-auth")
            ],
            swiftSettings: strict
        ),

        // Monthly invoices over the event log: price plans, drafts, finalization, voiding, reproduction, verification,
        // and their CSV / JSON / HTML renderings.
        .target(
            name: "LedgerBilling",
            dependencies: [
                "UTCTime",
                "LedgerDomain",
                "LedgerStore",
                "PostgresClient",
                .product(name: "Crypto", package: "swift-crypto"),
                "LedgerTracing", .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),

        // C interop: posix_spawn's close-from file action, which Swift's Glibc module does not export.
        .target(name: "CProcessSpawn"),
        // glibc's malloc settings for `ledger serve` (MallocArenas).
        .target(name: "CMalloc"),

        // A private PostgreSQL cluster (initdb / pg_ctl) for the zero-configuration default.
        .target(
            name: "EmbeddedPostgres",
            dependencies: ["CProcessSpawn", "PostgresClient", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),

        // Offline verification of App Store signed data (JWS) and legacy receipts (PKCS#7).
        .target(
            name: "AppStoreVerification",
            dependencies: [
                "UTCTime",
                "ExactJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),

        // From verified App Store data (notifications, signed transactions, receipts) to ledger events and streams.
        .target(name: "AppStoreIngest", dependencies: ["UTCTime", "AppStoreVerification", "ExactJSON", "LedgerDomain"], swiftSettings: strict),

        // The application layer: every write into the log (notification, upload, receipt, restore, consume, external
        // purchase) is one call here, with domain errors; the HTTP and CLI edges only translate them.
        .target(
            name: "LedgerRecording",
            dependencies: [
                "UTCTime", "LedgerTenancy", "AppStoreIngest", "AppStoreVerification", "LedgerDomain", "LedgerPrivacy", "LedgerStore",
                .product(name: "Metrics", package: "swift-metrics"),
                "LedgerTracing", .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),

        // Webhooks to backends, all of them: endpoints and deliveries (their tables' SQL), the fan-out from the log, the
        // payloads, Standard Webhooks signatures, the retry schedule, outbound safety, and the dispatcher that sends
        // each endpoint's deliveries in order per user, with the service that runs it.
        .target(
            name: "LedgerWebhooks",
            dependencies: [
                "UTCTime", "LedgerWire", "LedgerTenancy", "ExactJSON",
                "LedgerConcurrency",
                "LedgerDomain",
                "LedgerPrivacy",
                "LedgerStore",
                "PostgresClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "LedgerTracing", .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),

        // A client of Apple's App Store Server API: ES256 tokens from the app's In-App Purchase key, retries with backoff,
        // a concurrency limit, typed errors with Apple's codes. No database: the answers' signed items are verified by callers.
        .target(
            name: "AppStoreServerAPI",
            dependencies: [
                "UTCTime",
                "AppStoreVerification",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "LedgerTracing", .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),

        // Backfill, reconciliation and consumption answers through the App Store Server API, recorded by LedgerRecording:
        // shared by the CLI (`ledger appstore backfill|reconcile`) and `serve` (its route and daily service).
        .target(
            name: "AppStoreSync",
            dependencies: [
                "UTCTime", "LedgerTenancy", "PostgresClient",
                "AppStoreServerAPI",
                "AppStoreVerification",
                "LedgerDomain",
                "LedgerRecording",
                "LedgerStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),

        // The console (`/console` of `ledger serve`): support, finance and operations in a browser. Pages are built on
        // the server as escaped HTML strings, charts as SVG; it reads through the API's own query types, and its
        // sessions are LedgerOperators': the console has no SQL of its own.
        .target(
            name: "LedgerConsole",
            dependencies: [
                "UTCTime", "LedgerOperators", "LedgerRecording", "LedgerTenancy", "LedgerWebhooks",
                "LedgerBilling",
                "LedgerDomain",
                "LedgerStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio")
            ],
            swiftSettings: strict
        ),

        // The HTTP service (Hummingbird 2): the seed API, the v1 API, Apple's notification endpoint, keys and
        // tenancy, OpenAPI and metrics.
        .target(
            name: "LedgerServer",
            dependencies: [
                "UTCTime", "LedgerWire", "LedgerJobs", "LedgerOperators", "LedgerPrivacy", "LedgerTenancy",
                "AppStoreIngest",
                "AppStoreServerAPI",
                "AppStoreSync",
                "LedgerRecording",
                "AppStoreVerification",
                "ExactJSON",
                "HTTPServerChannels",
                "LedgerBilling",
                "LedgerConcurrency",
                "LedgerConsole",
                "LedgerDomain",
                "LedgerStore",
                "LedgerWebhooks",
                "PostgresClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                "LedgerTracing", .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            // openapi.json is compiled in at build time (the EmbedOpenAPI plugin): no resource bundle, so no
            // `Bundle.module` that traps in an installed binary.
            exclude: ["OpenAPI/openapi.json"],
            swiftSettings: strict,
            plugins: ["EmbedOpenAPI"]
        ),
        // Build-time embedding of a text file as a Swift string (the OpenAPI document).
        .plugin(name: "EmbedOpenAPI", capability: .buildTool(), exclude: ["embed-text.sh"]),

        // The `ledger` command line: every subcommand, as a library so tests can run them in-process.
        .target(
            name: "LedgerCommands",
            dependencies: [
                "UTCTime",
                "LedgerJobs", "LedgerOperators", "LedgerPrivacy", "LedgerTenancy",
                "CMalloc",
                "LedgerBilling",
                "LedgerStore",
                "PostgresClient",
                "EmbeddedPostgres",
                "LedgerServer",
                "LedgerWebhooks",
                "AppStoreVerification",
                "AppStoreSamples",
                "AppStoreServerAPI",
                "AppStoreSync",
                "LedgerDomain",
                "LedgerRecording",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "LedgerTracing", "LedgerTraceExport", .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "Ledger",
            dependencies: ["LedgerCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),

        // Starts one private PostgreSQL per test process (or uses DATABASE_URL) and hands out fresh databases.
        .target(
            name: "PostgresTestSupport",
            dependencies: ["UTCTime", "PostgresClient", "EmbeddedPostgres", "LedgerDomain"],
            swiftSettings: strict
        ),

        // A fresh migrated database with the service's event store, for the tests of the store and of the features over it.
        .target(
            name: "LedgerStoreTestSupport",
            dependencies: ["UTCTime", "LedgerDomain", "LedgerStore", "PostgresClient", "PostgresTestSupport"],
            swiftSettings: strict
        ),

        // The API in-process on a fresh database (HummingbirdTesting), with tenants and keys made through the admin API:
        // shared by the server tests and the reliability suite.
        .target(
            name: "LedgerServerTestSupport",
            dependencies: [
                "LedgerOperators", "LedgerPrivacy", .product(name: "Crypto", package: "swift-crypto"),
                "UTCTime", "LedgerTenancy",
                "LedgerServer", "LedgerDomain", "LedgerStore", "LedgerStoreTestSupport", "LedgerWebhooks", "PostgresClient", "PostgresTestSupport",
                "AppStoreSamples",
                "AppStoreVerification", "AppStoreServerTestSupport", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "X509", package: "swift-certificates")
            ],
            swiftSettings: strict
        ),

        // A fake App Store Server API on loopback for the tests: a scripted history signed with the test PKI, every
        // request's token checked, 429 and retryable 5xx injected at random (seeded), every call recorded.
        .target(
            name: "AppStoreServerTestSupport",
            dependencies: [
                "AppStoreSamples", "AppStoreServerAPI", "HTTPServerChannels",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            swiftSettings: strict
        ),

        // App Store data signed like Apple's (test PKIs) or like Xcode's (self-signed), and payload builders: for the
        // tests, and for `ledger appstore sample`, which makes Xcode data to try the service with.
        .target(
            name: "AppStoreSamples",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1")
            ],
            swiftSettings: strict
        ),

        // The SDK's portable core (client, identity, customer snapshot and its offline signature check, durable upload
        // queue, live stream, purchase flow): Foundation and CryptoKit only; builds and is tested on Linux, where
        // swift-crypto stands in for CryptoKit (Apple platforms compile none of it: the dependency is Linux-only).
        .target(
            name: "SubscriptionLedgerSDKCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: [.linux]))],
            swiftSettings: strict
        ),
        // The core re-exported, plus the StoreKit 2 adapter where StoreKit exists.
        .target(name: "SubscriptionLedgerSDK", dependencies: ["SubscriptionLedgerSDKCore"], swiftSettings: strict),
        // `swift run ledger-sdk-demo`: the SDK against a local `ledger serve`.
        .executableTarget(name: "LedgerSDKDemo", dependencies: ["SubscriptionLedgerSDK"], swiftSettings: strict),

        .testTarget(
            name: "LedgerDomainTests",
            dependencies: ["UTCTime", "LedgerDomain", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppStoreIngestTests",
            dependencies: ["UTCTime", "AppStoreIngest", "AppStoreVerification", "AppStoreSamples", "LedgerDomain", "ExactJSON"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerRecordingTests",
            dependencies: [
                "UTCTime",
                "LedgerStoreTestSupport", "LedgerTenancy", "LedgerRecording", "LedgerStore", "LedgerDomain", "LedgerPrivacy",
                "AppStoreSamples", "AppStoreVerification", "PostgresClient", "PostgresTestSupport",
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppStoreServerAPITests",
            dependencies: [
                "UTCTime",
                "LedgerTenancy", "AppStoreServerAPI", "AppStoreSync", "AppStoreServerTestSupport", "AppStoreSamples", "AppStoreVerification",
                "LedgerCommands", "LedgerDomain", "LedgerPrivacy", "LedgerRecording", "LedgerServer", "LedgerStore", "PostgresClient",
                "PostgresTestSupport", "LedgerServerTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerTraceExportTests",
            dependencies: [
                "LedgerTraceExport", "LedgerTracing", "LedgerServerTestSupport",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "UTCTimeTests", dependencies: ["UTCTime"], swiftSettings: strict),
        .testTarget(name: "ExactJSONTests", dependencies: ["ExactJSON"], swiftSettings: strict),
        .testTarget(
            name: "HTTPServerChannelsTests",
            dependencies: [
                "HTTPServerChannels", .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PostgresClientTests",
            dependencies: [
                "EmbeddedPostgres", "PostgresClient", "PostgresTestSupport", .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerStoreTests",
            dependencies: [
                "UTCTime",
                "LedgerStoreTestSupport", "LedgerRecording", "LedgerStore", "LedgerDomain", "LedgerConcurrency",
                "PostgresClient", "PostgresTestSupport", "LedgerTracing", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerBillingTests",
            dependencies: [
                "UTCTime",
                "LedgerStoreTestSupport", "LedgerTenancy", "LedgerBilling", "LedgerStore", "LedgerDomain",
                "PostgresClient", "PostgresTestSupport"
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerWebhooksTests",
            dependencies: [
                "UTCTime",
                "LedgerStoreTestSupport", "LedgerTenancy", "PostgresClient", "PostgresTestSupport", "LedgerWebhooks",
                "LedgerDomain", "LedgerPrivacy", "LedgerStore", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerOperatorsTests",
            dependencies: [
                "LedgerOperators", "LedgerPrivacy", "LedgerStore", "PostgresClient", "PostgresTestSupport", "UTCTime",
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerPrivacyTests",
            dependencies: [
                "LedgerPrivacy", "LedgerStore", "PostgresClient", "PostgresTestSupport", "UTCTime",
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerTenancyTests",
            dependencies: [
                "LedgerTenancy", "LedgerDomain", "LedgerStore", "PostgresClient", "PostgresTestSupport",
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "LedgerConcurrencyTests", dependencies: ["LedgerConcurrency"], swiftSettings: strict),
        .testTarget(
            name: "EmbeddedPostgresTests", dependencies: ["EmbeddedPostgres", "LedgerDomain", "LedgerStore", "PostgresClient"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AppStoreVerificationTests",
            dependencies: [
                "AppStoreVerification",
                "AppStoreSamples",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LedgerServerTests",
            dependencies: [
                "UTCTime", "LedgerTenancy", "LedgerWire", "LedgerOperators", "LedgerPrivacy", "ExactJSON",
                "LedgerServer", "LedgerServerTestSupport", "LedgerStore", "LedgerDomain", "LedgerWebhooks", "PostgresTestSupport",
                "AppStoreSamples", "AppStoreVerification", "EmbeddedPostgres", "PostgresClient",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // Faults, duplicates, hostile input, isolation and tampering against the real server (scripts/reliability.sh).
        // It depends on the `Ledger` executable so that the crash tests can start and SIGKILL a real `ledger serve`.
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "UTCTime", "LedgerTenancy", "LedgerStoreTestSupport", "LedgerOperators",
                "Ledger", "LedgerBilling", "LedgerCommands", "LedgerServer", "LedgerServerTestSupport", "LedgerStore", "LedgerDomain",
                "LedgerWebhooks", "PostgresTestSupport",
                "AppStoreSamples", "AppStoreVerification", "EmbeddedPostgres", "PostgresClient",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        ),
        // The SDK against a real `ledger serve` (the `Ledger` executable) on a real PostgreSQL, and its pure parts.
        .testTarget(
            name: "SubscriptionLedgerSDKTests",
            dependencies: [
                "Ledger", "SubscriptionLedgerSDKCore", "PostgresTestSupport", "PostgresClient", "AppStoreSamples", "EmbeddedPostgres",
                "AppStoreServerTestSupport", .product(name: "Hummingbird", package: "hummingbird")
            ],
            swiftSettings: strict
        ),
        // Depends on the `Ledger` executable for the tests that need a real process (progress on a non-terminal stderr).
        .testTarget(
            name: "LedgerCommandsTests",
            dependencies: [
                "EmbeddedPostgres",
                "UTCTime", "LedgerTenancy", "LedgerWebhooks", "LedgerOperators", "LedgerPrivacy",
                "Ledger", "LedgerCommands", "LedgerServer", "LedgerStore", "LedgerDomain", "PostgresClient", "PostgresTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict
        )
    ]
)
