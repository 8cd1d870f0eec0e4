#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost of tracing: userptr-bench run ROUNDS times in turn without
# tracing, with empty programs on the syscalls tracepoints that kfdtrace's
# ioctl accounting uses (bpftrace; the floor: what those two attach points
# cost any tool before its programs do anything), under `kfdtrace record`
# (the default probes) and under `kfdtrace record -a` (also the HMM and
# notifier probes), and per mode the median registration and restore times
# of each and the overheads in percent. A benchmark, not a test: it
# reports, it does not assert. Run it in the guest (the emulated device is
# loaded if it is not):
#
#   scripts/vm-run --flavour bench --mem 4096 -- tools/bench/kfdtrace-overhead.sh [ROUNDS]
#
# The workload registers 4096 scattered 4 KiB ranges one by one (4096
# ioctls, each crossing the ioctl and helper probes, and with -a the HMM
# and notifier probes) and as one batch (one ioctl; with -a the HMM and
# notifier probes 4096 times), and restores one invalidated range. What
# is timed is what userptr-bench times (its median of REPS), so that
# loading the probes (seconds under TCG) does not count as overhead.
# Then one more traced run with the kernel's BPF statistics on gives each
# probe's own run time.
#
# Example output: see docs/kfdtrace.md (the probe table follows).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-3}
reps=${REPS:-5}
. "$top/tools/bench/bench-guest.sh"
bench=$bin/userptr-bench
kfdtrace=$bin/kfdtrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(-n 4096 -s 4k -m per-range -m batch -k 1 -r "$reps")

# the floor: sys_enter_ioctl and sys_exit_ioctl, as kfdtrace attaches
# them (tracepoint programs on the perf-event path), each with a program
# that does nothing. Debian's bpftrace 0.17 has no raw tracepoints, so the
# helper's tracepoints are not in it. bpftrace starts faster without
# clang-14 in PATH (see guest-kfdtrace.sh).
bpftrace=$(command -v bpftrace) || { echo "kfdtrace-overhead: needs bpftrace" >&2; exit 1; }
floor() {
	PATH=/nonexistent "$bpftrace" -c "$*" \
		-e 'tracepoint:syscalls:sys_enter_ioctl { } tracepoint:syscalls:sys_exit_ioctl { }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() {	# field FILE MODE WHAT: WHAT's median in us
	jq -r --arg m "$2" --arg w "$3" '.modes[$m][$w].median_us' "$1"
}

for ((i = 1; i <= rounds; i++)); do
	"$bench" "${args[@]}" -o "$tmp/plain.$i.json" >/dev/null
	floor "$bench" "${args[@]}" -o "$tmp/floor.$i.json" >/dev/null 2>&1
	"$kfdtrace" record -o "$tmp/trace.$i.json" -- \
		"$bench" "${args[@]}" -o "$tmp/traced.$i.json" >/dev/null 2>&1
	"$kfdtrace" record -a -o "$tmp/trace-a.$i.json" -- \
		"$bench" "${args[@]}" -o "$tmp/all.$i.json" >/dev/null 2>&1
	for m in per-range batch; do
		echo "round $i: $m register: plain $(field "$tmp/plain.$i.json" $m register) us," \
		     "floor $(field "$tmp/floor.$i.json" $m register)," \
		     "traced $(field "$tmp/traced.$i.json" $m register)," \
		     "-a $(field "$tmp/all.$i.json" $m register)"
	done
done

pct() { echo "($2 - $1) * 100 / $1" | bc -l; }
printf '%-22s %9s %9s %9s %9s %7s %7s %7s\n' "median of $rounds rounds" "plain_us" \
	"floor_us" "traced_us" "-a_us" "floor" "traced" "-a"
for m in per-range batch; do
	for w in register restore_k1; do
		for run in plain floor traced all; do
			declare "$run=$(for ((i = 1; i <= rounds; i++)); do
				field "$tmp/$run.$i.json" $m $w; done | median)"
		done
		printf '%-22s %9.1f %9.1f %9.1f %9.1f %6.1f%% %6.1f%% %6.1f%%\n' "$m $w" \
			"$plain" "$floor" "$traced" "$all" "$(pct "$plain" "$floor")" \
			"$(pct "$plain" "$traced")" "$(pct "$plain" "$all")"
	done
done

# where the probes' own time goes: one more traced run (-a: all of them) with the kernel's
# BPF run-time statistics on (they cost a little themselves, so this run is
# not one of the timed ones)
echo "probe cost (the programs' own run time, one traced run):"
"$kfdtrace" record -a -C -- "$bench" "${args[@]}" -r 1 2>&1 >/dev/null |
	sed -n '/^probe /,/^all /p'
