#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel-prepare on a small stand-in tree: an empty series, a good
# series, re-running without change, a series that does not apply, and
# unexported work in the tree; a fresh tree from a stand-in tarball, then
# from the machine's base cache. Host only, a few seconds.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
. "$top/scripts/lib.sh"
echo "TAP version 13"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BUILD=$tmp/build KPATCHES=$tmp/patches KBASE=$tmp/BASE
k=$BUILD/linux
mkdir -p "$k" "$KPATCHES"
git -C "$k" init -q -b main
git -C "$k" config user.name t
git -C "$k" config user.email t@t
printf 'one\ntwo\nthree\n' >"$k/file.c"
git -C "$k" add file.c
git -C "$k" commit -q -m base
git -C "$k" tag base
echo "commit $(git -C "$k" rev-parse base)" >"$KBASE"

# two patches made in a scratch clone, the way kernel-export writes them
s=$tmp/scratch
git clone -q "$k" "$s"
sed -i 's/two/TWO/' "$s/file.c"
git -C "$s" commit -q -am "first change"
sed -i 's/three/THREE/' "$s/file.c"
git -C "$s" commit -q -am "second change"
git -C "$s" format-patch -q -o "$KPATCHES" base
good1=0001-first-change.patch good2=0002-second-change.patch
prep() { "$top/scripts/kernel-prepare"; }

: >"$KPATCHES/series"
tap_run "empty series leaves the base" prep
[ "$(git -C "$k" rev-parse HEAD)" = "$(git -C "$k" rev-parse base)" ] &&
	tap_ok "HEAD is base" || tap_fail "HEAD is base"

printf '# comment\n%s\n\n%s\n' "$good1" "$good2" >"$KPATCHES/series"
tap_run "series applies" prep
grep -q TWO "$k/file.c" && grep -q THREE "$k/file.c" && [ "$(git -C "$k" rev-list --count base..HEAD)" = 2 ] &&
	tap_ok "both patches are commits on base" || tap_fail "both patches are commits on base"

touch -d '2001-01-01' "$k/file.c"
tap_run "unchanged series: re-run succeeds" prep
[ "$(stat -c %Y "$k/file.c")" = "$(date -d 2001-01-01 +%s)" ] &&
	tap_ok "unchanged series touches no file" || tap_fail "unchanged series touches no file"

# a patch whose context is gone
sed 's/^ one$/ ONE-NOT-THERE/' "$KPATCHES/$good1" >"$KPATCHES/0003-broken.patch"
printf '%s\n%s\n' "$good1" 0003-broken.patch >"$KPATCHES/series"
out=$(prep 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && printf '%s' "$out" | grep -q "does not apply: kernel/patches/0003-broken.patch" &&
	tap_ok "a patch that does not apply fails naming it" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "a patch that does not apply fails naming it"; }
[ "$(git -C "$k" rev-parse HEAD)" = "$(git -C "$k" rev-parse base)" ] && [ -z "$(git -C "$k" status --porcelain)" ] &&
	tap_ok "after the failure the tree is back at base, clean" || tap_fail "after the failure the tree is back at base, clean"

