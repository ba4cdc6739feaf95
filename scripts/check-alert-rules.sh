#!/usr/bin/env bash
# Checks the Prometheus alert rules (Deploy/observability/alerts.yml) and runs their unit tests (alerts.test.yml):
# a case where each alert fires and one where it does not. Needs promtool (Debian: apt-get install prometheus).
#
# Usage: scripts/check-alert-rules.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v promtool >/dev/null 2>&1; then
    echo "check-alert-rules: promtool not found; install it with: apt-get install prometheus" >&2
    exit 1
fi

promtool check rules Deploy/observability/alerts.yml
promtool test rules Deploy/observability/alerts.test.yml
