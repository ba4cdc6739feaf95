#!/usr/bin/env bash
# The full reliability and security suite (README, "Guarantees"): the reliability tests at their long figures
# (LEDGER_RELIABILITY=full: 60 SIGKILLs, a 10 s database outage, thousands of retried deliveries, every hostile and
# wrong-credential variant), then each parser fuzzer for SECONDS (default 600). `swift test` (and CI) runs the same
# tests at shortened figures, and CI fuzzes for 60 s. Each test prints "reliability[...] figures" lines.
# Usage: scripts/reliability.sh [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
LEDGER_RELIABILITY=full swift test --filter ReliabilityTests 2>&1 | tee /dev/stderr | grep -E "^reliability\[|Test run with" || true
scripts/fuzz.sh "${1:-600}"
