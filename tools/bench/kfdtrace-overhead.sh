#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost of tracing, to the workload traced and to the rest of the
# machine. A benchmark, not a test: it reports, it does not assert. Run it
# in the guest (the emulated device is loaded if it is not), counting
# instructions (exact ratios from one round, whatever the host does) or
# by the wall clock:
#
#   scripts/vm-run --flavour bench --icount --mem 4096 --no-kmemleak -- tools/bench/kfdtrace-overhead.sh [ROUNDS]
#   scripts/vm-run --flavour bench --mem 4096 -- tools/bench/kfdtrace-overhead.sh [ROUNDS]
#
# 1. The workload traced: userptr-bench (4096 scattered 4 KiB ranges
#    registered one by one, 4096 ioctls, and as one batch, one ioctl;
#    then a restore after one range is invalidated), ROUNDS times in turn
#    without tracing; with empty programs on the syscalls tracepoints
#    sys_enter_ioctl and sys_exit_ioctl (bpftrace; the floor of counting
#    at those attach points, which kfdtrace -S and kfdtrace before
#    driver-entry counting use); with empty fentry and fexit programs on
#    the device's ioctl entry (the driver floor: what those attach points
#    cost before kfdtrace's programs do anything); under `kfdtrace record` (the devices'
#    ioctls at their drivers' entry); under `kfdtrace record -a` (also
#    the HMM and notifier probes) and under `kfdtrace record -S` (every
#    ioctl at the syscalls tracepoints, the fallback). What is timed is
#    what userptr-bench times (its median of REPS), so that loading the
#    probes (seconds under TCG) is not counted.
# 2. The rest of the machine: an unrelated syscall-heavy process (dd
#    copying SYSCALL_BYTES bytes one byte at a time from /dev/zero to
#    /dev/null: a read and a write a byte, no ioctl), timed without
#    tracing, then while `kfdtrace record` follows another command (a
#    sleep: dd is neither followed nor a device's caller), then while
#    `kfdtrace record -S` does. Its time is the guest clock around dd.
#
# Per row the median of the rounds and the overheads in percent. Then
# one more traced run with the kernel's BPF statistics on gives each
# probe's own run time. Example output: docs/results/kfdtrace-overhead.md.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-3}
reps=${REPS:-5}
sysbytes=${SYSCALL_BYTES:-200000}
. "$top/tools/bench/bench-guest.sh"
bench=$bin/userptr-bench
kfdtrace=$bin/kfdtrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(-n 4096 -s 4k -m per-range -m batch -k 1 -r "$reps")

# the floor: sys_enter_ioctl and sys_exit_ioctl as kfdtrace -S attaches
# them (tracepoint programs on the perf-event path), each with a program
# that does nothing. bpftrace starts faster without clang-14 in PATH (see
# guest-kfdtrace.sh).
bpftrace=$(command -v bpftrace) || { echo "kfdtrace-overhead: needs bpftrace" >&2; exit 1; }
floor() {
	PATH=/nonexistent "$bpftrace" -c "$*" \
		-e 'tracepoint:syscalls:sys_enter_ioctl { } tracepoint:syscalls:sys_exit_ioctl { }'
}

# the floor of counting at the device's driver entry: an empty fentry
# and fexit program on uemu_ioctl (bpftrace's kfunc and kretfunc), where
# kfdtrace counts by default; "-" where bpftrace cannot attach them
floor_drv() {
	PATH=/nonexistent "$bpftrace" -c "$*" \
		-e 'kfunc:userptr_emu:uemu_ioctl { } kretfunc:userptr_emu:uemu_ioctl { }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() {	# field FILE MODE WHAT: WHAT's median in us
	jq -r --arg m "$2" --arg w "$3" '.modes[$m][$w].median_us' "$1"
}
pct() { echo "($2 - $1) * 100 / $1" | bc -l; }

# the unrelated process: dd's time in us, by the guest's clock
syscall_heavy() {
	local t0 t1

	t0=$EPOCHREALTIME
	dd if=/dev/zero of=/dev/null bs=1 count="$sysbytes" status=none
	t1=$EPOCHREALTIME
	echo "(${t1/./} - ${t0/./})" | bc
}

# syscall_heavy_under OUT KFDTRACE-OPTIONS...: dd's time while kfdtrace
# records (following a sleep), once its probes are live
syscall_heavy_under() {
	local out=$1 pid i
	shift
	"$kfdtrace" record "$@" -- sleep 100000 >/dev/null 2>"$tmp/kt.err" &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^kfdtrace: probes live' "$tmp/kt.err" && break
		sleep 0.1
	done
	grep -q '^kfdtrace: probes live' "$tmp/kt.err" ||
		{ cat "$tmp/kt.err" >&2; kill "$pid"; return 1; }
	# and its command started: the exec of sleep is not dd's to pay
	for ((i = 0; i < 600; i++)); do
		pgrep -P "$pid" -x sleep >/dev/null && break
		sleep 0.1
	done
	sleep 1
	syscall_heavy >"$out"
	kill -INT "$pid"
	wait "$pid" || true
}

