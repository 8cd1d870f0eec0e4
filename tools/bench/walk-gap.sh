#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The helper's walk_gap_kb, measured rather than guessed: run in a guest
# that counts instructions (scripts/vm-run --icount), so that each number
# is exact and the sweep is one run.
#
#   scripts/vm-run --icount --flavour bench --mem 4096 -- \
#           tools/bench/walk-gap.sh OUTDIR [REPS]
#
# A read of the page tables walks runs of ranges, a run ending at a gap
# between ranges wider than walk_gap_kb; the helper gives up to 64 runs to
# one hmm_range_fault_many() call, which steps over the gaps between them:
# the threshold trades a gap's page-table entries, walked, against a cut
# (the next run's set-up and its page-table page mapped again). For each
# guest RAM size (userptr-virgl: a blob of 4096 guest pages at random
# frames of one memfd mapping, touched whole, as a running guest's RAM is;
# its mean gap grows with the RAM) and each walk_gap_kb from 0 (a run per
# group of adjacent ranges) to 2048 (512 pages, the pfn buffer: no gap ends
# a run), the batch's registration: median in thousands of instructions
# (us of the guest's clock). One JSON file per cell in OUTDIR, then the
# table:
#
#   walk_gap_kb     64M    256M      1G      2G
#   0            1757.6  1934.8  1964.5  1970.9
#   16           1457.2  1847.3  1941.8  1958.9
#   64           1587.5  2245.5  2087.0  2029.4
#   2048         1596.2  4919.7 16299.9 25263.7
#
# (2026-11-27, bench kernel with hmm_range_fault_many(); the whole table,
# and the one of a call per run before it, are in docs/results/analysis.md)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1 reps=${2:-3}
mkdir -p "$out"
. "$top/tools/bench/bench-guest.sh"
param=/sys/module/drm_userptr_batch/parameters/walk_gap_kb
gaps="0 8 16 32 64 128 256 2048"
rams="64 256 1024 2048"
old=$(cat "$param")
trap 'echo "$old" >"$param"' EXIT
echo "kernel $(uname -r), counted in instructions (QEMU -icount), $reps repetitions"
for ram in $rams; do
	for gap in $gaps; do
		echo "$gap" >"$param"
		"$bin/userptr-virgl" -n 4096 -G "$ram" -w batch -r "$reps" \
			-o "$out/walk_${gap}_${ram}.json" >/dev/null
	done
done
printf '%-12s' walk_gap_kb
for ram in $rams; do
	printf '%8s' "$([ "$ram" -ge 1024 ] && echo "$((ram / 1024))G" || echo "${ram}M")"
done
echo
for gap in $gaps; do
	printf '%-12s' "$gap"
	for ram in $rams; do
		printf '%8.1f' "$(jq '.ways.batch.register_ms * 1000' "$out/walk_${gap}_${ram}.json")"
	done
	echo
done
