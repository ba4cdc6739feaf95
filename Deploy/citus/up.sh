#!/usr/bin/env bash
# Starts the ledger on a Citus cluster on loopback (Deploy/SCALE-OUT.md, "Sharded on Citus"): a coordinator and two
# workers, the ledger's schema migrated and distributed by app_id, and `ledger serve` on the coordinator.
#
#   Deploy/citus/up.sh DIR        builds and installs Citus once (Deploy/citus/install-citus.sh), starts everything,
#                                 writes DIR/citus.env, prints the URL to use
#   Deploy/citus/down.sh DIR      stops everything it started
#
# Settings (environment): LEDGER_BIN (default: this checkout's .build/debug/ledger, else `ledger` on PATH),
# CITUS_BASE_PORT (default 18000: coordinator +0, workers +1 +2, a third worker +3 when added, the ledger +10),
# LEDGER_ADMIN_TOKEN (default: generated), and anything `ledger serve` reads (LEDGER_APPLE_ROOTS, …).
# Runs PostgreSQL as the `postgres` user when started as root.
set -euo pipefail

dir=${1:?usage: Deploy/citus/up.sh DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
base=${CITUS_BASE_PORT:-18000}
bin=${LEDGER_BIN:-}
if [ -z "$bin" ]; then
    if [ -x "$repo/.build/debug/ledger" ]; then bin="$repo/.build/debug/ledger"; else bin=$(command -v ledger || true); fi
fi
[ -x "$bin" ] || { echo "up: no ledger binary (build it with swift build, or set LEDGER_BIN)" >&2; exit 2; }
"$here/install-citus.sh"
pgbin=/usr/lib/postgresql/15/bin
command -v psql >/dev/null || { echo "up: psql is missing: apt-get install -y postgresql-client" >&2; exit 2; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
. "$here/lib.sh"

started=0
trap '[ "$started" = 1 ] || "$here/down.sh" "$dir" >/dev/null 2>&1' EXIT

nodes=(coordinator worker1 worker2)
for i in 0 1 2; do
    start_node "${nodes[$i]}" $((base + i))
    port=$((base + i))
    if [ "$(SQL_DATABASE=postgres sql "$port" -c "SELECT count(*) FROM pg_database WHERE datname = 'ledger'")" = 0 ]; then
        SQL_DATABASE=postgres sql "$port" -c "CREATE DATABASE ledger"
    fi
    sql "$port" -c "CREATE EXTENSION IF NOT EXISTS citus"
done
coordinator_url="postgres://postgres@127.0.0.1:$base/ledger"
if [ "$(sql "$base" -c "SELECT count(*) FROM pg_dist_node WHERE noderole = 'primary' AND groupid > 0")" = 0 ]; then
    sql "$base" -c "SELECT citus_set_coordinator_host('127.0.0.1', $base)" \
        -c "SELECT citus_add_node('127.0.0.1', $((base + 1)))" -c "SELECT citus_add_node('127.0.0.1', $((base + 2)))" >/dev/null
fi

DATABASE_URL="$coordinator_url" "$bin" migrate >"$dir/migrate.log" 2>&1 || { tail -20 "$dir/migrate.log" >&2; exit 1; }
# The service works as `ledger_service` (SET ROLE), and Citus opens its connections to the workers as the current
# role: that role must be able to log in on the workers (here: trust on loopback; in production, its credentials in
# pg_dist_authinfo or certificates, Deploy/SCALE-OUT.md). ALTER ROLE on the coordinator reaches every node.
sql "$base" -c "ALTER ROLE ledger_service LOGIN"
if [ "$(sql "$base" -c "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'ledger.events'::regclass")" = 0 ]; then
    sql "$base" -f "$here/distribute.sql" >"$dir/distribute.log" 2>&1 || { tail -20 "$dir/distribute.log" >&2; exit 1; }
fi

token=${LEDGER_ADMIN_TOKEN:-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}
key="$dir/digest-signing-key"
[ -f "$key" ] || { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$key"; chmod 600 "$key"; }
port=$((base + 10))
DATABASE_URL="$coordinator_url" LEDGER_ADMIN_TOKEN="$token" \
    setsid "$bin" serve --host 127.0.0.1 --port "$port" --signing-key "$key" >"$dir/ledger.log" 2>&1 &
echo "$!" >"$dir/ledger.pid"
for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS "http://127.0.0.1:$port/ready" >/dev/null || { echo "up: the ledger is not ready; the end of $dir/ledger.log:" >&2; tail -c 2000 "$dir/ledger.log" >&2; exit 1; }

cat >"$dir/citus.env" <<ENV
CITUS_URL=http://127.0.0.1:$port
CITUS_DATABASE_URL=$coordinator_url
CITUS_NODE_PORTS="$base $((base + 1)) $((base + 2))"
CITUS_ADMIN_TOKEN=$token
CITUS_SIGNING_KEY=$key
ENV
started=1
echo "up: the ledger answers at http://127.0.0.1:$port on Citus (coordinator :$base, workers :$((base + 1)) :$((base + 2)); admin token in $dir/citus.env); stop with Deploy/citus/down.sh $dir"
