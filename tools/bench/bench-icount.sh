#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The registration rows of the benchmark counted in instructions, run by
# `make bench` (scripts/bench) in a guest under scripts/vm-run --icount:
#
#   tools/bench/bench-icount.sh OUTDIR [REPS] [MAXN] [GPUSVM_DIR]
#
# There the guest's clock advances one nanosecond per instruction, so
# these times are thousands of instructions and the same on every run,
# whatever the host does: the rows whose wall-clock ratios move most with
# the host's load. 4096 and 8192 ranges of 4 KiB, scattered (the three
# modes) and inside one mapping (the three modes), the contiguous
# reference in a VMA per range beside the batch, the gap probe, test_hmm's
# snapshot of a present range of as many pages (hmm-snapshot: HMM's read
# alone), by hmm_range_fault() and with hmm_range_read_many() first, and
# with GPUSVM_DIR bench-matrix.sh's drm_gpusvm rows. One JSON file per row in
# OUTDIR, named as bench-matrix.sh names the timed ones.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1 reps=${2:-3} maxn=${3:-8192} gpusvm=${4:-}
mkdir -p "$out"
. "$top/tools/bench/bench-guest.sh"
echo "kernel $(uname -r), counted in instructions (QEMU -icount), $reps repetitions"
for n in 4096 8192; do
	[ "$n" -le "$maxn" ] || continue
	echo "== $n x 4k"
	"$bin/userptr-bench" -n "$n" -s 4k -r "$reps" -o "$out/n${n}_4k.json"
	echo "== $n x 4k, one mapping"
	"$bin/userptr-bench" -n "$n" -s 4k --one-mapping -r "$reps" -o "$out/m${n}_4k.json"
	echo "== $n x 4k, contiguous in a VMA per range"
	"$bin/userptr-bench" -n "$n" -s 4k -m batch -m contiguous --vma-per-range \
		-r "$reps" -o "$out/vmas_${n}_4k.json"
done
n=$((maxn < 4096 ? maxn : 4096))
echo "== $n gap pages, with and without a batch over them"
"$bin/userptr-bench" -n "$n" --gap-probe -r "$reps" -o "$out/gap_probe.json"
# HMM's read of a present range, as test_hmm's snapshot reads it
if modprobe test_hmm; then
	for n in 4096 8192; do
		[ "$n" -le "$maxn" ] || continue
		echo "== HMM_DMIRROR_SNAPSHOT of $n present pages"
		"$bin/hmm-snapshot" -n "$n" -r "$reps" >"$out/hmm_snapshot_$n.json"
		echo "== the same with hmm_range_read_many() first"
		"$bin/hmm-snapshot" -n "$n" -r "$reps" -m \
			>"$out/hmm_snapshot_read_many_$n.json"
	done
fi
if [ -n "$gpusvm" ] && load_gpusvm "$gpusvm"; then
	gpusvm_rows "$out" "$reps" "$maxn" default
fi
