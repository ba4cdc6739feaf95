#!/usr/bin/env bash
# Stops what Deploy/citus/up.sh DIR started: the ledger, then every PostgreSQL node (the data stays in DIR).
set -uo pipefail
dir=${1:?usage: Deploy/citus/down.sh DIR}
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"
if [ -f "$dir/ledger.pid" ]; then
    pid=$(cat "$dir/ledger.pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null
    rm -f "$dir/ledger.pid"
fi
for node in worker3 worker2 worker1 coordinator; do
    [ -f "$dir/$node/postmaster.pid" ] && as_pg /usr/lib/postgresql/15/bin/pg_ctl -D "$dir/$node" -m fast -w stop >/dev/null 2>&1
done
exit 0
