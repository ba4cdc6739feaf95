#!/usr/bin/env bash
# The console in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`) driven by Selenium
# (from PyPI, installed into a venv on first use), against a running ledger with a seeded history
# (ConsoleBrowserTests seeds one and runs this). Screenshots of each page go to SCREENSHOTS.
#
# Usage: scripts/console-browser.sh BASE_URL
#   LEDGER_ADMIN_TOKEN   the service's admin token (signs in)
#   CONSOLE_APP_ID       the app of the seeded user
#   CONSOLE_QUERY        what to search for (an app user id or a transaction id)
#   CONSOLE_USER         the user the search finds
#   CONSOLE_ACCOUNT      the account whose invoice gets finalized
#   CONSOLE_MONTH        the month to finalize (YYYY-MM)
#   SCREENSHOTS          folder for the screenshots (and the downloaded CSV)
#   CONSOLE_BROWSER_VENV the venv to use (default: SCREENSHOTS/venv)
set -euo pipefail

SELENIUM_VERSION="4.51.0"
[ $# -ge 1 ] || { sed -n '2,14p' "${BASH_SOURCE[0]}" >&2; exit 2; }
BASE_URL="${1%/}"
: "${SCREENSHOTS:?set SCREENSHOTS}"
VENV="${CONSOLE_BROWSER_VENV:-$SCREENSHOTS/venv}"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

for tool in chromium chromedriver; do
    command -v "$tool" >/dev/null || { echo "console-browser: $tool is missing (apt-get install chromium chromium-driver)" >&2; exit 3; }
done
if ! "$VENV/bin/python" -c "import selenium, sys; sys.exit(selenium.__version__ != '$SELENIUM_VERSION')" 2>/dev/null; then
    echo "== installing selenium $SELENIUM_VERSION into $VENV" >&2
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "selenium==$SELENIUM_VERSION"
fi
# Chromium leaves its profile folders in the temporary folder; keep them in SCREENSHOTS, which the caller removes.
export TMPDIR="$SCREENSHOTS/tmp"
mkdir -p "$TMPDIR"
exec "$VENV/bin/python" "$REPO/scripts/console_browser.py" "$BASE_URL"
