#!/usr/bin/env bash
# Style check, run by CI (.ci/run) and by hand: `scripts/lint.sh`.
#
# `swift format lint --strict` (it ships with the toolchain) with the repository's .swift-format over Sources,
# Tests, Plugins and Package.swift. The rules the
# code deliberately does not follow are turned off in .swift-format. The pretty printer's layout findings cannot be
# turned off there, and the code is laid out by hand (continuation lines aligned, one-line bodies), so those
# categories are set aside below; every other finding, and any line over 150 characters, fails the check.
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

output=$(swift format lint --strict --parallel --configuration .swift-format "${files[@]}" 2>&1) || true
layout='\[(Indentation|AddLines|RemoveLine|Spacing|TrailingComma|LineLength)\]'
findings=$(grep -vE "$layout" <<<"$output" | grep -E '(error|warning):' || true)

# No line over 150 characters (the configured lineLength), counted in characters: the pretty printer's LineLength
# finding is set aside above with the layout, so the limit is checked here, for every line.
long=$(LC_ALL=C.UTF-8 grep -nE '^.{151,}' "${files[@]}" | cut -d: -f1,2 | sed 's/$/: error: line over 150 characters/' || true)
findings=$(printf '%s\n%s\n' "$findings" "$long" | sed '/^$/d')

if [ -n "$findings" ]; then
    echo "$findings"
    echo "lint: $(wc -l <<<"$findings") finding(s); see .swift-format and scripts/lint.sh"
    exit 1
fi
[ "$imports" -eq 0 ] || { echo "lint: the import rules fail (above); see docs/architecture.md"; exit 1; }
echo "lint: ${#files[@]} files: no finding of swift format lint --strict, no line over 150 characters"
