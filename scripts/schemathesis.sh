#!/usr/bin/env bash
# Property-based API tests: runs Schemathesis against a running ledger, driven by the OpenAPI document it serves
# (GET $BASE_URL/openapi.json). Exits non-zero on any failed check. Installs Schemathesis into a venv on first use.
#
# Usage: scripts/schemathesis.sh BASE_URL [extra `st run` arguments…]
#   scripts/schemathesis.sh http://127.0.0.1:8080
#   LEDGER_ADMIN_TOKEN=… LEDGER_APP_ID=app_… LEDGER_APP_KEY=sk_… scripts/schemathesis.sh http://127.0.0.1:8080
#   scripts/schemathesis.sh http://127.0.0.1:8080 --include-tag users --phases examples,coverage,fuzzing
#     (a filter that leaves no OpenAPI link between the selected operations makes the stateful phase an error)
#
# Credentials (optional; without them only the unauthenticated paths and the 401 answers get exercised):
#   LEDGER_ADMIN_TOKEN   the service's admin token, for the `adminToken` scheme (/v1/admin/…)
#   LEDGER_APP_KEY       an app key, for `appKeyBearer` and `appKeyHeader`; a secret key (sk_…) reaches every endpoint
#   LEDGER_APP_ID        the app of LEDGER_APP_KEY: pins every {app_id} path parameter, so requests reach that app
#                        instead of answering 403 (key of another app) / 404
# Tuning:
#   SCHEMATHESIS_MAX_EXAMPLES        test cases per operation in the fuzzing and stateful phases (default 25)
#   SCHEMATHESIS_SEED                random seed (default 20260101): the same seed replays the same inputs
#   SCHEMATHESIS_WORKERS             1 or 2 concurrent workers (default 1)
#   SCHEMATHESIS_REQUEST_TIMEOUT     seconds per request (default 10)
#   SCHEMATHESIS_WAIT_FOR_SCHEMA     seconds to wait for /ready to answer 200 (default 30)
#   SCHEMATHESIS_REPORT_DIR          when set, JUnit XML and a HAR of every request are written there
#   SCHEMATHESIS_VENV                the venv to use (default .build/schemathesis-venv in this checkout)
set -euo pipefail

SCHEMATHESIS_VERSION="4.32.5"

if [ $# -lt 1 ] || [ -z "${1:-}" ] || [ "${1#-}" != "$1" ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}" >&2
    exit 2
fi
BASE_URL="${1%/}"
shift

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${SCHEMATHESIS_VENV:-$REPO/.build/schemathesis-venv}"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-25}"
SEED="${SCHEMATHESIS_SEED:-20260101}"
WORKERS="${SCHEMATHESIS_WORKERS:-1}"
REQUEST_TIMEOUT="${SCHEMATHESIS_REQUEST_TIMEOUT:-10}"
WAIT_FOR_SCHEMA="${SCHEMATHESIS_WAIT_FOR_SCHEMA:-30}"

case "$WORKERS" in 1|2) ;; *) echo "SCHEMATHESIS_WORKERS must be 1 or 2" >&2; exit 2 ;; esac

# --- Schemathesis, pinned, in its own venv -------------------------------------------------------------------
if ! "$VENV/bin/st" --version 2>/dev/null | grep -qx "st, version $SCHEMATHESIS_VERSION"; then
    echo "== installing schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
    if [ ! -x "$VENV/bin/python" ]; then
        mkdir -p "$(dirname "$VENV")"
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

# --- Wait until the service is ready: any 5xx fails the run, and /ready answers 503 while it migrates --------
"$VENV/bin/python" - "$BASE_URL/ready" "$WAIT_FOR_SCHEMA" <<'PY'
import sys, time, urllib.error, urllib.request
url, deadline = sys.argv[1], time.monotonic() + float(sys.argv[2])
reason = "no 200 answer"
while True:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            if answer.status == 200:
                break
    except (urllib.error.URLError, OSError) as error:
        reason = error
    if time.monotonic() > deadline:
        sys.exit(f"{url} did not answer 200 in time ({reason})")
    time.sleep(0.5)
