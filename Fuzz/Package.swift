// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for the App Store parsers. Separate from the main package so `swift build` there never needs
// the sanitizer flags. Build: swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// (scripts/fuzz.sh does this and runs each target).
let package = Package(
    name: "ledger-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "subscription-ledger", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzReceipt",
            dependencies: [.product(name: "AppStoreVerification", package: "subscription-ledger")]
        ),
        .executableTarget(
            name: "FuzzJWS",
            dependencies: [.product(name: "AppStoreVerification", package: "subscription-ledger")]
        ),
        .executableTarget(
            name: "FuzzIngest",
            dependencies: [
                .product(name: "AppStoreIngest", package: "subscription-ledger"),
                .product(name: "AppStoreVerification", package: "subscription-ledger"),
            ]
        ),
    ]
)
