#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel-source against a Debian repository of its own (file:, a
# stand-in linux-source package in two versions): the pinned version is
# fetched and cached, a second run needs no repository, a tarball that is
# not the pinned one is refused and not cached, a version the suite no
# longer serves fails naming the newest one and the line to change, and a
# version without pins is fetched with the pin to record printed. Host
# only, a few seconds; needs dpkg-deb and dpkg-scanpackages (dpkg-dev).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v dpkg-scanpackages >/dev/null; then
	tap_skip "scripts/kernel-source" "no dpkg-scanpackages (dpkg-dev)"
	exit 0
fi

# pkg VERSION CONTENT: a linux-source-9.9 package whose tarball holds CONTENT
repo=$tmp/repo
pkg() {
	local d=$tmp/pkg-$1
	mkdir -p "$d/DEBIAN" "$d/usr/src" "$tmp/src-$1/linux-source-9.9" "$repo/pool"
	printf '%s\n' "$2" >"$tmp/src-$1/linux-source-9.9/file.c"
	tar -cJf "$d/usr/src/linux-source-9.9.tar.xz" -C "$tmp/src-$1" linux-source-9.9
	printf 'Package: linux-source-9.9\nVersion: %s\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n' \
		"$1" >"$d/DEBIAN/control"
	dpkg-deb -Zxz -b "$d" "$repo/pool/linux-source-9.9_${1}_all.deb" >/dev/null
	sha256sum "$d/usr/src/linux-source-9.9.tar.xz" | cut -d' ' -f1
}
sha1=$(pkg 9.9.1-1 one)
sha2=$(pkg 9.9.2-1 two)
# the suite "fake": its Packages and a Release file that names them
idx=dists/fake/main/binary-amd64
mkdir -p "$repo/$idx"
(cd "$repo" && dpkg-scanpackages -m pool /dev/null 2>/dev/null >"$idx/Packages")
{
	printf 'Suite: fake\nCodename: fake\nComponents: main\nArchitectures: amd64 all\nSHA256:\n'
	printf ' %s %s main/binary-amd64/Packages\n' "$(sha256sum <"$repo/$idx/Packages" | cut -d' ' -f1)" \
		"$(stat -c %s "$repo/$idx/Packages")"
} >"$repo/dists/fake/Release"

export KBASE=$tmp/BASE KSRC_CACHE=$tmp/cache KSRC_MIRROR=file:$repo BUILD=$tmp/build
unset KTARBALL
# base VERSION PINNED SHA: a kernel/BASE for the stand-in package
base() {
	printf 'package linux-source-9.9 %s\nsuite fake\npinned %s\ntarball-sha256 %s\ncommit %040d\n' \
		"$1" "$2" "$3" 0 >"$KBASE"
}
src() { "$top/scripts/kernel-source"; }

base 9.9.1-1 9.9.1-1 "$sha1"
out=$(src 2>"$tmp/err") && rc=0 || rc=$?
want=$KSRC_CACHE/linux-source-9.9_9.9.1-1.tar.xz
[ $rc -eq 0 ] && [ "$out" = "$want" ] && [ "$(sha256sum <"$want" | cut -d' ' -f1)" = "$sha1" ] &&
	[ "$(tar -xOJf "$want" linux-source-9.9/file.c)" = one ] &&
	tap_ok "the pinned version is fetched into the cache and its path printed" ||
	{ tap_diag <"$tmp/err"; tap_fail "the pinned version is fetched into the cache and its path printed"; }

KSRC_MIRROR=file:$tmp/no-such-repo src >/dev/null 2>"$tmp/err" && rc=0 || rc=$?
[ $rc -eq 0 ] && tap_ok "a second run takes it from the cache, without the repository" ||
	{ tap_diag <"$tmp/err"; tap_fail "a second run takes it from the cache, without the repository"; }

echo changed >"$want"
src >/dev/null 2>"$tmp/err" && rc=0 || rc=$?
[ $rc -ne 0 ] && grep -q "not the pinned one" "$tmp/err" &&
	tap_ok "a cached tarball that is not the pinned one is refused" ||
	{ tap_diag <"$tmp/err"; tap_fail "a cached tarball that is not the pinned one is refused"; }
rm -rf "$KSRC_CACHE"

base 9.9.1-1 9.9.1-1 "$sha2"
src >/dev/null 2>"$tmp/err" && rc=0 || rc=$?
[ $rc -ne 0 ] && grep -q "is not the pinned one" "$tmp/err" && [ ! -e "$want" ] &&
	tap_ok "a served tarball that is not the pinned one fails, caching nothing" ||
	{ tap_diag <"$tmp/err"; tap_fail "a served tarball that is not the pinned one fails, caching nothing"; }

base 9.9.0-3 9.9.0-3 "$sha1"
src >/dev/null 2>"$tmp/err" && rc=0 || rc=$?
[ $rc -ne 0 ] && grep -q "no longer serves linux-source-9.9 9.9.0-3" "$tmp/err" &&
	grep -q "the newest it serves is 9.9.2-1" "$tmp/err" &&
	grep -qF "'package linux-source-9.9 9.9.0-3' -> 'package linux-source-9.9 9.9.2-1'" "$tmp/err" &&
	[ -z "$(ls -A "$KSRC_CACHE" 2>/dev/null)" ] &&
	tap_ok "a version no longer served fails naming the newest served and the line to change" ||
	{ tap_diag <"$tmp/err"; tap_fail "a version no longer served fails naming the newest served and the line to change"; }

# the one line changed: the pins are of 9.9.0-3, so none is checked
sed -i 's/^package .*/package linux-source-9.9 9.9.2-1/' "$KBASE"
out=$(src 2>"$tmp/err") && rc=0 || rc=$?
[ $rc -eq 0 ] && [ "$out" = "$KSRC_CACHE/linux-source-9.9_9.9.2-1.tar.xz" ] &&
	grep -q "to record: tarball-sha256 $sha2" "$tmp/err" &&
	tap_ok "after that one line, the new version is fetched and its pin printed to record" ||
	{ tap_diag <"$tmp/err"; tap_fail "after that one line, the new version is fetched and its pin printed to record"; }

printf 'package linux-source-9.9 9.9.1-1\nsuite none\n' >"$KBASE"
rm -rf "$KSRC_CACHE"
src >/dev/null 2>"$tmp/err" && rc=0 || rc=$?
[ $rc -ne 0 ] && grep -q "could not read none's package list" "$tmp/err" &&
	tap_ok "a suite the repository has not got fails saying so" ||
	{ tap_diag <"$tmp/err"; tap_fail "a suite the repository has not got fails saying so"; }

[ $TAP_FAILED -eq 0 ]
