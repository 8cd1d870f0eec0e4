#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark matrix, run in the guest by `make bench` (scripts/bench):
#
#   tools/bench/bench-matrix.sh OUTDIR [REPS] [MAXN] [GPUSVM_DIR]
#
# userptr-bench for N = 1, 16, 256, 4096, 8192 ranges of 4 KiB, and of
# 2 MiB up to N = 256 (the 2 MiB layouts beyond, 8 GiB and more, do not fit
# the guest), each in the three modes, restoring after invalidating 1 and
# N/2 ranges; one JSON file per row in OUTDIR. Then 4096 and 8192 ranges
# scattered inside one mapping, the contiguous reference cut into a VMA per
# range, the 4096-range batch
# with a notifier per range, and the gap probe (the price of one notifier
# over many ranges for the rest of the process). Then the virgl workload
# (userptr-virgl: batch vs mremap stitching vs per iovec vs one contiguous
# run of guest frames, and the stitching's vm.max_map_count wall), the same
# blobs of 4096 and 8192 pages in guest RAM of 64 MiB to 2 GiB touched whole
# and 16 GiB touched sparsely (the span's rows), and the price of the
# batch's notifiers when 2 GiB of guest RAM outside the blob is discarded.
# Then, with GPUSVM_DIR (the modules scripts/bench built there), the
# registration the way Xe registers a userptr on 7.3 beside the three
# modes (gpusvm_*.json). Then two runs under kfdtrace
# that count what the table cannot: the ioctls of 4096 ranges per range and
# as a batch, and the ranges one restore faults again.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1 reps=${2:-5} maxn=${3:-8192} gpusvm=${4:-}
mkdir -p "$out"
. "$top/tools/bench/bench-guest.sh"
echo "kernel $(uname -r), $(nproc) CPUs, $reps repetitions"

for size in 4k 2m; do
	for n in 1 16 256 4096 8192; do
		[ "$n" -le "$maxn" ] || continue
		[ "$size" = 2m ] && [ "$n" -gt 256 ] && continue
		echo "== $n x $size"
		"$bin/userptr-bench" -n "$n" -s "$size" -k 1 -k half -r "$reps" \
			-o "$out/n${n}_${size}.json"
	done
done

# The same N x 4 KiB with the ranges scattered inside one mapping (a
# guest's RAM in its host process), where the page walk of a batch meets
# one VMA, not one or two per range as in the layout above.
for n in 4096 8192; do
	[ "$n" -le "$maxn" ] || continue
	echo "== $n x 4k, one mapping"
	"$bin/userptr-bench" -n "$n" -s 4k --one-mapping -k 1 -k half -r "$reps" \
		-o "$out/m${n}_4k.json"
done

# The price of the scattered layout's VMAs alone: the contiguous reference
# again with its mapping cut into a VMA per range (one range over N VMAs,
# no gaps), beside the batch of the scattered ranges.
for n in 4096 8192; do
	[ "$n" -le "$maxn" ] || continue
	echo "== $n x 4k, contiguous in a VMA per range"
	"$bin/userptr-bench" -n "$n" -s 4k -m batch -m contiguous --vma-per-range \
		-k 1 -r "$reps" -o "$out/vmas_${n}_4k.json"
done

# The notifier choice, measured: the N = 4096 row of batch and contiguous
# again with a notifier per range (window_gap_kb=0: only ranges that touch
# share one, and no two of this layout do), against the default windows.
# Then the price of a wide notifier for the rest of the process: gap pages
# dropped with and without a batch over them, and memory per range.
n=$((maxn < 4096 ? maxn : 4096))
param=/sys/module/drm_userptr_batch/parameters/window_gap_kb
old=$(cat "$param")
echo 0 >"$param"
echo "== $n x 4k, batch with a notifier per range (window_gap_kb=0)"
"$bin/userptr-bench" -n "$n" -s 4k -m batch -m contiguous -k 1 -r "$reps" \
	-o "$out/w0_${n}_4k.json" || { echo "$old" >"$param"; exit 1; }
echo "$old" >"$param"
echo "== $n gap pages, with and without a batch over them"
"$bin/userptr-bench" -n "$n" --gap-probe -r "$reps" -o "$out/gap_probe.json"

# The published client's workload: a virgl blob of N guest pages in one
# shared memfd mapping of guest RAM, as one batch, as virglrenderer's
# mremap(MREMAP_DONTUNMAP) stitching plus one userptr, per iovec, and the
# reference of one userptr over N neighbouring guest frames; 4 KiB pages in
# short runs, and 2 MiB runs. Then the N at which stitching fails once
# vm.max_map_count is lowered to 1024 (65530 by default: the same wall,
# reached at about 64 times the N).
for n in 16 256 4096 8192; do
	[ "$n" -le "$maxn" ] || continue
	echo "== virgl blob of $n guest pages"
	"$bin/userptr-virgl" -n "$n" -r "$reps" -o "$out/virgl_${n}_4k.json"
