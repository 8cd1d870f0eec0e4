#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The floor of a batch registration, against the size of guest RAM: how
# close to one contiguous range the virgl blob could register in any
# design that reads its ranges' pages from the page tables. The helper is
# built as a module of its own with tools/bench/registration-floor.patch
# (never in the series), which times prepare's two passes over the ranges
# (the read and checks of each range; the sort, overlap check and windows)
# and then reads the batch's pages the leanest way a registration could:
# a VMA check, a cached descent to each PTE table, a check and a store a
# page, no HMM, no notifier, no fault, in address order and in device
# order. In one bench guest that counts instructions (scripts/vm-run
# --icount), userptr-virgl -O registers the blob and the contiguous
# reference, once with the series' helper as it is, then with the floor's
# measurements on.
#
#   tools/bench/registration-floor.sh [-R] [-r REPS] [-n PAGES]... OUTDIR
#
# REPS repetitions a way (default 5), PAGES the blob's size (default 4096
# and 8192); -R prints the tables of OUTDIR's results again, no guest.
# Prints, per guest RAM, the series' batch / contiguous and its
# instructions a range (an iovec) beyond the contiguous registration; the
# floor's parts a range beyond what the contiguous range's one range
# costs (the walk also with each PTE table mapped by pte_offset_map(), as
# HMM must map it); and the ratio to the contiguous registration (C, the series') of
# three floors:
# C plus the walk alone (no read, check or sort of the ranges at all); C
# plus the checks and a walk in device order (no sort: no overlap check,
# no notifier windows); C plus the checks, the series' sort and windows
# and a walk in address order; then both registrations in thousands of
# instructions, and the series' batch against that last floor, and
# against it with the walk that maps its tables. Host side;
# about 10 minutes.
# Example (2026-12-03, bench kernel, N = 4096):
#
#   | guest RAM | iovecs | the series | the series, a range | checks | sort, windows | walk | walk, device order | walk, tables mapped | floor: walk | floor: checks, walk in device order | floor: checks, sort, walk | batch (k) | contiguous (k) | the series / its floor | the series / its floor, tables mapped |
#   | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
#   | 16384 MiB | 3048 | 4.97 | 299 | 40 | 78 | 83 | 119 | 114 | 2.1 | 3.12 | 3.67 | 1140 | 229 | 1.35 | 1.22 |
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rams="64 256 1024 2048 16384"

if [ "${1:-}" = --guest ]; then
	# in the guest: OUT REPS PAGES...
	out=$2 reps=$3
	shift 3
	. "$top/tools/bench/helper-modules.sh"
	helper_load "$top/build/registration-floor"
	. "$top/tools/bench/bench-guest.sh"
	p=/sys/module/drm_userptr_batch/parameters
	for n in "$@"; do
		for ram in $rams; do
			touch=$(virgl_touch "$ram")
			virgl=("$bin/userptr-virgl" -O -n "$n" -G "$ram" --touch "$touch" -r "$reps")
			echo 0 >$p/floor_enable
			"${virgl[@]}" -w batch -w contiguous -o "$out/series_${n}_$ram.json" >/dev/null
			echo 1 >$p/floor_enable
			for way in batch contiguous; do
				echo 0 >$p/floor_at
				"${virgl[@]}" -w $way -o /dev/null >/dev/null
				# the ring's slots, one a prepare (the warm-up's included)
				jq -n --arg r "$(cat $p/floor_nranges)" --arg f "$(cat $p/floor_fill_ns)" \
					--arg o "$(cat $p/floor_order_ns)" --arg w "$(cat $p/floor_walk_ns)" \
					--arg d "$(cat $p/floor_devwalk_ns)" \
					--arg m "$(cat $p/floor_mapwalk_ns)" \
					'def a: split(",") | map(tonumber);
					 {nranges: ($r | a), fill: ($f | a), order: ($o | a),
					  walk: ($w | a), devwalk: ($d | a), mapwalk: ($m | a)}' \
					>"$out/floor_${n}_${ram}_$way.json"
			done
			echo 0 >$p/floor_enable
		done
	done
	exit 0
fi