for ((i = 1; i <= rounds; i++)); do
	"$bench" "${args[@]}" -o "$tmp/plain.$i.json" >/dev/null
	floor "$bench" "${args[@]}" -o "$tmp/floor.$i.json" >/dev/null 2>&1
	floor_drv "$bench" "${args[@]}" -o "$tmp/floordrv.$i.json" >"$tmp/floordrv.err" 2>&1 ||
		{ tail -n 3 "$tmp/floordrv.err"; echo '{}' >"$tmp/floordrv.$i.json"; }
	"$kfdtrace" record -o "$tmp/trace.$i.json" -- \
		"$bench" "${args[@]}" -o "$tmp/traced.$i.json" >/dev/null 2>&1
	"$kfdtrace" record -a -o "$tmp/trace-a.$i.json" -- \
		"$bench" "${args[@]}" -o "$tmp/all.$i.json" >/dev/null 2>&1
	"$kfdtrace" record -S -o "$tmp/trace-S.$i.json" -- \
		"$bench" "${args[@]}" -o "$tmp/sys.$i.json" >/dev/null 2>&1
	echo "round $i: ioctls counted at: record $(jq -c .ioctl.counted_at "$tmp/trace.$i.json")," \
	     "-S $(jq -c .ioctl.counted_at "$tmp/trace-S.$i.json")"
	for m in per-range batch; do
		echo "round $i: $m register: plain $(field "$tmp/plain.$i.json" $m register) us," \
		     "floor $(field "$tmp/floor.$i.json" $m register)," \
		     "driver floor $(field "$tmp/floordrv.$i.json" $m register)," \
		     "traced $(field "$tmp/traced.$i.json" $m register)," \
		     "-a $(field "$tmp/all.$i.json" $m register)," \
		     "-S $(field "$tmp/sys.$i.json" $m register)"
	done
	syscall_heavy >"$tmp/dd-plain.$i"
	syscall_heavy_under "$tmp/dd-traced.$i"
	syscall_heavy_under "$tmp/dd-sys.$i" -S
	echo "round $i: dd of $sysbytes bytes one at a time: plain $(cat "$tmp/dd-plain.$i") us," \
	     "under record $(cat "$tmp/dd-traced.$i"), under record -S $(cat "$tmp/dd-sys.$i")"
done

# floor: the syscalls tracepoints' (of -S); dfloor: the driver entry's
printf '%-22s %9s %9s %9s %9s %9s %9s %7s %7s %7s %7s %7s\n' "median of $rounds rounds" \
	"plain_us" "floor_us" "dfloor_us" "traced_us" "-a_us" "-S_us" "floor" "dfloor" "traced" \
	"-a" "-S"
for m in per-range batch; do
	for w in register restore_k1; do
		for run in plain floor floordrv traced all sys; do
			declare "$run=$(for ((i = 1; i <= rounds; i++)); do
				field "$tmp/$run.$i.json" $m $w; done | grep -v null | median)"
		done
		printf '%-22s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %6.1f%% %6.1f%% %6.1f%% %6.1f%% %6.1f%%\n' \
			"$m $w" "$plain" "$floor" "${floordrv:-0}" "$traced" "$all" "$sys" \
			"$(pct "$plain" "$floor")" "$(pct "$plain" "${floordrv:-$plain}")" \
			"$(pct "$plain" "$traced")" "$(pct "$plain" "$all")" "$(pct "$plain" "$sys")"
	done
done
for run in plain traced sys; do
	declare "$run=$(cat "$tmp"/dd-$run.* | median)"
done
printf '%-22s %9.1f %9s %9s %9.1f %9s %9.1f %7s %7s %6.1f%% %7s %6.1f%%\n' \
	"unrelated dd (syscalls)" "$plain" - - "$traced" - "$sys" - - "$(pct "$plain" "$traced")" - \
	"$(pct "$plain" "$sys")"

# where the probes' own time goes: one more traced run (-a: all of them) with the kernel's
# BPF run-time statistics on (they cost a little themselves, so this run is
# not one of the timed ones)
echo "probe cost (the programs' own run time, one traced run):"
"$kfdtrace" record -a -C -- "$bench" "${args[@]}" -r 1 2>&1 >/dev/null |
	sed -n '/^probe /,/^all /p'
