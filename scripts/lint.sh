#!/usr/bin/env bash
# Style check, run by CI (.ci/run) and by hand: `scripts/lint.sh`.
#
# Layout is the formatter's, as Hummingbird's scripts do it: `swift format format --in-place` with the repository's
# .swift-format over Sources, Tests, Plugins and Package.swift, and the check fails when that
# changed any file (the files are left formatted: review and commit them). Then `swift format lint --strict` must find
# nothing (the rules the code deliberately does not follow are turned off in .swift-format), and no line may be over
# 150 characters (the formatter leaves long string literals and comments as they are).
# It also checks the module import rules, the table under "Import rules" in docs/architecture.md
# (scripts/check_imports.py), after the checker's self-test on a deliberately broken tree (scripts/test_check_imports.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Import rules: a Swift file importing a project module its row does not allow, or a module with no row, fails.
imports=0
python3 scripts/test_check_imports.py || imports=1
python3 scripts/check_imports.py || imports=1

files=(Package.swift)
while IFS= read -r -d '' file; do files+=("$file"); done < <(
    find Sources Tests Plugins -name '*.swift' -print0 | sort -z)

# Format in place; a file the formatter changed was not formatted.
before=$(sha256sum "${files[@]}")
swift format format --in-place --parallel --configuration .swift-format "${files[@]}"
after=$(sha256sum "${files[@]}")
reformatted=$(diff <(echo "$before") <(echo "$after") | sed -n 's/^> [0-9a-f]*  /error: not formatted (now it is; review and commit): /p' || true)

output=$(swift format lint --strict --parallel --configuration .swift-format "${files[@]}" 2>&1) || true
findings=$(grep -E '(error|warning):' <<<"$output" || true)

# No line over 150 characters (the configured lineLength), counted in characters: string literals and comments the
# formatter does not break.
long=$(LC_ALL=C.UTF-8 grep -nE '^.{151,}' "${files[@]}" | cut -d: -f1,2 | sed 's/$/: error: line over 150 characters/' || true)
findings=$(printf '%s\n%s\n%s\n' "$reformatted" "$findings" "$long" | sed '/^$/d')

if [ -n "$findings" ]; then
    echo "$findings"
    echo "lint: $(wc -l <<<"$findings") finding(s); see .swift-format and scripts/lint.sh"
    exit 1
fi
[ "$imports" -eq 0 ] || { echo "lint: the import rules fail (above); see docs/architecture.md"; exit 1; }
echo "lint: ${#files[@]} files: formatted, no finding of swift format lint --strict, no line over 150 characters"
