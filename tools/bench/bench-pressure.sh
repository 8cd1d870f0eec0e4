#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The memory-pressure curve of make bench, in the bench guest (run by
# bench-matrix.sh; alone: scripts/vm-run --flavour bench --mem 4096 --
# tools/bench/bench-pressure.sh OUTDIR):
#
# Christian's limits: registrations of 64 MiB to 2 GiB (4096 ranges)
# through the render node, read by the device after a hog has locked
# memory until half the registration is in swap, 2 rounds; zram swap
# takes the pushed-out pages (they compress). The curve: progress per round, the
# read's longest and median wait (a restore under reclaim), evictions,
# restores and pages swapped out against the size (pressure_MIB.json).
# The OOM killer's end of such a process is make check's
# (guest/userptr-pressure), not run here.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
mkdir -p "$out"
. "$top/tools/bench/bench-guest.sh"
. "$top/tools/selftests/userptr/lib.sh"
zram_swap 4G
for size in 16k 64k 256k 512k; do
	echo "== pressure: 4096 x $size through the render node, a hog locking half of it out"
	"$bin/userptr-pressure" -n 4096 -s "$size" -r 2 \
		-o "$out/pressure_$(( ${size%k} * 4096 / 1024 )).json" ||
		echo "pressure: 4096 x $size failed (above)"
done
