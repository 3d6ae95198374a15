#!/usr/bin/env bash
# fetch.sh — idempotent, cached download of libchdb.so (the ClickHouse engine as a
# library) used by the embedded analytics endpoint (chendpoint/cmd/ste-chdb).
#
# Why npm: the only registry reachable from our machines and CI that ships a current
# libchdb.so is npm (@chdb/lib-linux-x64-gnu). `npm pack` downloads the tarball and
# checks its registry integrity hash without installing any node module; we then
# extract just the library.
#
# Output: the absolute path of the library on stdout (nothing else), so callers can do
#   export CHDB_LIB_PATH="$(chendpoint/libchdb/fetch.sh)"
# Errors: one line on stderr, non-zero exit.
#
# Environment:
#   STE_CACHE       cache root (default $HOME/.cache/ste)
#   CHDB_VERSION    npm version (default 26.7.3-stable.1; the code is tested with it)
set -euo pipefail

VERSION="${CHDB_VERSION:-26.7.3-stable.1}"
PKG="@chdb/lib-linux-x64-gnu"
CACHE_ROOT="${STE_CACHE:-${HOME:-/tmp}/.cache/ste}"
DEST_DIR="$CACHE_ROOT/chdb/$VERSION"
LIB="$DEST_DIR/libchdb.so"
MARKER="$DEST_DIR/.complete"

die() { printf 'fetch.sh: %s\n' "$*" >&2; exit 1; }

is_elf_so() {
	# ELF magic + e_type == ET_DYN (3), little endian, at offset 16.
	[ -f "$1" ] || return 1
	local magic etype
	magic="$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')"
	etype="$(od -An -j16 -N2 -tu2 "$1" | tr -d ' \n')"
	[ "$magic" = "7f454c46" ] && [ "$etype" = "3" ]
}

# Fast path: already fetched and verified.
if [ -f "$MARKER" ] && is_elf_so "$LIB"; then
	printf '%s\n' "$LIB"
	exit 0
fi

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*) die "unsupported platform $(uname -s)/$(uname -m): only linux x86_64 (glibc) is packaged" ;;
esac
command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js/npm (apt-get install npm) to fetch libchdb"
command -v tar >/dev/null 2>&1 || die "tar not found"

mkdir -p "$DEST_DIR" || die "cannot create $DEST_DIR"
TMP="$(mktemp -d "$DEST_DIR/.fetch.XXXXXX")" || die "cannot create a temp dir in $DEST_DIR"
trap 'rm -rf "$TMP"' EXIT

# Serialise concurrent fetches of the same version (CI jobs, parallel makes).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$DEST_DIR/.lock"
	flock 9 || die "cannot lock $DEST_DIR/.lock"
	if [ -f "$MARKER" ] && is_elf_so "$LIB"; then
		printf '%s\n' "$LIB"
		exit 0
	fi
fi

if ! (cd "$TMP" && npm pack --loglevel=error --no-fund --no-audit "$PKG@$VERSION" >"$TMP/pack.out" 2>"$TMP/pack.err"); then
	reason="$(grep -v -E 'complete log|^npm error code' "$TMP/pack.err" | head -n1 | sed -e 's/^npm error //')"
	die "npm pack $PKG@$VERSION failed: ${reason:-see npm logs}"
fi
TGZ="$(find "$TMP" -maxdepth 1 -name '*.tgz' | head -n1)"
[ -n "$TGZ" ] || die "npm pack $PKG@$VERSION produced no tarball"

MEMBER="$(tar -tzf "$TGZ" | grep -m1 -E '(^|/)libchdb\.so$' || true)"
[ -n "$MEMBER" ] || die "no libchdb.so inside $PKG@$VERSION"
tar -xzf "$TGZ" -C "$TMP" "$MEMBER" || die "cannot extract $MEMBER from $(basename "$TGZ")"
is_elf_so "$TMP/$MEMBER" || die "$MEMBER from $PKG@$VERSION is not an ELF shared object"

chmod 0755 "$TMP/$MEMBER"
mv -f "$TMP/$MEMBER" "$LIB" || die "cannot move the library to $LIB"
printf '%s %s\n' "$PKG@$VERSION" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$MARKER.tmp" && mv -f "$MARKER.tmp" "$MARKER" || die "cannot write $MARKER"
printf '%s\n' "$LIB"
