#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel-prepare on a small stand-in tree: an empty series, a good
# series, re-running without change, a series that does not apply, and
# unexported work in the tree. Host only, a few seconds.
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
out=$(prep 2>&1)
[ -z "$out" ] && tap_ok "after export, prepare has nothing to do" || tap_fail "after export, prepare has nothing to do"
git -C "$k" reset -q --hard base
rm -f "$k/.git/kfdbatch-applied"
prep 2>/dev/null
[ "$(cat "$k/file.c")" = "$want" ] && tap_ok "the exported series rebuilds the same tree" ||
	tap_fail "the exported series rebuilds the same tree"

[ $TAP_FAILED -eq 0 ]
