#!/usr/bin/env bash
# Where a single-event append's time goes, PostgreSQL side: pgbench (4 clients) runs, on one fresh cluster with
# the service's durable settings, (1) the benchmark's reference INSERT, (2) the ledger's append statement
# (ledger.append_events: idempotency check, stream head, insert through the hash-chain trigger), (3) the same
# followed by the NOTIFY the ledger sends after each append, and (4) the NOTIFY alone. Usage:
#   Benchmarks/scripts/append-anatomy.sh [seconds per run, default 15]
# Needs the release build of Benchmarks (its `ledger` command applies the schema) and PostgreSQL 15 with pgbench.
set -euo pipefail
seconds="${1:-15}"
here="$(cd "$(dirname "$0")/.." && pwd)"
ledger="$here/.build/release/LedgerBenchmarks"
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
dir="$(mktemp -d /tmp/append-anatomy.XXXXXX)"
port=$((20000 + RANDOM % 20000))
as_owner=()
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; as_owner=(runuser -u postgres --); fi
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U ledger --auth=trust >/dev/null
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all" -l "$dir/log" -w start >/dev/null
trap '"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null; rm -rf "$dir"' EXIT
url="host=127.0.0.1 port=$port user=ledger dbname=postgres"
"$ledger" ledger migrate --database-url "$url" >/dev/null 2>&1
psql() { "$bin/psql" -X -q -v ON_ERROR_STOP=1 "$url" "$@"; }
# BEFORE=009: the append as it was before that migration (its functions from 006 and 001), for comparison.
if [ "${BEFORE:-}" = 009 ] || [ "${BEFORE:-}" = chain ]; then
    [ "$BEFORE" = 009 ] && sed -n '/^CREATE FUNCTION ledger.append_events/,/^\$\$;/p' "$here/../schema/006_append_function.sql" | sed 's/^CREATE FUNCTION/CREATE OR REPLACE FUNCTION/' | psql
    sed -n '/^CREATE FUNCTION ledger.chain_event/,/^\$\$;/p' "$here/../schema/001_event_log.sql" | sed 's/^CREATE FUNCTION/CREATE OR REPLACE FUNCTION/' | psql
fi
psql -c "CREATE EXTENSION pg_stat_statements"
psql -c "CREATE SCHEMA raw; CREATE TABLE raw.events (LIKE ledger.events INCLUDING ALL); CREATE SEQUENCE raw.n;
         CREATE TABLE raw.payload AS SELECT '{\"transaction\": {\"productID\": \"monthly\", \"transactionID\": \"2000000123\", \"originalTransactionID\": \"2000000123\", \"purchaseDate\": 1775779200000000}, \"isResubscribe\": false}'::text AS payload"
cat > "$dir/insert.sql" <<'SQL'
INSERT INTO raw.events (app_id, stream_id, stream_version, event_type, schema_version, payload, metadata, idempotency_key, occurred_at, previous_hash, hash) SELECT 'bench', 's' || (n % 10000), n, 'subscription.started', 1, p.payload::jsonb, '{"source": "bench"}'::jsonb, 'k' || n, now(), '\x00'::bytea, sha256(convert_to(p.payload || n, 'UTF8')) FROM raw.payload AS p, (SELECT nextval('raw.n') AS n) AS s;
SQL
cat > "$dir/append.sql" <<'SQL'
SELECT * FROM raw.payload AS p, (SELECT nextval('raw.n') AS n) AS s, ledger.append_events('bench', 's' || (n % 10000), NULL, ARRAY['subscription.started'], ARRAY[1::bigint], ARRAY[p.payload], ARRAY['{"source": "bench"}'], ARRAY['k' || n], ARRAY[1775779200000000::bigint]);
SQL
{ cat "$dir/append.sql"; echo "SELECT set_config('synchronous_commit', 'off', true), pg_notify('ledger_events', 'bench');"; } > "$dir/append-notify.sql"
echo "SELECT set_config('synchronous_commit', 'off', true), pg_notify('ledger_events', 'bench');" > "$dir/notify.sql"
cat > "$dir/batch.sql" <<'SQL'
SELECT count(*) FROM raw.payload AS p, (SELECT nextval('raw.n') AS n) AS s, ledger.append_events('bench', 'b' || n, NULL, array_fill('subscription.started'::text, ARRAY[500]), array_fill(1::bigint, ARRAY[500]), array_fill(p.payload, ARRAY[500]), array_fill('{}'::text, ARRAY[500]), ARRAY(SELECT 'b' || n || '-' || i FROM generate_series(1, 500) AS i), array_fill(1775779200000000::bigint, ARRAY[500]));
SQL
for run in ${RUNS:-insert append append-notify notify}; do
    psql -c "SELECT pg_stat_statements_reset()" >/dev/null
    clients=4; [ "$run" = batch ] && clients=1
    tps=$("$bin/pgbench" -n -M prepared -c "$clients" -j "$clients" -T "$seconds" -f "$dir/$run.sql" "$url" 2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    echo "$run: $tps transactions/s"
    psql -At -c "SELECT 'ledger.events: ' || n_live_tup || ' rows, sequential scans ' || seq_scan || ' (rows read ' || seq_tup_read || '), index scans ' || idx_scan || ', analyzed ' || coalesce(to_char(last_autoanalyze, 'HH24:MI:SS'), 'never') FROM pg_stat_user_tables WHERE relid = 'ledger.events'::regclass"
    [ -n "${STATEMENTS:-}" ] && psql -At -F ' | ' -c "SELECT round(total_exec_time::numeric / calls, 3) || ' ms', calls, left(regexp_replace(query, '\s+', ' ', 'g'), 110) FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 6"
done
