#!/usr/bin/env bash
# The benchmark suite in one command (Benchmarks/README.md): installs wrk, curl and PostgreSQL when missing,
# builds in release, runs every figure against its raw-PostgreSQL reference on one embedded cluster, writes
# results/<time>.json and results/latest.md, and puts the table into README.md.
# Usage: Benchmarks/run.sh [--quick] [LedgerBenchmarks options, see --help]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v curl >/dev/null 2>&1 || missing+=(curl)
[ -x /usr/bin/time ] || missing+=(time)
[ -f /usr/include/postgresql/libpq-fe.h ] || missing+=(libpq-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkgconf)
ls /usr/lib/postgresql/*/bin/pgbench >/dev/null 2>&1 || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# --citus-only: the ledger on Citus beside a single PostgreSQL, both in the same run (Deploy/citus/rehearse.sh: 50 apps'
# notifications through `ledger serve`, a third worker joining mid-load, then status reads of every user); its two
# figure lines go to results/<time>-citus.md with the single node as the reference. USERS_PER_APP: CITUS_USERS (8).
if [[ " $* " == *" --citus-only "* ]]; then
    out="$HERE/results/$(date -u +%Y-%m-%dT%H-%M-%SZ)-citus.md"
    log=$(mktemp)
    "$HERE/../Deploy/citus/rehearse.sh" "${CITUS_USERS:-8}" | tee "$log"
    python3 - "$log" "$out" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
runs = {}
for line in lines:
    m = re.search(r"reliability\[citus-rehearsal-(single|citus)\] (.*)", line)
    if m: runs[m.group(1)] = dict(kv.split("=") for kv in m.group(2).split())
single, citus = runs["single"], runs["citus"]
rows = [("notification ingest (50 apps, 8 at a time)", "notifications_per_s", "notifications/s"),
        ("events appended by it", "events_per_s", "events/s"),
        ("status reads (GET /v1/users/{id}, 8 at a time)", "status_reads_per_s", "reads/s")]
text = "| figure | Citus | single PostgreSQL (same run) | ratio |\n|---|---|---|---|\n"
for name, key, unit in rows:
    ratio = int(citus[key]) / max(1, int(single[key]))
    text += f"| {name} | {citus[key]} {unit} | {single[key]} {unit} | {ratio:.0%} |\n"
text += (f"\n{citus['notifications']} notifications, {citus['requests']} requests on Citus "
         f"({citus['answers_503']} answered 503), slowest answer {citus['slowest_ms']} ms (single: {single['slowest_ms']} ms); "
         f"worker added while loaded: {'yes' if citus['worker_added_while_loaded'] == '1' else 'no'}\n")
open(sys.argv[2], "w").write(text)
print(text)
PY
    exit 0
fi

cd "$HERE"
# SwiftPM keeps this package's view of the service's source files in description.json and does not notice files
# added to the service since the last build ("cannot find … in scope"); dropping it costs a few seconds.
rm -f "$HERE/.build/release/description.json"
swift build -c release --product LedgerBenchmarks
"$HERE/.build/release/LedgerBenchmarks" "$@"

# The README shows the latest full run's table, between its markers (--quick and the --…-only runs are partial).
case " $* " in *" --quick "* | *" --live-only "* | *" --console-only "* | *" --append-only "* | *" --reads-only "* | *" --ingest-only "* | *" --tracing-only "* | *" --replay-only "* | *" --growth "*) exit 0 ;; esac
python3 - "$HERE/README.md" "$HERE/results/latest.md" <<'PY'
import sys
readme, latest = sys.argv[1], open(sys.argv[2]).read()
text = open(readme).read()
start, end = "<!-- latest-results -->", "<!-- /latest-results -->"
if start in text and end in text:
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1]
    open(readme, "w").write(head + start + "\n" + latest + end + tail)
PY