printf '%s\n' missing.patch >"$KPATCHES/series"
out=$(prep 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && printf '%s' "$out" | grep -q "missing.patch" &&
	tap_ok "a series naming a missing file fails" || tap_fail "a series naming a missing file fails"

# unexported work is never thrown away
printf '%s\n' "$good1" >"$KPATCHES/series"
prep 2>/dev/null
echo local >>"$k/file.c"
git -C "$k" commit -q -am "local work"
tap_run "local commits with an unchanged series: built as they are" prep
printf '%s\n%s\n' "$good1" "$good2" >"$KPATCHES/series"
out=$(prep 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && git -C "$k" log -1 --format=%s | grep -q "local work" &&
	tap_ok "changed series with unexported work: refuses and keeps it" ||
	tap_fail "changed series with unexported work: refuses and keeps it"

# export writes the tree back as the series; applying it again gives the tree
want=$(cat "$k/file.c")
"$top/scripts/kernel-export" 2>/dev/null
[ "$(series_patches "$KPATCHES" | wc -l)" = 2 ] && grep -q "local work" "$KPATCHES/0002-local-work.patch" &&
	tap_ok "kernel-export writes one patch per commit and the series" ||
	tap_fail "kernel-export writes one patch per commit and the series"
# the index lines' abbreviation is fixed, whatever the tree holds
if grep -q '^index ' "$KPATCHES/0002-local-work.patch" &&
   ! grep '^index ' "$KPATCHES"/000[12]-*.patch | grep -Evq ':index [0-9a-f]{12}\.\.[0-9a-f]{12}( |$)'; then
	tap_ok "kernel-export writes 12-digit blob names in the index lines"
else
	grep -h '^index ' "$KPATCHES"/000[12]-*.patch | tap_diag
	tap_fail "kernel-export writes 12-digit blob names in the index lines"
fi
out=$(prep 2>&1)
[ -z "$out" ] && tap_ok "after export, prepare has nothing to do" || tap_fail "after export, prepare has nothing to do"
git -C "$k" reset -q --hard base
rm -f "$k/.git/kfdbatch-applied"
prep 2>/dev/null
[ "$(cat "$k/file.c")" = "$want" ] && tap_ok "the exported series rebuilds the same tree" ||
	tap_fail "the exported series rebuilds the same tree"


# A fresh tree: from the tarball, whose commit must be the pin, then from the
# machine's cache of the base, then from the tarball again for another pin.
export BUILD=$tmp/fresh KBASE_CACHE=$tmp/cache/linux-base.git
k=$BUILD/linux
# tarball NAME CONTENT: a stand-in for Debian's linux-source tarball
tarball() {
	mkdir -p "$tmp/$1/linux-source"
	printf 'kernelversion:\n\t@echo 9.9.9\n' >"$tmp/$1/linux-source/Makefile"
	printf '%s\n' "$2" >"$tmp/$1/linux-source/file.c"
	printf '*.o\n# Debian packaging: ignore everything\n/*\n!/debian/\n' >"$tmp/$1/linux-source/.gitignore"
	tar -cJf "$tmp/$1.tar.xz" -C "$tmp/$1" linux-source
	echo "$tmp/$1.tar.xz"
}
pin() { printf 'version 9.9.9\ncommit %s\n' "$1" >"$KBASE"; }
cached() { git -C "$KBASE_CACHE" rev-parse -q --verify 'refs/tags/base^{commit}' 2>/dev/null; }
export KTARBALL
KTARBALL=$(tarball t1 "$(printf 'one\ntwo\nthree')")
: >"$KPATCHES/series"
pin 0000000000000000000000000000000000000000
out=$(prep 2>&1) && rc=0 || rc=$?
pin1=$(printf '%s' "$out" | sed -n 's/.*base commit is \([0-9a-f]\{40\}\), kernel\/BASE pins 0\{40\}.*/\1/p')
[ $rc -ne 0 ] && [ -n "$pin1" ] && [ ! -e "$k" ] && [ ! -e "$KBASE_CACHE" ] &&
	tap_ok "a tarball that does not give the pinned commit fails naming both, caching nothing" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "a tarball that does not give the pinned commit fails naming both, caching nothing"; }

rm -rf "$BUILD"
pin "$pin1"
tap_run "fresh tree from the tarball" prep
[ "$(git -C "$k" rev-parse base)" = "$pin1" ] && [ "$(cached)" = "$pin1" ] &&
	tap_ok "the base is tagged and kept in the cache" || tap_fail "the base is tagged and kept in the cache"

rm -rf "$BUILD"
KTARBALL=$tmp/no-such.tar.xz
out=$(prep 2>&1) && rc=0 || rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | grep -q "checking the base out of" &&
	[ "$(git -C "$k" rev-parse HEAD)" = "$pin1" ] && [ "$(git -C "$k" rev-parse base)" = "$pin1" ] &&
	[ "$(git -C "$k" symbolic-ref HEAD)" = refs/heads/main ] && [ "$(cat "$k/file.c")" = "$(printf 'one\ntwo\nthree')" ] &&
	[ -z "$(git -C "$k" status --porcelain)" ] && [ -z "$(git -C "$k" remote)" ] &&
	tap_ok "a fresh tree comes from the cache, without the tarball, at base on main, clean, without a remote" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "a fresh tree comes from the cache, without the tarball, at base on main, clean, without a remote"; }
printf '%s\n' "$good1" >"$KPATCHES/series"
prep 2>/dev/null && grep -q TWO "$k/file.c" 2>/dev/null &&
	tap_ok "the series applies on a tree from the cache" || tap_fail "the series applies on a tree from the cache"

# another pin: the cache has not got it, so the tarball is used and cached
rm -rf "$BUILD"
: >"$KPATCHES/series"
KTARBALL=$(tarball t2 two)
pin 0000000000000000000000000000000000000000
pin2=$(prep 2>&1 | sed -n 's/.*base commit is \([0-9a-f]\{40\}\),.*/\1/p')
rm -rf "$BUILD"
pin "$pin2"
out=$(prep 2>&1) && rc=0 || rc=$?
[ $rc -eq 0 ] && ! printf '%s' "$out" | grep -q "checking the base out of" &&
	[ "$(cat "$k/file.c")" = two ] && [ "$(cached)" = "$pin2" ] && [ "$(cat "$k/.gitignore")" = "*.o" ] &&
	tap_ok "a cache without the pinned base is not used, and then keeps the new one (Debian's ignore-all rule dropped)" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "a cache without the pinned base is not used, and then keeps the new one (Debian's ignore-all rule dropped)"; }

# a cache on another file system (tmpfs) gets a copy: no hardlinks there
shm=$(mktemp -d /dev/shm/kernel-prepare.test.XXXXXX 2>/dev/null) || shm=
if [ -n "$shm" ] && [ "$(stat -f -c %T "$shm")" != "$(stat -f -c %T "$tmp")" ]; then
	rm -rf "$BUILD"
	KBASE_CACHE=$shm/linux-base.git
	out=$(prep 2>&1) && rc=0 || rc=$?
	[ $rc -eq 0 ] && [ "$(cached)" = "$pin2" ] && [ ! -e "$KBASE_CACHE/objects/objects" ] &&
		[ -z "$(git -C "$KBASE_CACHE" fsck --no-dangling 2>&1)" ] &&
		tap_ok "a cache on another file system gets a copy of the objects" ||
		{ printf '%s\n' "$out" | tap_diag; tap_fail "a cache on another file system gets a copy of the objects"; }
	rm -rf "$shm"
else
	[ -z "$shm" ] || rm -rf "$shm"
	tap_skip "a cache on another file system gets a copy of the objects" "no /dev/shm on another file system"
fi

rm -rf "$BUILD"
KBASE_CACHE=/proc/no-such-dir/linux-base.git
out=$(prep 2>&1) && rc=0 || rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | grep -q "could not keep the base" && [ "$(cat "$k/file.c")" = two ] &&
	tap_ok "a cache that cannot be written is no error" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "a cache that cannot be written is no error"; }

[ $TAP_FAILED -eq 0 ]
