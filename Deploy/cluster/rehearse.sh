#!/usr/bin/env bash
# Rehearses losing a ledger instance and then the primary PostgreSQL on the topology of up.sh, under a retrying load
# of signed notifications and receipt uploads through HAProxy (ClusterRehearsalTests). Ends with the figures:
# requests, kills, 503 answers and how long they lasted; fails unless every acknowledged write is in the log exactly
# once, `ledger replay --check` and `ledger verify` are clean, and no answer was a 5xx other than 503.
#
#   Deploy/cluster/rehearse.sh [USERS]     default 300 users (CI: 60)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
users=${1:-300}
missing=()
command -v pg_autoctl >/dev/null 2>&1 || missing+=(postgresql-15-auto-failover)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
    echo "rehearse: installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
swift build --build-tests
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
LEDGER_CLUSTER_REHEARSAL="$users" swift test --skip-build --filter ClusterRehearsalTests 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
grep -q "passed after" "$log" || status=1  # the test ran (it is skipped without LEDGER_CLUSTER_REHEARSAL)
echo "rehearse: $(grep -E '^reliability\[cluster\]' "$log" | tail -1) (exit $status)"
exit "$status"
