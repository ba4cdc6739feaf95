#!/usr/bin/env bash
# Style check, run by CI (.ci/run) and by hand: `scripts/lint.sh`.
#
# `swift format lint --strict` (it ships with the toolchain) with the repository's .swift-format over Sources,
# Tests and Package.swift, except the generated Sources/LedgerServer/OpenAPI/OpenAPIDocument.swift. The rules the
# code deliberately does not follow are turned off in .swift-format. The pretty printer's layout findings cannot be
# turned off there, and the code is laid out by hand (continuation lines aligned, one-line bodies), so those
# categories are set aside below; every other finding fails the check.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

files=(Package.swift)
while IFS= read -r -d '' file; do files+=("$file"); done < <(
    find Sources Tests -name '*.swift' ! -path Sources/LedgerServer/OpenAPI/OpenAPIDocument.swift -print0 | sort -z)

output=$(swift format lint --strict --parallel --configuration .swift-format "${files[@]}" 2>&1) || true
layout='\[(Indentation|AddLines|RemoveLine|Spacing|TrailingComma|LineLength)\]'
findings=$(grep -vE "$layout" <<<"$output" | grep -E '(error|warning):' || true)

# Lines over 150 characters (the configured lineLength), counted in characters. Reported, not yet failing: the
# existing ones are being split by hand (issue 14, item 5).
long=$(LC_ALL=C.UTF-8 grep -nE '^.{151,}' "${files[@]}" || true)
if [ -n "$long" ]; then
    echo "lint: $(wc -l <<<"$long") line(s) over 150 characters (not yet an error):"
    cut -d: -f1,2 <<<"$long" | sed 's/^/    /'
fi

if [ -n "$findings" ]; then
    echo "$findings"
    echo "lint: $(wc -l <<<"$findings") finding(s); see .swift-format and scripts/lint.sh"
    exit 1
fi
echo "lint: swift format lint --strict found nothing to fix in ${#files[@]} files"
