#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each for SECONDS (default 60). Exits non-zero on any crash.
# Usage: scripts/fuzz.sh [SECONDS]      (see Fuzz/README.md for longer runs)
set -euo pipefail
SECONDS_PER_TARGET="${1:-60}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ="$ROOT/Fuzz"
TARGETS=(FuzzReceipt FuzzJWS)

cd "$FUZZ"
swift build -c debug --scratch-path "$FUZZ/.build" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
BIN="$(swift build -c debug --scratch-path "$FUZZ/.build" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --show-bin-path)"

status=0
for target in "${TARGETS[@]}"; do
    work="$FUZZ/.build/corpus/$target"          # grows during runs; the committed seeds stay small
    artifacts="$FUZZ/artifacts/$target"
    mkdir -p "$work" "$artifacts"
    echo "== $target for ${SECONDS_PER_TARGET}s"
    log="$artifacts/fuzz.log"            # libFuzzer prints a line per new input: keep it out of the CI log
    if "$BIN/$target" "$work" "$FUZZ/Corpus/$target" \
        -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^Done|stat::number_of_executed_units|stat::peak_rss_mb" "$log" || tail -3 "$log"
    else
        tail -60 "$log" >&2
        echo "!! $target found a crash; reproducer in $artifacts" >&2
        status=1
    fi
done
exit $status
