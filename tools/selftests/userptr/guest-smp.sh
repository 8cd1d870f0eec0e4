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

zram_swap
# the selftests, each test's line lifted from the runner's nesting
kselftests

# the race test, RACE_SECONDS to make it longer
if tap_run "modprobe userptr_emu" load_emu; then
	race_test
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu
fi
[ $TAP_FAILED -eq 0 ]
