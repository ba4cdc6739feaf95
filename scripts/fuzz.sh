#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each for SECONDS (default 60). Exits non-zero on any crash.
# Usage: scripts/fuzz.sh [SECONDS]              short run (CI); the grown corpus stays in Fuzz/.build/corpus
#        scripts/fuzz.sh --keep [SECONDS]       longer run (default 600 s per target), then merges (-merge=1) the
#                                               inputs that reach new coverage into Fuzz/Corpus/<target>: commit them
#        FUZZ_TARGETS="FuzzJWS" scripts/fuzz.sh  only these targets
# See Fuzz/README.md.
set -euo pipefail
KEEP=0
if [[ "${1:-}" == "--keep" ]]; then KEEP=1; shift; fi
SECONDS_PER_TARGET="${1:-$([[ $KEEP == 1 ]] && echo 600 || echo 60)}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ="$ROOT/Fuzz"
read -r -a TARGETS <<< "${FUZZ_TARGETS:-FuzzReceipt FuzzJWS FuzzIngest}"
MAX_LEN=65536

cd "$FUZZ"
FLAGS=(-c debug --scratch-path "$FUZZ/.build" -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
swift build "${FLAGS[@]}"
BIN="$(swift build "${FLAGS[@]}" --show-bin-path)"

status=0
for target in "${TARGETS[@]}"; do
    work="$FUZZ/.build/corpus/$target"          # grows during runs; the committed seeds stay small
    artifacts="$FUZZ/artifacts/$target"
    kept="$FUZZ/Corpus/$target"
    mkdir -p "$work" "$artifacts" "$kept"
    echo "== $target for ${SECONDS_PER_TARGET}s"
    log="$artifacts/fuzz.log"            # libFuzzer prints a line per new input: keep it out of the CI log
    if "$BIN/$target" "$work" "$kept" \
        -max_total_time="$SECONDS_PER_TARGET" -max_len=$MAX_LEN -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1; then
        grep -E "^Done|stat::number_of_executed_units|stat::peak_rss_mb" "$log" || tail -3 "$log"
    else
        tail -60 "$log" >&2
        echo "!! $target found a crash; reproducer in $artifacts" >&2
        status=1
        continue
    fi
    if [[ $KEEP == 1 ]]; then
        # Adds to the committed corpus only the inputs that reach coverage it does not have yet (libFuzzer picks the
        # smallest such input), so Fuzz/Corpus stays minimal; the hand-written seeds are never removed.
        before=$(find "$kept" -type f | wc -l)
        "$BIN/$target" -merge=1 -max_len=$MAX_LEN "$kept" "$work" >"$artifacts/merge.log" 2>&1
        echo "   kept $(( $(find "$kept" -type f | wc -l) - before )) new input(s) in Fuzz/Corpus/$target (now $(find "$kept" -type f | wc -l) files, $(cat "$kept"/* | wc -c) bytes)"
    fi
done
exit $status
