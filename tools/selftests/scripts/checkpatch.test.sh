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
[ $TAP_FAILED -eq 0 ]
