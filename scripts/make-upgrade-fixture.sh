#!/usr/bin/env bash
# Regenerates Tests/Fixtures/upgrade-006/ (the populated schema-version-6 database and its API answers that
# UpgradeFrom006Tests upgrades): builds `ledger` at COMMIT (default 93546df, the last version with the JSON projection
# states) in a worktree of its own, then runs UpgradeFixtureGenerator, which drives that binary's `serve` through its
# HTTP API, records the answers and pg_dumps the database.
# Usage: scripts/make-upgrade-fixture.sh [COMMIT [WORKTREE]]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
commit=${1:-93546df}
worktree=${2:-$(mktemp -d -t ledger-upgrade-fixture.XXXXXX)/old}
if [ ! -d "$worktree" ]; then
    git worktree add --detach "$worktree" "$commit"
fi
(cd "$worktree" && swift build --product ledger)
binary="$worktree/.build/debug/ledger"
LEDGER_UPGRADE_FIXTURE_BINARY="$binary" LEDGER_UPGRADE_FIXTURE_COMMIT="$(git rev-parse "$commit")" \
    swift test --filter UpgradeFixtureGenerator
echo "wrote Tests/Fixtures/upgrade-006/ from $commit ($binary); the worktree $worktree may be removed (git worktree remove)"
