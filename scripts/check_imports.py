#!/usr/bin/env python3
"""The module import rules of docs/architecture.md, checked against the code (run by scripts/lint.sh, so by CI).

The table under "## Import rules" in docs/architecture.md is the source of the rules: its first column names a module
(a folder of Sources/) or a folder inside one (`LedgerServer/Routes/`, whose files then follow that row instead of the
module's), its second column lists, in backquotes, every module of the project that it may import ("nothing": none).
Modules that are not folders of Sources/ (Foundation, NIO, Hummingbird, ...) are not restricted. The table "Known
exceptions" below it lists single files allowed one import their module's row forbids, until they lose it.

Fails (exit 1), with one line per finding, when a Swift file under Sources/ imports a project module its row does not
allow, when a folder of Sources/ has no row, when a row names a module that does not exist, or when an exception no
longer holds (its file lost the import: delete the row). Usage: scripts/check_imports.py [--root DIR] (default: the
repository; DIR holds Sources/ and docs/architecture.md). Self-test: scripts/test_check_imports.py.
"""

import argparse
import os
import re
import sys

DOC = "docs/architecture.md"
RULES_HEADING = "## Import rules"
BACKQUOTED = re.compile(r"`([^`]+)`")
# `import X`, `@testable import X`, `public import X`, `@_exported import X`, `@_spi(S) import X`, `import struct X.Y`.
IMPORT = re.compile(
    r"^\s*(?:(?:@\w+(?:\([^)]*\))?|public|package|internal|fileprivate|private)\s+)*import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func|actor)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)


def table_rows(lines, start):
    """The cells of the first Markdown table at or after line `start`, header and separator left out."""
    rows, i = [], start
    while i < len(lines) and not lines[i].lstrip().startswith("|"):
        if lines[i].startswith("#"):  # no table before the next heading
            return rows, i
        i += 1
    first = i
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        cells = [cell.strip() for cell in lines[i].strip().strip("|").split("|")]
        if i > first + 1:  # past the header and the |---| line
            rows.append((i + 1, cells))
        i += 1
    return rows, i


def read_rules(root, modules):
    """(rules, exceptions, problems): rules maps a module or `Module/Folder/` to its allowed modules; exceptions maps
    (file, module) to the doc line that allows it."""
    doc_path = DOC  # in messages: relative to the root, like the Swift files'
    with open(os.path.join(root, DOC), encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    problems = []
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == RULES_HEADING)
    except StopIteration:
        return {}, {}, [f"{doc_path}: no '{RULES_HEADING}' section with the table of import rules"]
    rules = {}
    rows, end = table_rows(lines, start + 1)
    for number, cells in rows:
        if len(cells) < 2:
            problems.append(f"{doc_path}:{number}: a row of the import rules needs a module and what it may import")
            continue
        allowed = set(BACKQUOTED.findall(cells[1]))
        for name in sorted(allowed - modules):
            problems.append(f"{doc_path}:{number}: `{name}` is not a module of Sources/")
        for subject in BACKQUOTED.findall(cells[0]):
            subject = subject.rstrip("/") + ("/" if "/" in subject else "")
            module = subject.split("/")[0]
            if module not in modules:
                problems.append(f"{doc_path}:{number}: `{subject}`: there is no module {module} in Sources/")
            elif not os.path.isdir(os.path.join(root, "Sources", subject)):
                problems.append(f"{doc_path}:{number}: `{subject}`: there is no folder Sources/{subject}")
            elif subject in rules:
                problems.append(f"{doc_path}:{number}: `{subject}` has a second row")
            else:
                rules[subject] = (allowed, number)
    exceptions = {}
    for i in range(end, len(lines)):
        if lines[i].startswith("## "):
            break
        if lines[i].startswith("### Known exceptions"):
            for number, cells in table_rows(lines, i + 1)[0]:
                files = BACKQUOTED.findall(cells[0])
                imported = BACKQUOTED.findall(cells[1]) if len(cells) > 1 else []
                if len(files) != 1 or len(imported) != 1:
                    problems.append(f"{doc_path}:{number}: an exception names one file and one module, in backquotes")
                    continue
                exceptions[(files[0], imported[0])] = number
            break
    return rules, exceptions, problems


def swift_imports(path):
    """(line number, module) of every import of the file, outside block comments and multi-line strings."""
    found, in_comment, in_string = [], False, False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            text = line.strip()
            if in_comment:
                in_comment = "*/" not in text
                continue
            if in_string:
                in_string = text.count('"""') % 2 == 0
                continue
            match = IMPORT.match(line)
            if match:
                found.append((number, match.group(1)))
            elif text.startswith("/*") and "*/" not in text:
                in_comment = True
            elif not text.startswith("//") and text.count('"""') % 2 == 1:
                in_string = True
    return found


def check(root):
    sources = os.path.join(root, "Sources")
    modules = {name for name in os.listdir(sources) if os.path.isdir(os.path.join(sources, name))}
    rules, exceptions, problems = read_rules(root, modules)
    for module in sorted(modules - set(rules)):
        problems.append(f"Sources/{module} has no row in {DOC}'s table of import rules: add one")
    used = set()
    for module in sorted(modules & set(rules)):
        for folder, _, names in sorted(os.walk(os.path.join(sources, module))):
            for name in sorted(names):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, root).replace(os.sep, "/")
                inside = relative[len("Sources/"):]
                # The most specific row: a folder row (`LedgerServer/Routes/`) over its module's.
                subject = max((key for key in rules if key == module or (key.endswith("/") and inside.startswith(key))),
                              key=len)
                allowed = rules[subject][0]
                for number, imported in swift_imports(path):
                    if imported not in modules or imported == module or imported in allowed:
                        continue
                    if (relative, imported) in exceptions:
                        used.add((relative, imported))
                        continue
                    where = module if subject == module else f"{subject} (files under Sources/{subject})"
                    problems.append(f"{relative}:{number} imports {imported}, which {DOC}'s table does not allow for {where}")
    for (relative, imported), number in sorted(exceptions.items()):
        if (relative, imported) not in used:
            problems.append(f"{DOC}:{number}: the known exception `{relative}` imports `{imported}` no longer holds: "
                            "delete its row")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--root", default=default, help="the folder holding Sources/ and docs/architecture.md")
    root = parser.parse_args().root
    problems = check(root)
    for problem in problems:
        print(f"error: {problem}")
    if problems:
        print(f"imports: {len(problems)} finding(s); the rules are the table under '{RULES_HEADING}' in {DOC}")
        return 1
    print(f"imports: every module of Sources/ follows {DOC}'s import rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
