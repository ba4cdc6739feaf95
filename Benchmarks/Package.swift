// swift-tools-version:6.1
import PackageDescription

// The benchmark suite (Benchmarks/README.md): the ledger measured against raw PostgreSQL in the same run.
// A separate package, so the service's package never depends on anything only benchmarks need.
// Run: Benchmarks/run.sh (builds in release, starts its own PostgreSQL, writes results/ and the README table).
let package = Package(
    name: "ledger-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "subscription-ledger", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    ],
    targets: [
        .executableTarget(
            name: "LedgerBenchmarks",
            dependencies: [
                .product(name: "LedgerStore", package: "subscription-ledger"),
                .product(name: "LedgerBilling", package: "subscription-ledger"),
                .product(name: "LedgerDomain", package: "subscription-ledger"),
                .product(name: "UTCTime", package: "subscription-ledger"),
                .product(name: "LedgerTenancy", package: "subscription-ledger"),
                .product(name: "LedgerWebhooks", package: "subscription-ledger"),
                .product(name: "LedgerCommands", package: "subscription-ledger"),
                .product(name: "PostgresClient", package: "subscription-ledger"),
                .product(name: "EmbeddedPostgres", package: "subscription-ledger"),
                .product(name: "AppStoreSamples", package: "subscription-ledger"),
                .product(name: "PostgresTestSupport", package: "subscription-ledger"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "LedgerTracing", package: "subscription-ledger"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
    ]
)
