#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where a registration's instructions go, function by function, counted
# exactly: userptr-virgl registers and frees one way's blob (-O: no reads,
# no restores) in two guests of the bench kernel under QEMU's TCG plugin
# tools/bench/icount_plugin.c, one with 1 repetition and one with 11; the
# difference of their counts is 10 registrations and teardowns and nothing
# else (boot, the guest RAM's fill and the warm-up cancel out). perf in a
# TCG guest samples where QEMU takes the timer interrupt, at the end of a
# translated block: its shares of the helper's loops were off by a factor
# of two or more (docs/results/analysis.md).
#
#   tools/bench/icount-profile.sh [-w WAY] [-G MIB] [-n PAGES] [-t TOP]
#                                 [-k KFDTRACE-ARGS] [-x VIRGL-ARGS] OUTDIR
#
# WAY is batch (default), contiguous, per-range or stitch; MIB the guest
# RAM (default 2048; above 2048 only the blob's pages and a sample are
# touched, as make bench does); TOP how many functions to list (default
# 25); with -k, the workload runs under `kfdtrace record KFDTRACE-ARGS`
# (e.g. -k "" or -k -a) and the BPF programs and trampolines are listed
# by name (bpf_prog_TAG_NAME, bpf_trampoline_ID); -x passes more options
# to userptr-virgl (e.g. -x --huge for runs of 2 MiB). Prints, per function,
# the instructions of one registration and teardown, and the same per
# iovec and per page of the blob; OUTDIR keeps both guests' counts and
# kallsyms. Host side; about 3 minutes at 2 GiB.
# Example (2026-11-28, bench kernel, batch, 2 GiB, 3052 iovecs):
#
#   function                       per reg  per iovec   per page
#   batch_prepare                   357935      117.3       87.4
#   hmm_vma_walk_ptes               257942       84.5       63.0
#   ...
#
# The list includes the teardown and what the workload runs around the
# two (its reads of /proc/self/maps); the scheduler's and the timers'
# functions differ between two guests by a few instructions a range, up
# or down (a negative difference is not listed). The last line is the
# registration alone by the workload's clock, which counts instructions
# under -icount. Needs the QEMU of Debian 12 (plugin API 1).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" = --guest ]; then
	# in the guest: OUT RAM REPS WAY PAGES KFDTRACE-ARGS [VIRGL-ARGS]
	out=$2 ram=$3 reps=$4 way=$5 n=$6 kargs=$7 vargs=${8-}
	. "$top/tools/bench/bench-guest.sh"
	echo 0 >/proc/sys/kernel/kptr_restrict
	# the JIT's programs and trampolines in kallsyms, by name
	echo 1 >/proc/sys/net/core/bpf_jit_kallsyms
	touch=$(virgl_touch "$ram")
	# kallsyms after the workload: with -k, while kfdtrace's programs are loaded
	run="\"$bin/userptr-virgl\" -O -n $n -G $ram --touch $touch -w $way $vargs -r $reps -o \"$out/virgl.json\" >/dev/null &&
		grep -i ' [tw] ' /proc/kallsyms | cut -d' ' -f1,3 | sed 's/\\t.*//' >\"$out/kallsyms\""
	if [ "$kargs" = - ]; then
		bash -c "$run"
	else
		# (word splitting of the arguments is wanted)
		# shellcheck disable=SC2086
		"$bin/kfdtrace" record $kargs -o "$out/kfdtrace.json" -- bash -c "$run"
	fi
	exit 0
fi

