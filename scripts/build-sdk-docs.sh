#!/usr/bin/env bash
# CI (.ci/run): the SDK core's DocC catalog (Sources/SubscriptionLedgerSDKCore/SubscriptionLedgerSDKCore.docc) builds,
# with every symbol link and article reference resolved: any DocC warning fails the build. Uses swift-docc-plugin
# (Package.swift) in a build folder of its own, so it never contends with `swift build` / `swift test` in .build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=.build-docc
log=$(mktemp)
trap 'rm -f "$log"' EXIT

status=0
swift package --build-path "$build" generate-documentation --target SubscriptionLedgerSDKCore --warnings-as-errors \
    2>&1 | tee "$log" || status=$?

# --warnings-as-errors makes DocC fail on its own warnings (an unresolved ``symbol`` or <doc:article> link, among
# others); a warning printed anyway (the compiler's, while the plugin builds the target for its symbol
# graph) fails the check too: the catalog builds with none.
# SwiftPM's own notes on dependencies' checkouts (swift-distributed-tracing's CMakeLists.txt "unhandled" files, printed
# when a fresh build folder resolves the graph) are not the catalog's.
warnings=$(grep 'warning:' "$log" | grep -cv 'which are unhandled; explicitly declare them' || true)
if [ "$status" -ne 0 ] || [ "$warnings" -ne 0 ]; then
    echo "sdk docs: failed (exit status $status, $warnings warning(s); see above)"
    exit 1
fi

archive="$build/plugins/Swift-DocC/outputs/SubscriptionLedgerSDKCore.doccarchive"
[ -d "$archive" ] || { echo "sdk docs: no archive at $archive"; exit 1; }
echo "sdk docs: SubscriptionLedgerSDKCore built with no warning; archive at $(pwd)/$archive"
