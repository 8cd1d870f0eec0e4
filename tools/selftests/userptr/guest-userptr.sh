#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest suite of the batch userptr core: the helper's KUnit suite, then the
# emulated device's selftests (with zram swap for the MADV_PAGEOUT test),
# then kfdtrace's ioctl counts against the device, then unloading the
# device, which must leave nothing behind.
# Runs inside the guest (scripts/vm-run), prints TAP lines.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

tap_kunit drm_userptr_batch_test


# swap on zram: the pages of a registered range must be able to leave RAM
if [ -e /sys/block/zram0/disksize ] && ! grep -q zram0 /proc/swaps; then
	echo 512M >/sys/block/zram0/disksize &&
		mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
		echo "# zram swap could not be set up"
fi

. "$top/tools/selftests/userptr/lib.sh"

# bt_expect NAME SCRIPT CMD REGEX...: run bpf/bpftrace/SCRIPT with -c CMD;
# passes when its output has a line matching each REGEX
bt_expect() {
	local name=$1 script=$2 cmd=$3 out re ok=1
	shift 3
	out=$(bpftrace "$top/bpf/bpftrace/$script" -c "$cmd" 2>&1)
	for re in "$@"; do
		printf '%s\n' "$out" | grep -Eq "$re" && continue
		echo "no line matches: $re" | tap_diag
		ok=0
	done
	if [ $ok -eq 1 ]; then
		tap_ok "$name"
	else
		printf '%s\n' "$out" | grep -v '^$' | tail -n 30 | tap_diag
		tap_fail "$name"
	fi
}

# the bpftrace views on the device, with Debian's bpftrace
bpftrace_views() {
	local t=$top/build/bin/userptr_emu_tests

	bt_expect "kfd_ioctl.bt: 16 ranges one by one = 16 calls, batched 1 call of 16" \
		kfd_ioctl.bt "$t -v r16_2m" \
		'^@calls\[userptr_emu_tes, emu_userptr\]: 16$' \
		'^@calls\[userptr_emu_tes, emu_batch\]: 1$' \
		'^@ranges\[userptr_emu_tes, emu_batch\]: 16$'
	bt_expect "hmm_fault.bt: faults of 32 ranges of 2 MiB succeed" \
		hmm_fault.bt "$t -v r16_2m" '^@ret\[0\]: ([3-9][0-9]|[1-9][0-9]{2,})$' \
		'^@pages: ([1-9][0-9]{4,})$'
	bt_expect "userptr_inval.bt: MADV_DONTNEED clears (event 1) and evicts a range" \
		userptr_inval.bt "$t -t madv_dontneed" \
		'^@invalidations\[[0-9]+, 1\]: [1-9]' '^@evicted\[[0-9]+\]: [1-9]'
	bt_expect "userptr_restore.bt: the eviction is followed by a restore" \
		userptr_restore.bt "$t -t madv_dontneed" '^@evict_to_restore_us:' \
		'^@populate_us:'
}
if tap_run "modprobe userptr_emu" load_emu; then
	"$top/build/bin/userptr_emu_tests" || TAP_FAILED=$((TAP_FAILED + 1))
	# kfdtrace against the device (one process of the test, followed
	# through its fork): one alloc ioctl per range, or one for the batch;
	# one notifier and at least one HMM fault per range either way
	tap_run "kfdtrace: 4096 ranges one by one take 4096 ioctls, as a batch 1" \
		"$top/build/bin/kfdtrace" check \
		--expect "ioctl.emu_userptr.calls == 4096" \
		--expect "ioctl.emu_userptr.errors == 0" \
		--expect "ioctl.emu_batch.calls == 1" \
		--expect "ioctl.emu_batch.ranges == 4096" \
		--expect "ranges.registered == 8192" \
		--expect "ioctl.emu_free.calls == 4097" \
		--expect "status == 0" \
		--expect "probes.hmm == 1" --expect "probes.notifier == 1" \
		--expect "probes.helper == 1" --expect "probes.emu == 1" \
		--expect "notifier.insert == 8192" --expect "notifier.remove == 8192" \
		--expect "batch.created == 4097" --expect "batch.destroyed == 4097" \
		--expect "fault.ranges >= 8192" --expect "fault.errors == 0" \
		--expect "hmm.calls >= 8192" --expect "hmm.pages >= 8192" \
		-- "$top/build/bin/userptr_emu_tests" -v r4096_4k
	# the eviction verdict over invalidations of every kind and a storm
	tap_run "kfdtrace: eviction verdict pass over the invalidation tests" \
		"$top/build/bin/kfdtrace" check \
		--expect 'verdict.eviction == "pass"' --expect "verdict.lost == 0" \
		--expect "evict.emu >= 5" --expect "restore.emu >= 5" --expect "status == 0" \
		-- "$top/build/bin/userptr_emu_tests" -t madv_dontneed -t munmap_one_range \
		-t mremap_onto_range -t fork_cow -t invalidate_between_fault_and_commit \
		-t register_4096_under_invalidation_storm
	bpftrace_views
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu
fi
[ $TAP_FAILED -eq 0 ]
