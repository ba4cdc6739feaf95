#!/usr/bin/env bash
# Rehearses the ledger on Citus (Deploy/SCALE-OUT.md, "Proven on Citus"): brings up.sh's cluster up (Citus built once
# from the vendored source), runs the API and store scenarios on it (each test's database distributed on the cluster:
# LEDGER_TEST_CITUS), then CitusRehearsalTests: signed notifications for LEDGER_CITUS_APPS apps (default 50) through
# `ledger serve`, once on a single PostgreSQL and once on Citus while a third worker joins and the shards rebalance.
# Fails unless every acknowledged write is in the log once, `ledger verify` and `ledger replay --check` are clean,
# no answer was a 5xx but 503 with Retry-After, each app's shards are on one worker, and the invoices equal the single
# node's. Prints the figures of both runs (requests, appends/s, status reads/s).
#
#   Deploy/citus/rehearse.sh [USERS_PER_APP]     default 8 (CI: 4); the cluster in CITUS_REHEARSAL_DIR (default: a
#                                                temporary folder), stopped at the end; a temporary folder (about
#                                                3 GB) is removed when the rehearsal passes, kept for its logs when
#                                                it fails
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
users=${1:-8}
# Shards move with writes to each blocked for its copy (seconds here), so the moves end within the load; with
# CITUS_SHARD_TRANSFER_MODE=auto they move by logical replication (about 75 s for ten), which outlasts a load under
# 16 users per app (Deploy/SCALE-OUT.md, "Growing").
export CITUS_SHARD_TRANSFER_MODE=${CITUS_SHARD_TRANSFER_MODE:-block_writes}
dir=${CITUS_REHEARSAL_DIR:-}
temporary=0
[ -n "$dir" ] || { dir=$(mktemp -d); temporary=1; }
log=$(mktemp)
status=1
finish() {
    Deploy/citus/down.sh "$dir" >/dev/null 2>&1
    rm -f "$log"
    if [ "$temporary" = 1 ]; then
        if [ "$status" = 0 ]; then rm -rf "$dir"; else echo "rehearse: the cluster's logs are kept in $dir" >&2; fi
    fi
}
trap finish EXIT
swift build --build-tests
Deploy/citus/up.sh "$dir"
# The API scenario suite whole (LedgerServerTests: every route, the console, webhooks, erasure, invoices, live
# streams), and the store's scenarios: appends, group commit, projections and their rebuild, the chain and digests.
scenarios="LedgerServerTests|LedgerStoreTests\.(EventStoreAppendTests|GroupCommitTests|ProjectionRuntimeTests|ProjectionCheckpointVisibilityTests|ChainDigestTests|ImmutabilityAndTamperTests)"
set +e
# The scenarios, then the rehearsal in a run of its own: its figures must not share the machine with other tests.
LEDGER_TEST_CITUS="$dir" swift test --skip-build --filter "$scenarios" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
LEDGER_TEST_CITUS="$dir" LEDGER_CITUS_REHEARSAL="$users" swift test --skip-build --filter CitusRehearsalTests 2>&1 | tee -a "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
set -e
grep -q "Test manyAppsLoseNothingAndStayWholeWhileAWorkerJoins() passed" "$log" || status=1
for run in single citus; do echo "rehearse: $(grep -E "^reliability\[citus-rehearsal-$run\]" "$log" | tail -1)"; done
echo "rehearse: exit $status"
exit "$status"
