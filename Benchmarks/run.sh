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

cd "$HERE"
# SwiftPM keeps this package's view of the service's source files in description.json and does not notice files
# added to the service since the last build ("cannot find … in scope"); dropping it costs a few seconds.
rm -f "$HERE/.build/release/description.json"
swift build -c release --product LedgerBenchmarks
"$HERE/.build/release/LedgerBenchmarks" "$@"

# The README shows the latest full run's table, between its markers (--quick and the --…-only runs are partial).
case " $* " in *" --quick "* | *" --live-only "* | *" --console-only "* | *" --append-only "* | *" --reads-only "* | *" --ingest-only "* | *" --tracing-only "* | *" --replay-only "*) exit 0 ;; esac
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
