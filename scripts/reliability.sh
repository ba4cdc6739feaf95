#!/usr/bin/env bash
# The full reliability and security suite (README, "Guarantees"): the reliability tests at their long figures
# (LEDGER_RELIABILITY=full: 60 SIGKILLs, a 10 s database outage, thousands of retried deliveries, every hostile and
# wrong-credential variant), then each parser fuzzer for SECONDS (default 600). `swift test` (and CI) runs the same
# tests at shortened figures, and CI fuzzes for 60 s. Each test prints "reliability[...] figures" lines.
# Usage: scripts/reliability.sh [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The whole output on stderr, the figures and the verdict on stdout. The suite's own exit status decides (not
# grep's, which fails when no line matches): a failed suite ends the script with that status, before any fuzzing.
set +e
LEDGER_RELIABILITY=full swift test --filter ReliabilityTests 2>&1 | tee /dev/stderr | grep -E "^reliability\[|Test run with"
suite=${PIPESTATUS[0]}
set -e
if (( suite != 0 )); then
    echo "reliability: the test suite failed (swift test exited $suite); not fuzzing" >&2
    exit "$suite"
fi
scripts/fuzz.sh "${1:-600}"
