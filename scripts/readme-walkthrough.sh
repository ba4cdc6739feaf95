#!/usr/bin/env bash
# Runs the README's walkthrough verbatim, as a new user would, and checks what it promises:
# - "Start here"'s first line (`swift run ledger serve` on an embedded PostgreSQL, in a data folder of its own);
# - then, in order and in one shell, every ```sh block that follows a `<!-- walkthrough -->` line; a block after
#   `<!-- walkthrough: background -->` runs beside the rest (a second terminal), its output kept apart;
# - then the answers: the seed's productsStatus, the live stream's change on $U, the webhook receiver's verified message.
# Called by .ci/run after the tests (the build is there already, so `swift run` must build nothing: README item on
# rebuilds). Exit 0 when every promise held; else prints the logs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
work=$(mktemp -d)
chmod 755 "$work"   # the embedded cluster runs as postgres when we are root
export LEDGER_DATA_DIR="$work/data"
# The walkthrough's webhook receiver listens on loopback, a private address (README says so beside the example).
export LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES=1
pids=()
cleanup() {
    local status=$?
    # SIGTERM to each process group: serve stops gracefully (and its embedded PostgreSQL with it).
    for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "readme-walkthrough: logs kept in $work" >&2; fi
}
trap cleanup EXIT

# The README's blocks, extracted: the serve line, then the marked blocks as files.
python3 - "$work" <<'PY'
import re, sys
work = sys.argv[1]
text = open("README.md").read()
start = re.search(r"## Start here\n+```sh\n(.*?)\n", text)
serve = start.group(1).split("#")[0].strip()
open(f"{work}/serve.sh", "w").write(serve + "\n")
blocks = re.findall(r"<!-- walkthrough(: background)? -->\n```sh\n(.*?)```", text, re.S)
if len(blocks) < 3:
    sys.exit(f"readme-walkthrough: expected at least 3 marked blocks, found {len(blocks)}")
for index, (background, body) in enumerate(blocks):
    kind = "background" if background else "foreground"
    open(f"{work}/block-{index:02d}-{kind}.sh", "w").write(body)
PY

fail() {
    echo "readme-walkthrough: $1" >&2
    for log in "$work"/*.log; do echo "--- $(basename "$log")" >&2; tail -40 "$log" >&2; done
    exit 1
}

echo "readme-walkthrough: $(cat "$work/serve.sh")"
started=$(date +%s)
setsid bash "$work/serve.sh" >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 600); do
    curl -sf http://127.0.0.1:8080/ready >/dev/null 2>&1 && break
    kill -0 "${pids[0]}" 2>/dev/null || fail "serve exited"
    sleep 0.5
done
curl -sf http://127.0.0.1:8080/ready >/dev/null || fail "serve not ready"
echo "readme-walkthrough: ready after $(( $(date +%s) - started )) s"
# Any module recompiled with no source change fails the walkthrough (the README promises a run builds nothing then).
recompiled=$(sed -n 's/^\[[0-9]*\/[0-9]*\] Compiling \([^ ]*\) .*/\1/p' "$work/serve.log" | sort -u)
[ -z "$recompiled" ] || fail "swift run rebuilt with no source change: $(echo $recompiled)"

# One shell for the foreground blocks (their variables carry over); background blocks start from that shell's state.
script="$work/walkthrough.sh"
echo 'set -euo pipefail' >"$script"
for block in "$work"/block-*.sh; do
    name=$(basename "$block" .sh)
    if [[ "$name" == *background ]]; then
        echo "(set +e; . '$block') >'$work/$name.log' 2>&1 &" >>"$script"
        echo "echo \$! >>'$work/background.pids'; sleep 1" >>"$script"
    else
        echo ". '$block'" >>"$script"
    fi
done
# The block's own `&` jobs (the receiver) belong to the walkthrough's process group, stopped at the end. Its
# temporary files (the README's cookie jar, `mktemp`) go into the work folder, removed with it.
setsid env TMPDIR="$work" bash "$script" >"$work/walkthrough.log" 2>&1 &
walkthrough=$!
pids+=($walkthrough)
wait "$walkthrough" || fail "a walkthrough block failed"

expect() {  # expect FILE PATTERN WHAT: waits up to 60 s for PATTERN in FILE
    for _ in $(seq 1 120); do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.5; done
    fail "$3 (no '$2' in $(basename "$1"))"
}
expect "$work/walkthrough.log" '"id":"monthly","subscription_group":"main","type":"auto_renewable"' "the product PUT"
expect "$work/walkthrough.log" '{"already_known":0,"recorded":1,"user_id":"anon-' "uploadReceipt"
expect "$work/walkthrough.log" '{"_embedded":{"products":\[{"id":"monthly","status":"active"}\]}}' "productsStatus"
expect "$work/walkthrough.log" '"known":true' "GET /v1/users/\$U"
expect "$work/walkthrough.log" '"recorded":3' "the ONE_TIME_CHARGE notification"
live=$(ls "$work"/block-*-background.log | head -1)
expect "$live" 'event: snapshot' "the live stream's snapshot"
expect "$live" 'event: change' "the live stream's change on \$U"
expect "$work/walkthrough.log" 'verified subscription' "the webhook receiver's verified message"
echo "readme-walkthrough: every example answered as the README says"
