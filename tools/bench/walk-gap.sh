#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The helper's walk_gap_kb, measured rather than guessed: run in a guest
# that counts instructions (scripts/vm-run --icount), so that each number
# is exact and the sweep is one run.
#
#   scripts/vm-run --icount --flavour bench --mem 4096 -- \
#           tools/bench/walk-gap.sh OUTDIR [REPS]
#
# A walk of the page tables ends at a gap between ranges wider than
# walk_gap_kb, and the next range is walked by an hmm_range_fault() call
# of its own: the threshold trades a gap's page-table entries, walked,
# against a new descent from the top of the page table. For each guest RAM
# size (userptr-virgl: a blob of 4096 guest pages at random frames of one
# memfd mapping, touched whole, as a running guest's RAM is; its mean gap
# grows with the RAM) and each walk_gap_kb from 0 (a walk per run of
# adjacent ranges) to 2048 (512 pages, the pfn buffer: no gap ends a walk,
# as before the parameter), the batch's registration: median in thousands
# of instructions (us of the guest's clock). One JSON file per cell in
# OUTDIR, then the table:
#
#   walk_gap_kb     64M    256M      1G      2G
#   0            4205.4  4704.4  4817.8  4837.7
#   64           1862.0  3532.8  4444.0  4646.0
#   2048         1895.1  5205.5 16568.8 25665.1
#
# (2026-11-26, bench kernel at 1f40a42; the whole table is in
# docs/results/analysis.md)
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
