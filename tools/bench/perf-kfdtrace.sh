#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where kfdtrace's overhead goes: perf samples (cpu-clock, kernel call
# chains) of userptr-bench registering N scattered 4 KiB ranges one by one,
# ROUNDS times, once plain and once under `kfdtrace record`. Only the
# workload's own task is sampled (perf is kfdtrace's command, userptr-bench
# perf's), so kfdtrace's loading and its reader do not count: what differs
# is what the probes add to each ioctl. Run it in the guest on the bench
# kernel, with a results directory:
#
#   scripts/vm-run --flavour bench --mem 4096 --out build/perf-kfdtrace -- \
#           tools/bench/perf-kfdtrace.sh [N] [ROUNDS]
#
# It prints the samples of each run (4000 a second of CPU time), then the
# symbols whose self time tracing added to, most first, and leaves both perf.data files and the guest's kallsyms in the results
# directory for perf report on the host.
set -eu
export LC_ALL=C	# join and sort agree on the order of symbols
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-4096}
rounds=${2:-10}
. "$top/tools/bench/perf-guest.sh"

bench=("$bin/userptr-bench" -n "$n" -s 4k -m per-range -r "$rounds" -W)
prof() {	# $1: perf.data name, then the command before perf, if any
	local data=$out/$1
	shift
	"$@" perf record -q -e cpu-clock -F 4000 -g -o "$data" -- \
		"${bench[@]}" -o "$data.json" >/dev/null
}
prof plain.data
prof traced.data "$bin/kfdtrace" record -o "$out/kfdtrace.json" --

report() {
	perf report -i "$out/$1" --kallsyms "$out/kallsyms" --comm userptr-bench \
		--stdio -g none "${@:2}" 2>/dev/null | grep -v '^$'
}
samples() {
	report "$1" --sort comm --no-children -n | awk '!/^#/ && $3 == "userptr-bench" { print $2 }'
}
median() {
	jq -r '.modes["per-range"].register.median_us' "$out/$1.json"
}
p=$(samples plain.data) t=$(samples traced.data)
echo "== per-range registration of $n ranges, $rounds rounds"
echo "plain:  ${p:-0} samples, registration median $(median plain.data) us"
echo "traced: ${t:-0} samples, registration median $(median traced.data) us"
# samples by symbol, self time: "SAMPLES SYMBOL" lines
bysym() {
	report "$1" --sort sym --no-children -n | awk '$1 ~ /%$/ { s = $4; for (i = 5; i <= NF; i++) s = s " " $i; print $2, s }'
}
echo "== what tracing added: samples by symbol, traced minus plain (self time)"
echo "   (the traced run took $((${t:-0} - ${p:-0})) more; 4000 samples a second)"
join -1 2 -2 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 \
	<(bysym traced.data | sort -k2) <(bysym plain.data | sort -k2) |
	awk '{ d = $2 - $3; if (d >= 20) printf "%8d  %8d  %8d  %s\n", d, $2, $3, $1 }' |
	sort -rn | head -n 30 | sed '1i\   added    traced     plain  symbol'
