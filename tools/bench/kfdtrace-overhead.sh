#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost of tracing: userptr-bench run ROUNDS times alternately without
# and under `kfdtrace record`, and per mode the median registration time of
# each and the overhead in percent. A benchmark, not a test: it reports, it
# does not assert. Run it in the guest (the emulated device is loaded if it
# is not):
#
#   scripts/vm-run --flavour bench --mem 4096 -- tools/bench/kfdtrace-overhead.sh [ROUNDS]
#
# The workload registers 4096 scattered 4 KiB ranges one by one (4096
# ioctls, each crossing the ioctl, HMM, notifier, helper and device probes)
# and as one batch (one ioctl, the per-range probes 4096 times), and
# restores one invalidated range. What is timed is what userptr-bench
# times (its median of REPS), so that loading the probes (seconds under
# TCG) does not count as overhead. Then one more traced run with the
# kernel's BPF statistics on gives each probe's own run time.
#
# Example output (bench kernel, TCG guest, 3 rounds; the probe table
# follows):
#   median of 3 rounds         plain_us    traced_us  overhead
#   per-range register         101201.1     267983.2    164.8%
#   per-range restore_k1         2105.8       2168.0      3.0%
#   batch register              44365.7      71737.7     61.7%
#   batch restore_k1             2408.6       3132.5     30.1%
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-3}
reps=${REPS:-5}
bench=$top/build/bin/userptr-bench
kfdtrace=$top/build/bin/kfdtrace
if [ ! -e /dev/userptr_emu ]; then
	. "$top/tools/selftests/userptr/lib.sh"
	load_emu
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(-n 4096 -s 4k -m per-range -m batch -k 1 -r "$reps")

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() {	# field FILE MODE WHAT: WHAT's median in us
	jq -r --arg m "$2" --arg w "$3" '.modes[$m][$w].median_us' "$1"
}

for ((i = 1; i <= rounds; i++)); do
	"$bench" "${args[@]}" -o "$tmp/plain.$i.json" >/dev/null
	"$kfdtrace" record -o "$tmp/trace.$i.json" -- \
		"$bench" "${args[@]}" -o "$tmp/traced.$i.json" >/dev/null 2>&1
	echo "round $i: per-range $(field "$tmp/plain.$i.json" per-range register) us," \
	     "traced $(field "$tmp/traced.$i.json" per-range register) us;" \
	     "batch $(field "$tmp/plain.$i.json" batch register) us," \
	     "traced $(field "$tmp/traced.$i.json" batch register) us"
done

printf '%-22s %12s %12s %9s\n' "median of $rounds rounds" "plain_us" "traced_us" "overhead"
for m in per-range batch; do
	for w in register restore_k1; do
		p=$(for ((i = 1; i <= rounds; i++)); do field "$tmp/plain.$i.json" $m $w; done | median)
		t=$(for ((i = 1; i <= rounds; i++)); do field "$tmp/traced.$i.json" $m $w; done | median)
		printf '%-22s %12.1f %12.1f %8.1f%%\n' "$m $w" "$p" "$t" \
			"$(echo "($t - $p) * 100 / $p" | bc -l)"
	done
done

# where the probes' own time goes: one more traced run with the kernel's
# BPF run-time statistics on (they cost a little themselves, so this run is
# not one of the timed ones)
echo "probe cost (the programs' own run time, one traced run):"
"$kfdtrace" record -c -- "$bench" "${args[@]}" -r 1 2>&1 >/dev/null |
	sed -n '/^probe /,/^all /p'
