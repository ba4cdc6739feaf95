#!/usr/bin/env bash
# CI (.ci/run): the iOS SDK builds alone, and compiles none of the server's dependencies, so an app that adds the
# SubscriptionLedgerSDK product builds none of the server. The product is a static library (Package.swift): SwiftPM
# refuses `--product` for an automatic library ("building the default target instead" builds everything).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=.build-sdk
swift build --product SubscriptionLedgerSDK --build-path .build-sdk
swift build --product ledger-sdk-demo --build-path .build-sdk

# Any module of the server's dependencies (or of the server itself) compiled there fails the check. swift-crypto
# (Crypto, CCryptoBoringSSL…) is allowed: on Linux it stands in for Apple's CryptoKit, which the SDK checks the
# status signatures with (Package.swift makes it a Linux-only dependency, so an iOS app compiles none of it).
forbidden='(_)?NIO|Hummingbird|CLibPQ|PostgresClient|Logging|X509|SwiftASN1|AsyncHTTPClient|ServiceLifecycle|Ledger(Server|Store|Domain|Recording|Webhooks|Billing|Commands)'
# SwiftPM makes a `<Module>.build` folder for every target of the graph, but object files only in those it compiles.
compiled=$(find "$build" -path '*/debug/*.build/*' -name '*.o' | sed -E 's|.*/debug/([^/]+)\.build/.*|\1|' | sort -u)
found=$(grep -E "^($forbidden)" <<<"$compiled" | grep -vE '^(SubscriptionLedgerSDK|LedgerSDKDemo)' || true)
if [ -n "$found" ]; then
    echo "sdk: server dependencies compiled for the SDK:"; echo "$found"
    exit 1
fi
echo "sdk: SubscriptionLedgerSDK and ledger-sdk-demo built without any server dependency"