done
n=$((maxn < 8192 ? maxn : 8192))
if [ $((n % 512)) -eq 0 ]; then
	echo "== virgl blob of $n guest pages in 2 MiB runs"
	"$bin/userptr-virgl" -n "$n" --huge -r "$reps" -o "$out/virgl_${n}_2m.json"
fi

# The span: the same blobs in guest RAM of 64 MiB to 2 GiB, written whole
# as a running guest's is, and of 16 GiB with only the blob's pages, the
# contiguous run's and every 64th page written (so that it fits the
# guest's 4 GiB: every 2 MiB of it still has its page-table page), for
# the batch's cost against the span of address space its ranges are spread
# over (span_N_MIB.json). The row of 4096 pages in 64 MiB is the run above
# (its default guest RAM), not run twice. Then the wide notifier's price
# at 2 GiB: all guest RAM outside the blob discarded with the batch
# registered and without any registration (gapprice_MIB.json).
for n in 4096 8192; do
	[ "$n" -le "$maxn" ] || continue
	for ram in 64 256 1024 2048 16384; do
		f=$out/span_${n}_${ram}.json
		touch=$(virgl_touch "$ram")
		if [ "$touch" = all ] && [ $((ram << 8)) -eq $((n * 4 < 16384 ? 16384 : n * 4)) ] &&
		   [ -f "$out/virgl_${n}_4k.json" ]; then
			cp "$out/virgl_${n}_4k.json" "$f"
			continue
		fi
		echo "== virgl blob of $n guest pages in $ram MiB of guest RAM, touched $touch"
		"$bin/userptr-virgl" -n "$n" -G "$ram" --touch "$touch" -r "$reps" -o "$f"
	done
done
n=$((maxn < 4096 ? maxn : 4096))
if [ "$n" -ge 16 ]; then
	echo "== the batch's notifiers' price: 2 GiB of guest RAM outside a blob of $n pages discarded"
	"$bin/userptr-virgl" -n "$n" -G 2048 --gap-price -r "$reps" -o "$out/gapprice_2048.json" ||
		echo "gap price: the batch saw an eviction or a step failed (above)"
fi

old=$(cat /proc/sys/vm/max_map_count)
echo 1024 >/proc/sys/vm/max_map_count
echo "== virgl stitching against vm.max_map_count = 1024"
"$bin/userptr-virgl" --map-limit -n 8192 | tee "$out/virgl_map_limit.txt" ||
	{ echo "$old" >/proc/sys/vm/max_map_count; exit 1; }
echo "$old" >/proc/sys/vm/max_map_count

# drm_gpusvm, as Xe registers a userptr on 7.3: a drm_gpusvm_pages and a
# notifier per range (tools/bench/gpusvm), in one run with per-range,
# batch and contiguous, on the scattered layout, inside one mapping, and
# the virgl blob in its default guest RAM and in 2 GiB (registration and
# teardown: the module reads nothing)
if [ -n "$gpusvm" ] && load_gpusvm "$gpusvm"; then
	gpusvm_rows "$out" "$reps" "$maxn" default 2048
fi

# The render-node route (the design amdkfd's maintainers asked for): the
# same batch as a GEM userptr of the render node with a ranges array,
# taken over by the device's file (2 ioctls), and a GEM userptr per range
# (2 a range), beside the device's own per-range and batch ioctls
for n in 256 4096 8192; do
	[ "$n" -le "$maxn" ] || continue
	echo "== $n x 4k: per-range, batch, render and render-per-range"
	"$bin/userptr-bench" -n "$n" -s 4k -m per-range -m batch -m render -m render-per-range \
		-k 1 -r "$reps" -o "$out/render_${n}_4k.json"
done

# Christian's limits: the curve from 64 MiB to 2 GiB under reclaim
# (bench-pressure.sh, pressure_MIB.json)
"$top/tools/bench/bench-pressure.sh" "$out"

# what the trace counts: registration ioctls, and the ranges a restore
# after one invalidation faults again (registration faults all N first)
n=$((maxn < 4096 ? maxn : 4096))
for mode in per-range batch render; do
	echo "== kfdtrace: $n x 4k, $mode, restore after 1 invalidation"
	"$bin/kfdtrace" record -o "$out/trace_${mode}.json" -- \
		"$bin/userptr-bench" -n "$n" -s 4k -m "$mode" -k 1 -r 1 -W |
		grep -E '^(registration|ranges|ioctl|fault)' || true
done
