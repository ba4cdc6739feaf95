#!/usr/bin/env bash
# Grows a cluster that Deploy/citus/up.sh DIR started: a third worker (port CITUS_BASE_PORT+3) joins, and the shards
# are rebalanced onto it while the ledger keeps serving (Deploy/SCALE-OUT.md, "Growing").
#
#   Deploy/citus/add-worker.sh DIR [DATABASE…]   default database: ledger
#
# Per database: the database and the extension on the new worker, citus_add_node on the coordinator, then
# citus_rebalance_start and citus_rebalance_wait. Shards move with Citus' logical replication, so writes to a moving
# shard go on and are blocked only for its final switch (CITUS_SHARD_TRANSFER_MODE, default auto).
set -euo pipefail
dir=${1:?usage: Deploy/citus/add-worker.sh DIR [DATABASE…]}
shift
databases=("${@:-ledger}")
[ ${#databases[@]} -gt 0 ] || databases=(ledger)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=$(cd "$dir" && pwd)
base=${CITUS_BASE_PORT:-18000}
pgbin=/usr/lib/postgresql/15/bin
mode=${CITUS_SHARD_TRANSFER_MODE:-auto}
. "$here/lib.sh"

port=$((base + 3))
start_node worker3 "$port"
for database in "${databases[@]}"; do
    if [ "$(SQL_DATABASE=postgres sql "$port" -c "SELECT count(*) FROM pg_database WHERE datname = '$database'")" = 0 ]; then
        SQL_DATABASE=postgres sql "$port" -c "CREATE DATABASE \"$database\""
    fi
    SQL_DATABASE=$database sql "$port" -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS citus"
    SQL_DATABASE=$database sql "$base" -c "SELECT citus_add_node('127.0.0.1', $port)" >/dev/null
    SQL_DATABASE=$database sql "$base" -c "SELECT citus_rebalance_start(shard_transfer_mode => '$mode')" >/dev/null
    SQL_DATABASE=$database sql "$base" -c "SELECT citus_rebalance_wait()" >/dev/null
    moved=$(SQL_DATABASE=$database sql "$base" -c "SELECT count(*) FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) WHERE n.nodeport = $port")
    echo "add-worker: $database: worker :$port holds $moved shard placements"
done
