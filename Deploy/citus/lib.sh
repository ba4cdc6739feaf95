# Shared by up.sh and add-worker.sh: the helpers that start a Citus node and talk to it. Expects $dir (the cluster's
# folder) and $pgbin.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# One node: its own data folder, port and socket folder; Citus preloaded. fsync stays on (a rehearsal of a real
# deployment); synchronous_commit off would lose acknowledged writes on a crash, so it is not used either.
start_node() { # name port
    local data="$dir/$1"
    if [ ! -f "$data/PG_VERSION" ]; then
        as_pg "$pgbin/initdb" -D "$data" -U postgres --auth=trust --no-sync >"$dir/initdb-$1.log" 2>&1
        cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $2
unix_socket_directories = '$dir'
shared_preload_libraries = 'citus'
max_connections = 1000
max_prepared_transactions = 300
wal_level = logical
# Citus runs a maintenance worker per database with the extension: room for the test run's databases
# (LEDGER_TEST_CITUS, Deploy/SCALE-OUT.md) beside the ledger's own.
max_worker_processes = 512
# Many small multi-shard reads (the projections', the webhook fan-out's): one connection per worker each, kept open,
# rather than a pool opened per statement (70 ms for the first read of a session; 2 ms after). 16 shards leave room
# for 16 workers; every multi-shard read runs a task per shard.
citus.max_adaptive_executor_pool_size = 1
citus.shard_count = 16
# ledger.events' triggers (its hash chain and immutability) run on the shards.
citus.enable_unsafe_triggers = on
# An upsert into a reference table locks it on every node with a check that the role may UPDATE it; the service's
# role (ledger_service) may only INSERT into some of them, on purpose.
citus.skip_advisory_lock_permission_checks = on
CONF
    fi
    as_pg "$pgbin/pg_ctl" -D "$data" status >/dev/null 2>&1 || as_pg "$pgbin/pg_ctl" -D "$data" -l "$dir/$1.log" -w -t 60 start >/dev/null
}
sql() { # port, then psql arguments
    local port=$1; shift
    psql -X -q -v ON_ERROR_STOP=1 -At "postgres://postgres@127.0.0.1:$port/${SQL_DATABASE:-ledger}" "$@"
}