PY

# --- Configuration that has no command-line flag --------------------------------------------------------------
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
CONFIG="$WORK/schemathesis.toml"
# Hypothesis' caches go to the scratch folder instead of ./.hypothesis.
export HYPOTHESIS_STORAGE_DIRECTORY="$WORK/hypothesis"
{
    # No ./.schemathesis store of past failures: each run depends on the seed (and the server) alone.
    printf '[cache]\nenabled = false\n\n'
    # Values are read from the environment by Schemathesis (${VAR}), so secrets never land in the file.
    if [ -n "${LEDGER_ADMIN_TOKEN:-}" ]; then
        printf '[auth.openapi.adminToken]\nbearer = "${LEDGER_ADMIN_TOKEN}"\n\n'
    fi
    if [ -n "${LEDGER_APP_KEY:-}" ]; then
        printf '[auth.openapi.appKeyBearer]\nbearer = "${LEDGER_APP_KEY}"\n\n'
        printf '[auth.openapi.appKeyHeader]\napi_key = "${LEDGER_APP_KEY}"\n\n'
    fi
    if [ -n "${LEDGER_APP_ID:-}" ]; then
        # Only under /v1/apps/: the admin operations get their app ids from the apps the run creates (links).
        printf '[[operations]]\ninclude-path-regex = "^/v1/apps/"\nparameters = { "path.app_id" = "${LEDGER_APP_ID}" }\n\n'
    fi
    # Generated data cannot carry Apple's signatures, an account id or a user drawn at random does not exist, and
    # an external purchase may expire before it was bought, a plan must have contiguous tiers and exist, a month to
    # finalize must have ended (409), a revenue span must not run backwards or past 120 months, and a grant must name an
    # entitlement of the app's catalog and end in the future but within 3660 days (and an Idempotency-Key drawn twice
    # with other values is a 422): these operations
    # rightly answer 400 / 409 to schema-valid input, so those do not fail `positive_data_acceptance` there. Every other
    # check still applies to them, and `negative_data_rejection` everywhere.
    cat <<'TOML'
[[operations]]
include-operation-id = ["receiveNotification", "postUserTransactions", "restoreUserPurchases", "uploadReceipt", "uploadTransactions", "createApp", "getProductsStatus", "recordExternalPurchase", "createPlan", "assignPlan", "finalizeInvoices", "getAppRevenue"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429", "5xx"]

[[operations]]
include-operation-id = ["giveGrant", "giveGrantAsOperator"]
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "422", "429", "5xx"]
TOML
} >"$CONFIG"

ARGS=(
    --max-examples "$MAX_EXAMPLES"
    --seed "$SEED"
    --workers "$WORKERS"
    --request-timeout "$REQUEST_TIMEOUT"
    --wait-for-schema "$WAIT_FOR_SCHEMA"
    --generation-database none          # no .hypothesis/ example store: every run starts from the seed alone
    --generation-allow-x00 false        # PostgreSQL text cannot hold NUL; such strings are not this API's inputs
    --no-color
    # The live stream answers a valid request with a stream that stays open: every case would wait out the request
    # timeout. LiveStreamTests cover it (snapshot, changes, cursors, 400 / 406 / 429, credentials).
    --exclude-operation-id openUserLiveStream
)
if [ -n "${SCHEMATHESIS_REPORT_DIR:-}" ]; then
    ARGS+=(--report junit,har --report-dir "$SCHEMATHESIS_REPORT_DIR")
fi

# stdin from /dev/null and no colour: nothing interactive, plain logs in CI. Exit status: 0 only when every check
# passed on every operation.
status=0
"$VENV/bin/st" --config-file "$CONFIG" run "$BASE_URL/openapi.json" "${ARGS[@]}" "$@" </dev/null || status=$?
exit "$status"
