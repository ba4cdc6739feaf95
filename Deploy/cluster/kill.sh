#!/usr/bin/env bash
# Simulates a machine's death in the topology of Deploy/cluster/up.sh DIR: SIGKILL to everything of it.
#   kill.sh DIR primary      the PostgreSQL node that is primary now (its pg_autoctl and postgres processes)
#   kill.sh DIR ledger N     ledger instance N (1-based)
set -euo pipefail
dir=${1:?usage: kill.sh DIR primary | ledger N}
case "${2:-}" in
primary)
    source "$dir/topology.env"
    n=1
    for port in $CLUSTER_NODE_PORTS; do
        if [ "$(psql -qAt "postgres://postgres@127.0.0.1:$port/ledger?connect_timeout=2" -c "SELECT NOT pg_is_in_recovery()" 2>/dev/null)" = t ]; then
            pkill -KILL -s "$(cat "$dir/node$n.sid")"
            echo "node$n"
            exit 0
        fi
        n=$((n + 1))
    done
    echo "kill: no node is primary" >&2; exit 1 ;;
ledger)
    pids=($(cat "$dir/ledger.pids"))
    kill -9 "${pids[$((${3:?instance number} - 1))]}"
    echo "ledger $3" ;;
*) echo "usage: kill.sh DIR primary | ledger N" >&2; exit 2 ;;
esac
