#!/usr/bin/env bash
# Stops what Deploy/cluster/up.sh DIR started: HAProxy, the ledger instances, the PostgreSQL nodes and the monitor.
set -uo pipefail
dir=${1:?usage: Deploy/cluster/down.sh DIR}
[ -f "$dir/haproxy.pid" ] && kill "$(cat "$dir/haproxy.pid")" 2>/dev/null
[ -f "$dir/ledger.pids" ] && for pid in $(cat "$dir/ledger.pids"); do kill "$pid" 2>/dev/null; done
for node in node1 node2 monitor; do
    [ -f "$dir/$node.sid" ] && pkill -TERM -s "$(cat "$dir/$node.sid")" 2>/dev/null
done
sleep 2
for node in node1 node2 monitor; do
    [ -f "$dir/$node.sid" ] && pkill -KILL -s "$(cat "$dir/$node.sid")" 2>/dev/null
done
[ -f "$dir/ledger.pids" ] && for pid in $(cat "$dir/ledger.pids"); do kill -9 "$pid" 2>/dev/null; done
exit 0
