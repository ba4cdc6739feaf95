#!/usr/bin/env bash
# Builds Citus 13.2.2 from its vendored source once and installs it into this machine's PostgreSQL 15.
#
#   Deploy/citus/install-citus.sh
#
# Citus is not in Debian's archive. The source (citus-13.2.2.tar.gz, with one patch for Debian's PostgreSQL 15.20
# headers; see its README) is looked for at CITUS_SOURCE, else in ../shared/vendor beside this checkout. The build
# (about 5 minutes on two cores) is kept in CITUS_CACHE (default ~/.cache/subscription-ledger/citus-13.2.2-pg15), so
# a later run only installs it again if PostgreSQL lost it (seconds), and does nothing when it is installed.
# Installs the Debian packages the build needs when missing (as CI does: apt-get, sudo when not root); they move
# PostgreSQL 15 to the minor release its headers are, so the server and the extension agree.
set -euo pipefail

version=13.2.2
sha256=ad17afff086350db9d2a3dea78bb7a79535048357651b0244d21bdb795843c22
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${CITUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/subscription-ledger/citus-$version-pg15}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
[ -f /usr/include/postgresql/15/server/postgres.h ] || missing+=(postgresql-server-dev-15 postgresql-15)
[ -f /usr/include/krb5.h ] || missing+=(libkrb5-dev)
[ -f /usr/include/lz4.h ] || missing+=(liblz4-dev)
[ -f /usr/include/zstd.h ] || missing+=(libzstd-dev)
[ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || missing+=(libcurl4-openssl-dev)
command -v make >/dev/null || missing+=(make)
command -v gcc >/dev/null || missing+=(gcc)
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-citus: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
pg_config=/usr/lib/postgresql/15/bin/pg_config
lib=$("$pg_config" --pkglibdir)
extensions=$("$pg_config" --sharedir)/extension

installed() { [ -f "$lib/citus.so" ] && grep -q "default_version = '13.2-1'" "$extensions/citus.control" 2>/dev/null; }
if installed; then
    echo "install-citus: Citus $version is installed ($lib/citus.so)"
    exit 0
fi

if [ ! -f "$cache/built" ]; then
    source=${CITUS_SOURCE:-}
    if [ -z "$source" ]; then
        for candidate in "$repo/../shared/vendor/citus-$version.tar.gz" "$repo/../../shared/vendor/citus-$version.tar.gz"; do
            [ -f "$candidate" ] && { source=$candidate; break; }
        done
    fi
    [ -n "$source" ] && [ -f "$source" ] || {
        echo "install-citus: citus-$version.tar.gz not found; set CITUS_SOURCE to its path (see Deploy/SCALE-OUT.md)" >&2
        exit 3
    }
    echo "$sha256  $source" | sha256sum -c --quiet - || { echo "install-citus: $source is not the vendored archive (sha256)" >&2; exit 2; }
    rm -rf "$cache"
    mkdir -p "$cache/src"
    tar -xzf "$source" -C "$cache/src" --strip-components=1
    echo "install-citus: building Citus $version in $cache (about 5 minutes on two cores; once)"
    (cd "$cache/src" && PG_CONFIG=$pg_config ./configure --quiet >"$cache/configure.log" 2>&1 \
        && make -s -j"$(nproc)" >"$cache/make.log" 2>&1) || {
        echo "install-citus: the build failed; the end of its log:" >&2
        tail -30 "$cache/make.log" "$cache/configure.log" 2>/dev/null >&2
        exit 1
    }
    touch "$cache/built"
fi
$SUDO make -s -C "$cache/src" install >"$cache/install.log" 2>&1 || { tail -30 "$cache/install.log" >&2; exit 1; }
installed || { echo "install-citus: installed, yet $lib/citus.so or its control file is missing" >&2; exit 1; }
echo "install-citus: Citus $version installed from $cache"
