#!/usr/bin/env python3
"""Self-test of scripts/check_imports.py, run by scripts/lint.sh (so by CI): the checker must fail on a forbidden
import, and say where and why.

scripts/fixtures/imports/ is a tiny tree (a Sources/ folder and a docs/architecture.md with a table of import rules)
that deliberately breaks its rules twice; the test expects exactly those two findings, then, on copies, that the tree
passes once they are fixed (imports in comments, strings, folder rows and exceptions handled) and that a folder with
no row, a row naming an unknown module and an exception that no longer holds each fail.
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_imports.py")
FIXTURE = os.path.join(HERE, "fixtures", "imports")
TABLE = "docs/architecture.md's table"


def run(root):
    done = subprocess.run([sys.executable, CHECKER, "--root", root], capture_output=True, text=True)
    return done.returncode, [line for line in done.stdout.splitlines() if line.startswith("error: ")]


def expect(name, root, code, errors):
    got_code, got_errors = run(root)
    if got_code != code or sorted(got_errors) != sorted(errors):
        print(f"test_check_imports: {name}: expected exit {code} with {errors}, got exit {got_code} with {got_errors}")
        return False
    return True


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as handle:
        handle.write(text)


def copy(scratch, name):
    root = os.path.join(scratch, name)
    shutil.copytree(FIXTURE, root)
    # The fixture fixed: the domain imports nothing of the project, the route no database client.
    write(root, "Sources/Domain/Leak.swift", "import Foundation\n")
    write(root, "Sources/Server/Routes/UserRoutes.swift", "import Store\n")
    return root


def edit(root, path, old, new):
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text, f"{path} has no {old!r}"
    with open(full, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new))


def main():
    ok = expect("the broken fixture", FIXTURE, 1, [
        f"error: Sources/Domain/Leak.swift:3 imports Store, which {TABLE} does not allow for Domain",
        f"error: Sources/Server/Routes/UserRoutes.swift:2 imports Client, which {TABLE} does not allow for "
        "Server/Routes/ (files under Sources/Server/Routes/)",
    ])
    with tempfile.TemporaryDirectory() as scratch:
        ok &= expect("the fixture fixed", copy(scratch, "fixed"), 0, [])

        root = copy(scratch, "missing-row")
        write(root, "Sources/Billing/Billing.swift", "import Store\n")
        ok &= expect("a module with no row", root, 1, [
            f"error: Sources/Billing has no row in {TABLE} of import rules: add one"])

        root = copy(scratch, "unknown-module")
        edit(root, "docs/architecture.md", "| `Domain`, `Client` | the only SQL", "| `Domain`, `Clients` | the only SQL")
        ok &= expect("a row naming an unknown module", root, 1, [
            "error: docs/architecture.md:9: `Clients` is not a module of Sources/",
            f"error: Sources/Store/Store.swift:1 imports Client, which {TABLE} does not allow for Store"])

        root = copy(scratch, "stale-exception")
        write(root, "Sources/Server/Routes/Legacy.swift", "import Domain\n")
        ok &= expect("an exception that no longer holds", root, 1, [
            "error: docs/architecture.md:17: the known exception `Sources/Server/Routes/Legacy.swift` imports "
            "`Client` no longer holds: delete its row"])
    if not ok:
        return 1
    print("test_check_imports: the checker fails on forbidden imports, missing rows, unknown modules and stale "
          "exceptions, and passes the fixed fixture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