way=batch ram=2048 n=4096 ntop=25 kargs=- vargs=
while getopts w:G:n:t:k:x: o; do
	case $o in
	k) kargs=$OPTARG ;;
	x) vargs=$OPTARG ;;
	w) way=$OPTARG ;;
	G) ram=$OPTARG ;;
	n) n=$OPTARG ;;
	t) ntop=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: ${0##*/} [-w WAY] [-G MIB] [-n PAGES] [-t TOP] [-k KFDTRACE-ARGS] [-x VIRGL-ARGS] OUTDIR" >&2; exit 2; }
out=$(realpath -m "$1")
mkdir -p "$out"
make -s -C "$top" build/bin/icount_plugin.so build/bin/userptr-virgl build/bin/kfdtrace >/dev/null
plugin=$top/build/bin/icount_plugin.so
# the guest holds the blob's RAM (all of it up to 2 GiB) and the kernel's
mem=$(( (ram <= 2048 ? ram : 64) + 1536 ))

# one guest per repetition count, both at once (each runs on one host CPU);
# their difference is hi - lo registrations and teardowns
lo=1 hi=11
pids=()
for reps in $lo $hi; do
	d=$out/r$reps
	rm -rf "$d" && mkdir -p "$d"
	# (the guest writes only to its results directory, $d)
	"$top/scripts/vm-run" --flavour bench --icount --no-kmemleak --mem "$mem" \
		--qemu-plugin "$plugin,out=$d/counts" --out "$d" \
		-- "$0" --guest "$d" "$ram" "$reps" "$way" "$n" "$kargs" "$vargs" >"$d.log" 2>&1 &
	pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
for reps in $lo $hi; do
	d=$out/r$reps
	if [ $fail -ne 0 ] || [ ! -s "$d/counts" ] || [ ! -s "$d/virgl.json" ]; then
		echo "${0##*/}: the guest of $reps repetitions failed: $d.log" >&2
		tail -n 5 "$d.log" >&2
		exit 1
	fi
	if grep -q '^#' "$d/counts"; then
		echo "${0##*/}: $d/counts: $(grep '^#' "$d/counts")" >&2
		exit 1
	fi
done

# Each instruction's count goes to the function whose symbol comes before
# it: kallsyms and counts merged in address order (16 hex digits each, so
# a text sort orders them), symbols first at an address.
per_function() {	# DIR
	{
		sed 's/^\([0-9a-f]*\) /\1 0 /' "$1/kallsyms"
		sed 's/^\([0-9a-f]*\) /\1 1 /' "$1/counts"
	} | LC_ALL=C sort -k1,1 -k2,2n | awk '
		$2 == 0 { fn = $3; next }
		{ sum[fn] += $3 }
		END { for (f in sum) print f, sum[f] }'
}
per_function "$out/r$lo" >"$out/r$lo.functions"
per_function "$out/r$hi" >"$out/r$hi.functions"
iovecs=$(jq -r '.iovecs' "$out/r$hi/virgl.json")
[ "$kargs" = - ] || echo "under kfdtrace record $kargs"
echo "userptr-virgl -w $way${vargs:+ $vargs} -n $n -G $ram: $iovecs iovecs; instructions of one registration and teardown, exact (QEMU TCG plugin, bench kernel)"
awk -v iov="$iovecs" -v n="$n" -v ntop="$ntop" -v regs=$((hi - lo)) '
	FNR == NR { a[$1] = $2; next }
	{ d[$1] = ($2 - a[$1]) / regs; delete a[$1] }
	END {
		for (f in a) d[f] = -a[f] / regs
		printf "%-30s %10s %10s %10s\n", "function", "per reg", "per iovec", "per page"
		for (i = 0; i < ntop; i++) {
			best = ""
			for (f in d)
				if (best == "" || d[f] > d[best])
					best = f
			if (best == "" || d[best] < 0.5)
				break
			printf "%-30s %10.0f %10.1f %10.1f\n", best, d[best], d[best] / iov, d[best] / n
			listed += d[best]
			delete d[best]
		}
		printf "%-30s %10.0f %10.1f %10.1f\n", "(listed)", listed, listed / iov, listed / n
	}' "$out/r$lo.functions" "$out/r$hi.functions" | tee "$out/profile.txt"
# the guest clock counts instructions: the registration alone, for the sum
jq -r --arg w "$way" '"registration alone (the workload'"'"'s own clock, median): \(.ways[$w].register_ms * 1e6 | round) instructions; teardown \(.ways[$w].teardown_ms * 1e6 | round)"' \
	"$out/r$hi/virgl.json" | tee -a "$out/profile.txt"
