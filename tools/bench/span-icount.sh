#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The virgl blob against the size of guest RAM (make bench's span rows),
# counted in instructions: userptr-virgl -O registers and frees the blob
# as one batch, as one ioctl per iovec and as one contiguous range, at
# 64 MiB to 16 GiB of guest RAM, in guests of the bench kernel under
# scripts/vm-run --icount, where the guest's clock advances a nanosecond
# an instruction: the times are thousands of instructions, the same on
# every run whatever the host does, so a change of a few percent shows.
#
#   tools/bench/span-icount.sh [-r REPS] [-n PAGES]... OUTDIR
#
# REPS repetitions a way (default 5: the medians are printed), PAGES the
# blob's size (default 4096 and 8192, one guest each, side by side).
# Above 2 GiB only the blob's pages and a sample are touched, as make
# bench does. Prints one markdown table a size; OUTDIR keeps the JSON of
# each row (span_PAGES_MIB.json) and the guests' logs. Host side; about
# 10 minutes with the defaults.
# Example (2026-11-28, bench kernel, N = 4096; thousands of instructions):
#
#   | guest RAM | iovecs | batch | per-iovec | contiguous | batch / contiguous | per-iovec / batch |
#   | --- | --- | --- | --- | --- | --- | --- |
#   | 2048 MiB | 3052 | 1507 | 21036 | 405 | 3.72 | 13.96 |
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
rams="64 256 1024 2048 16384"

if [ "${1:-}" = --guest ]; then
	# in the guest: OUT REPS PAGES
	out=$2 reps=$3 n=$4
	. "$top/tools/bench/bench-guest.sh"
	for ram in $rams; do
		touch=$(virgl_touch "$ram")
		"$bin/userptr-virgl" -O -n "$n" -G "$ram" --touch "$touch" \
			-w batch -w per-range -w contiguous -r "$reps" \
			-o "$out/span_${n}_${ram}.json" >/dev/null
	done
	exit 0
fi

reps=5 sizes=()
while getopts r:n: o; do
	case $o in
	r) reps=$OPTARG ;;
	n) sizes+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: ${0##*/} [-r REPS] [-n PAGES]... OUTDIR" >&2; exit 2; }
[ ${#sizes[@]} -gt 0 ] || sizes=(4096 8192)
out=$(realpath -m "$1")
mkdir -p "$out"
make -s -C "$top" build/bin/userptr-virgl >/dev/null

pids=()
for n in "${sizes[@]}"; do
	d=$out/n$n
	rm -rf "$d" && mkdir -p "$d"
	# 2 GiB of guest RAM touched, beside the kernel's
	"$top/scripts/vm-run" --flavour bench --icount --no-kmemleak --mem 4096 \
		--out "$d" -- "$0" --guest "$d" "$reps" "$n" >"$d.log" 2>&1 &
	pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
for n in "${sizes[@]}"; do
	for ram in $rams; do
		f=$out/n$n/span_${n}_${ram}.json
		if [ $fail -ne 0 ] || [ ! -s "$f" ]; then
			echo "${0##*/}: the guest of $n pages failed: $out/n$n.log" >&2
			tail -n 5 "$out/n$n.log" >&2
			exit 1
		fi
	done
done

# register_ms is a median of REPS; a millisecond is a million instructions
for n in "${sizes[@]}"; do
	echo "N = $n, thousands of instructions a registration (median of $reps, QEMU -icount, bench kernel)"
	echo
	echo "| guest RAM | iovecs | batch | per-iovec | contiguous | batch / contiguous | per-iovec / batch |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	for ram in $rams; do
		jq -r --arg ram "$ram" '
			[.ways.batch.register_ms, .ways["per-range"].register_ms,
			 .ways.contiguous.register_ms] as [$b, $p, $c] |
			"| \($ram) MiB | \(.iovecs) | \($b * 1000 | round) | \($p * 1000 | round) | \($c * 1000 | round) | \($b / $c * 100 | round / 100) | \($p / $b * 100 | round / 100) |"' \
			"$out/n$n/span_${n}_${ram}.json"
	done
	echo
done
