#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/checkpatch.pl --strict on every patch of kernel/patches, run in
# the kernel tree the series applies to: one result per patch, clean means
# no error, warning or check.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
. "$top/scripts/lib.sh"
echo "TAP version 13"

patches=$(series_patches "$PATCHES")
if [ -z "$patches" ]; then
	tap_skip "checkpatch" "the series is empty"
	exit 0
fi
for p in $patches; do
	# the system python3 first: spdxcheck.py needs Debian's python3-ply
	out=$(cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict \
		--show-types --terse "$PATCHES/$p" 2>&1)
	bad=$(printf '%s\n' "$out" | grep -E ': (ERROR|WARNING|CHECK):' || true)
	if [ -z "$bad" ]; then
		tap_ok "checkpatch --strict $p"
	else
		printf '%s\n' "$bad" | tap_diag
		tap_fail "checkpatch --strict $p"
	fi
done

# The same script run from this repository, as a reviewer of the project
# runs it: git-tracked .patch files are then checked as plain files, so a
# line ending in whitespace (a blank diff context line " ") is an error.
rel=$(realpath --relative-to="$top" "$PATCHES")
out=$(cd "$top" && PATH=/usr/bin:$PATH perl "$KSRC/scripts/checkpatch.pl" --strict --terse \
	"$rel"/0000-cover-letter.patch $(for p in $patches; do echo "$rel/$p"; done) 2>&1)
bad=$(printf '%s\n' "$out" | grep -E ': (ERROR|WARNING|CHECK):' || true)
if [ -z "$bad" ]; then
	tap_ok "checkpatch --strict on the patch files from the repository"
else
	printf '%s\n' "$bad" | tap_diag
	tap_fail "checkpatch --strict on the patch files from the repository"
fi

# the cover letter's shortlog names each patch, in order
cover=$PATCHES/0000-cover-letter.patch
if [ -f "$cover" ]; then
	# (git mailinfo unfolds a long Subject and drops its "[PATCH n/m]")
	want=$(for p in $patches; do
		git mailinfo /dev/null /dev/null <"$PATCHES/$p" | sed -n 's/^Subject: //p'
	done)
	got=$(sed -n 's/^  \([a-z].*\)$/\1/p' "$cover" | grep -Fx -f <(printf '%s\n' "$want") || true)
	if [ "$got" = "$want" ]; then
		tap_ok "the cover letter lists the $(printf '%s\n' "$want" | grep -c .) patches in order"
	else
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | tap_diag
		tap_fail "the cover letter lists the patches in order"
	fi
else
	tap_fail "kernel/patches/0000-cover-letter.patch exists"
fi

# the cover letter's diffstat is the series' own: the patches applied in a
# scratch index on top of the base (the tree's HEAD may hold unexported
# edits), as format-patch --cover-letter would print it
if [ -f "$cover" ]; then
	idx=$(mktemp)
	trap 'rm -f "$idx"' EXIT
	want=$(export GIT_INDEX_FILE=$idx
		git -C "$KSRC" read-tree base &&
		for p in $patches; do git -C "$KSRC" apply --cached "$PATCHES/$p" || exit 1; done &&
		git -C "$KSRC" diff --stat=72 base "$(git -C "$KSRC" write-tree)") ||
		want="(the series does not apply to the base)"
	got=$(grep -E '^ [^ ].* \| +[0-9]+|^ [0-9]+ files? changed' "$cover")
	if [ "$got" = "$want" ]; then
		tap_ok "the cover letter's diffstat is the series'"
	else
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | tap_diag
		tap_fail "the cover letter's diffstat is the series'"
	fi
fi
[ $TAP_FAILED -eq 0 ]
