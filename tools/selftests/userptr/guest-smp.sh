#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The batch userptr protocol on two or more CPUs at once: the series'
# selftests of its test device (the invalidation scenarios, the windows,
# the sparse spans, the storm) through the kselftest runner, then the race
# test, userptr-stress with each thread pinned to a CPU in turn: two
# mutators invalidating (munmap and a new mapping, MADV_DONTNEED once or
# twice, mprotect and back, fork and copy-on-write, mremap, MADV_PAGEOUT)
# and writing
# through the device, two readers checking every device read against the
# CPU's data, and a thread registering and freeing batches of its own on a
# second open of the device, while the restore worker runs; the leak
# counters of both opens at the end. guest-inject.sh shows that each
# fault-injection switch makes the race test fail.
#
# Runs inside a guest with --smp 2 or more (scripts/vm-run: one host
# thread per vCPU). Nothing here switches a tracepoint, kprobe or BPF
# program on: such a guest must not patch kernel code while it runs (see
# scripts/vm-run). Prints TAP lines.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
. "$top/tools/selftests/userptr/lib.sh"

cpus=$(nproc)
if [ "$cpus" -ge 2 ]; then
	tap_ok "the guest has $cpus CPUs"
else
	tap_fail "the guest has $cpus CPU: run it with scripts/vm-run --smp 2"
fi

# swap on zram, for the MADV_PAGEOUT test (as in guest-userptr.sh)
if [ -e /sys/block/zram0/disksize ] && ! grep -q zram0 /proc/swaps; then
	echo 512M >/sys/block/zram0/disksize &&
		mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
		echo "# zram swap could not be set up"
fi

# the selftests, each test's line lifted from the runner's nesting (as in
# guest-userptr.sh)
eval "$(sed -n '/^kselftests() {/,/^}/p' "$top/tools/selftests/userptr/guest-userptr.sh")"
kselftests

# the race test: a bounded run, every read checked, nothing left behind;
# RACE_SECONDS to make it longer
race() {
	local out rc=0
	out=$("$top/build/bin/userptr-stress" -n 64 -s 16k -d "${RACE_SECONDS:-40}" \
		-m 2 -t 2 -b -P -a all -T 60000 2>&1) || rc=$?
	tap_diag <<<"$out"
	if [ $rc -eq 0 ] && has_line 'PASS$' <<<"$out" &&
	   has_line 'batches registered and freed [1-9]' <<<"$out"; then
		tap_ok "race test on $cpus CPUs: no stale read, no error, nothing left registered"
	else
		tap_fail "race test on $cpus CPUs (exit $rc)"
	fi
}
if tap_run "modprobe userptr_emu" load_emu; then
	race
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu
fi
[ $TAP_FAILED -eq 0 ]
