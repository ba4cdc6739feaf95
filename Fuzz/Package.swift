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
        // libFuzzer's driver behind each target's entry point.
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "FuzzReceipt",
            dependencies: ["FuzzDriver", .product(name: "AppStoreVerification", package: "subscription-ledger")]
        ),
        .executableTarget(
            name: "FuzzJWS",
            dependencies: ["FuzzDriver", .product(name: "AppStoreVerification", package: "subscription-ledger")]
        ),
        .executableTarget(
            name: "FuzzIngest",
            dependencies: ["FuzzDriver", .product(name: "AppStoreIngest", package: "subscription-ledger"), .product(name: "AppStoreVerification", package: "subscription-ledger")]
        ),
    ]
)
