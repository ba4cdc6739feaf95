#!/usr/bin/env bash
# Checks received webhooks with an independent implementation of Standard Webhooks: the `standardwebhooks` package
# from PyPI (installed into a venv on first use), as a receiver would. Exits non-zero if any message fails.
#
# Usage: scripts/verify-webhooks.sh MESSAGES.json
#   MESSAGES.json: [{"secrets": ["whsec_…", …], "headers": {"webhook-id": …, "webhook-timestamp": …,
#                   "webhook-signature": …}, "body": "<exact body>"}, …]
#   Every message must verify with every secret listed for it (a rotation lists the old and the new one).
# Tuning: STANDARDWEBHOOKS_VENV (default .build/standardwebhooks-venv in this checkout).
set -euo pipefail

VERSION="1.1.0"
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}" >&2
    exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${STANDARDWEBHOOKS_VENV:-$root/.build/standardwebhooks-venv}"
if ! "$venv/bin/python" -c "import standardwebhooks" >/dev/null 2>&1; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "standardwebhooks==$VERSION" >&2
fi
exec "$venv/bin/python" - "$1" <<'PY'
import json, sys
from standardwebhooks.webhooks import Webhook

messages = json.load(open(sys.argv[1]))
failures = 0
for index, message in enumerate(messages):
    for secret in message["secrets"]:
        try:
            Webhook(secret).verify(message["body"], message["headers"])
        except Exception as error:
            failures += 1
            print(f"message {index} ({message['headers'].get('webhook-id')}) fails with secret {secret[:10]}…: {error!r}")
print(f"verified {len(messages)} message(s), {failures} failure(s)")
sys.exit(1 if failures else 0)
PY
