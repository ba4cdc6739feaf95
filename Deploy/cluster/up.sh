#!/usr/bin/env bash
# Starts the scale-out topology on loopback (Deploy/SCALE-OUT.md): a pg_auto_failover monitor, a PostgreSQL primary
# and a synchronous streaming replica, three `ledger serve` instances on a libpq multi-host URL, and HAProxy in front.
#
#   Deploy/cluster/up.sh DIR        starts everything, writes DIR/topology.env, prints the URL to use
#   Deploy/cluster/down.sh DIR      stops everything it started
#
# Settings (environment): LEDGER_BIN (default: this checkout's .build/debug/ledger, else `ledger` on PATH),
# CLUSTER_BASE_PORT (default 17000: monitor +0, nodes +1 +2, HAProxy +10, ledgers +11…), LEDGER_INSTANCES (3),
# LEDGER_ADMIN_TOKEN (default: generated), and anything `ledger serve` reads (LEDGER_APPLE_ROOTS, …).
# Needs Debian's postgresql-15-auto-failover and haproxy; runs PostgreSQL as the `postgres` user when started as root.
set -euo pipefail

dir=${1:?usage: Deploy/cluster/up.sh DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
base=${CLUSTER_BASE_PORT:-17000}
instances=${LEDGER_INSTANCES:-3}
bin=${LEDGER_BIN:-}
if [ -z "$bin" ]; then
    if [ -x "$repo/.build/debug/ledger" ]; then bin="$repo/.build/debug/ledger"; else bin=$(command -v ledger || true); fi
fi
[ -x "$bin" ] || { echo "up: no ledger binary (build it with swift build, or set LEDGER_BIN)" >&2; exit 2; }
for tool in pg_autoctl haproxy psql; do
    command -v "$tool" >/dev/null || { echo "up: $tool is missing: apt-get install -y postgresql-15-auto-failover haproxy postgresql-client" >&2; exit 2; }
done
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
export PATH="$pgbin:$PATH"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# pg_autoctl keeps its configuration and state beside the data (not in the user's home), so a folder used again
# starts clean and two topologies never mix.
export XDG_CONFIG_HOME="$dir/.config" XDG_DATA_HOME="$dir/.local"
as_pg() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- env PATH="$PATH" XDG_CONFIG_HOME="$XDG_CONFIG_HOME" XDG_DATA_HOME="$XDG_DATA_HOME" "$@"
    else "$@"; fi
}
[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"

# On failure, stop whatever started.
started=0
trap '[ "$started" = 1 ] || "$here/down.sh" "$dir" >/dev/null 2>&1' EXIT

# One PostgreSQL "machine": pg_autoctl in a session of its own, so that killing the session kills the node whole.
start_node() { # name
    as_pg setsid pg_autoctl run --pgdata "$dir/$1" >"$dir/$1.log" 2>&1 &
    local pid=""
    for _ in $(seq 1 100); do pid=$(pgrep -f "^pg_autoctl run --pgdata $dir/$1\$" | head -1 || true); [ -n "$pid" ] && break; sleep 0.1; done
    [ -n "$pid" ] || { echo "up: $1 did not start (see $dir/$1.log)" >&2; exit 1; }
    local sid
    sid=$(ps -o sid= -p "$pid" | tr -d ' ')
    # Never this script's own session: down.sh and kill.sh kill the whole session.
    [ "$sid" != "$(ps -o sid= -p $$ | tr -d ' ')" ] || { echo "up: $1 did not get a session of its own" >&2; exit 1; }
    echo "$sid" >"$dir/$1.sid"
}
node_is() { # name, states: reported and assigned state both one of them (no grep -q: with pipefail it fails the pipe)
    state | grep -E "^ *$1 .*\| *($2) *\| *($2) *\$" >/dev/null
}
state() { as_pg pg_autoctl show state --pgdata "$dir/monitor" 2>/dev/null || true; }
wait_for() { # what, command...
    local what=$1; shift
    for _ in $(seq 1 300); do if "$@" >/dev/null 2>&1; then return 0; fi; sleep 0.2; done
    echo "up: timed out waiting for $what" >&2; state >&2; exit 1
}

monitor_url="postgres://autoctl_node@127.0.0.1:$base/pg_auto_failover?sslmode=disable"
as_pg pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$base" --hostname 127.0.0.1 --auth trust --no-ssl >"$dir/create-monitor.log" 2>&1
start_node monitor
wait_for "the monitor" psql -qAt "postgres://postgres@127.0.0.1:$base/pg_auto_failover" -c "SELECT 1"
# Failover within seconds of a node's death (defaults: 20 s to notice, 30 s more before promoting). The old primary
# cannot acknowledge a write meanwhile: its commits wait for the synchronous standby that is being promoted.
psql -qAt "postgres://postgres@127.0.0.1:$base/pg_auto_failover" \
    -c "ALTER SYSTEM SET pgautofailover.health_check_period = 1000" -c "ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000" \
    -c "ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1" -c "ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500" \
    -c "ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 3000" \
    -c "ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 5000" -c "SELECT pg_reload_conf()" >/dev/null

for n in 1 2; do
    as_pg pg_autoctl create postgres --pgdata "$dir/node$n" --pgport $((base + n)) --hostname 127.0.0.1 --name "node$n" \
        --monitor "$monitor_url" --auth trust --no-ssl --dbname ledger >"$dir/create-node$n.log" 2>&1
    start_node "node$n"
    # The first node is "single" until the second joins; then primary and secondary.
    [ "$n" = 1 ] && expected="single|primary" || expected="secondary"
    wait_for "node$n" node_is "node$n" "$expected"
done
wait_for "node1 as primary" node_is node1 primary

database_url="postgres://postgres@127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))/ledger?target_session_attrs=read-write&connect_timeout=2"
token=${LEDGER_ADMIN_TOKEN:-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}
key="$dir/digest-signing-key"
[ -f "$key" ] || { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$key"; chmod 600 "$key"; }
ledger_pids=()
servers=""
for i in $(seq 1 "$instances"); do
    port=$((base + 10 + i))
    DATABASE_URL="$database_url" LEDGER_ADMIN_TOKEN="$token" LEDGER_JOB_RETRY_SECONDS="${LEDGER_JOB_RETRY_SECONDS:-2}" \
        setsid "$bin" serve --host 127.0.0.1 --port "$port" --signing-key "$key" >"$dir/ledger-$i.log" 2>&1 &
    ledger_pids+=("$!")
    servers+="    server ledger$i 127.0.0.1:$port check"$'\n'
done
echo "${ledger_pids[*]}" >"$dir/ledger.pids"
for i in $(seq 1 "$instances"); do
    if ! (wait_for "ledger $i" curl -fsS "http://127.0.0.1:$((base + 10 + i))/ready"); then
        echo "up: the end of $dir/ledger-$i.log:" >&2; tail -c 2000 "$dir/ledger-$i.log" >&2; exit 1
    fi
done

# HAProxy: routes to instances whose /ready answers 200; a request that found no connection (an instance killed
# between checks) goes to another, with its whole body: HAProxy reads the body before it picks an instance
# (http-buffer-request). Without that, a request redispatched from a killed instance could reach the next one
# without the rest of its body, and waited there for the request timeout. Writes are idempotent, so a retry is safe. When no instance is
# ready (the database switching), HAProxy's own 503 says so in the ledger's JSON error shape, with Retry-After.
# Its request log (one line per request: status, which instance, timings) is DIR/haproxy.log.
printf 'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n%s\n' \
    '{"error":{"code":"service_unavailable","message":"no ledger instance is ready (the database may be switching to its replica); retry the request (recording is idempotent)"}}' \
    >"$dir/haproxy-503.http"
cat >"$dir/haproxy.cfg" <<CFG
global
defaults
    mode http
    log stdout format raw local0
    option httplog
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout check 2s
    retries 3
    option redispatch
    option http-buffer-request
    retry-on conn-failure empty-response
    errorfile 503 $dir/haproxy-503.http
frontend ledger
    bind 127.0.0.1:$((base + 10))
    default_backend ledgers
backend ledgers
    balance roundrobin
    option httpchk GET /ready
    http-check expect status 200
    default-server inter 500ms fall 2 rise 1
$servers
CFG
setsid haproxy -f "$dir/haproxy.cfg" -db >"$dir/haproxy.log" 2>&1 &
echo "$!" >"$dir/haproxy.pid"
wait_for "HAProxy" curl -fsS "http://127.0.0.1:$((base + 10))/ready"

cat >"$dir/topology.env" <<ENV
CLUSTER_URL=http://127.0.0.1:$((base + 10))
CLUSTER_DATABASE_URL=$database_url
CLUSTER_MONITOR_PORT=$base
CLUSTER_NODE_PORTS="$((base + 1)) $((base + 2))"
CLUSTER_LEDGER_PIDS="${ledger_pids[*]}"
CLUSTER_ADMIN_TOKEN=$token
CLUSTER_SIGNING_KEY=$key
ENV
started=1
echo "up: the ledger answers at http://127.0.0.1:$((base + 10)) (admin token in $dir/topology.env); stop with Deploy/cluster/down.sh $dir"