. "$top/scripts/lib.sh"
. "$top/tools/bench/helper-modules.sh"
# the helper instrumented, built and loaded in a bench guest: OUTDIR's JSON
run_guest() {
	local d=$BUILD/registration-floor O
	O=$(kobj bench)
	[ -f "$O/Module.symvers" ] || die "no bench kernel: run 'make kernel FLAVOUR=bench' first"
	make -s -C "$top" build/bin/userptr-virgl >/dev/null

	helper_tree "" "$d"
	patch -s -d "$d" -p1 <"$top/tools/bench/registration-floor.patch" ||
		die "registration-floor.patch does not apply to the series' helper"
	helper_build "$O" "$d"

	rm -rf "$out" && mkdir -p "$out"
	# 2 GiB of guest RAM touched, beside the kernel's
	"$top/scripts/vm-run" --flavour bench --icount --no-kmemleak --mem 4096 --timeout 3000 \
		--out "$out" -- "$0" --guest "$out" "$reps" "${sizes[@]}" >"$out/guest.log" 2>&1 ||
		die "the guest failed: $out/guest.log"
}

reps=5 sizes=() render=0
while getopts Rr:n: o; do
	case $o in
	R) render=1 ;;
	r) reps=$OPTARG ;;
	n) sizes+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || die "usage: ${0##*/} [-R] [-r REPS] [-n PAGES]... OUTDIR"
[ ${#sizes[@]} -gt 0 ] || sizes=(4096 8192)
out=$(realpath -m "$1")
[ $render -eq 1 ] || run_guest

# a guest nanosecond is an instruction; medians of the ring's slots
for n in "${sizes[@]}"; do
	echo "N = $n: the series' batch / contiguous, a range's instructions beyond" \
		"the contiguous range's, and the floors' ratios to the contiguous registration"
	echo
	echo "| guest RAM | iovecs | the series | the series, a range | checks | sort, windows | walk | walk, device order | walk, tables mapped | floor: walk | floor: checks, walk in device order | floor: checks, sort, walk | batch (k) | contiguous (k) | the series / its floor | the series / its floor, tables mapped |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for ram in $rams; do
		for f in series_${n}_$ram.json floor_${n}_${ram}_batch.json \
			floor_${n}_${ram}_contiguous.json; do
			[ -s "$out/$f" ] || die "no $f: $out/guest.log"
		done
		# a walk that missed a page records 0: the row would be wrong
		jq -e -s '[.[1:][] | (.walk + .devwalk + .mapwalk)[] | select(. == 0)] | length == 0' \
			"$out/series_${n}_$ram.json" "$out/floor_${n}_${ram}_batch.json" \
			"$out/floor_${n}_${ram}_contiguous.json" >/dev/null ||
			die "a floor walk missed a page at $ram MiB: $out"
		jq -r -s --arg ram "$ram" '
			def med: sort | if length % 2 == 1 then .[length / 2 | floor]
				else (.[length / 2 - 1] + .[length / 2]) / 2 end;
			def r2: . * 100 | round / 100;
			.[0] as $s | .[1] as $b | .[2] as $c | $s.iovecs as $k |
			($s.ways.contiguous.register_ms * 1e6) as $C |
			(($b.fill | med) - ($c.fill | med)) as $fill |
			(($b.order | med) - ($c.order | med)) as $order |
			(($b.walk | med) - ($c.walk | med)) as $walk |
			(($b.devwalk | med) - ($c.devwalk | med)) as $dev |
			(($b.mapwalk | med) - ($c.mapwalk | med)) as $map |
			(($s.ways.batch.register_ms * 1e6 - $C) / $k) as $series |
			($s.ways.batch.register_ms * 1e6) as $B |
			"| \($ram) MiB | \($k) | \($B / $C | r2) | \($series | round) | \($fill / $k | round) | \($order / $k | round) | \($walk / $k | round) | \($dev / $k | round) | \($map / $k | round) | \(($C + $walk) / $C | r2) | \(($C + $fill + $dev) / $C | r2) | \(($C + $fill + $order + $walk) / $C | r2) | \($B / 1000 | round) | \($C / 1000 | round) | \($B / ($C + $fill + $order + $walk) | r2) | \($B / ($C + $fill + $order + $map) | r2) |"' \
			"$out/series_${n}_$ram.json" "$out/floor_${n}_${ram}_batch.json" \
			"$out/floor_${n}_${ram}_contiguous.json"
	done
	echo
done
