#!/bin/sh
# embed-text.sh INPUT OUTPUT TYPE: writes a Swift file declaring `enum TYPE { static let text = … }` with INPUT's text,
# so the binary carries it with no resource bundle. A shell script rather than a Swift tool: SwiftPM re-links a
# plugin's Swift tool at every build on Linux, which re-ran this step and recompiled LedgerServer each time.
set -eu
pounds='#'
# A raw string delimiter longer than any run of `#` next to a quote in the text.
while grep -qF -e "\"$pounds" -e "$pounds\"" "$1"; do pounds="$pounds#"; done
{
    printf '// Generated at build time by the EmbedOpenAPI plugin from %s.\n\nenum %s {\n    static let text = %s"""\n' \
        "$(basename "$1")" "$3" "$pounds"
    cat "$1"
    printf '\n"""%s\n}\n' "$pounds"
} >"$2.tmp"
mv "$2.tmp" "$2"
