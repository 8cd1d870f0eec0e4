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
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu
fi
[ $TAP_FAILED -eq 0 ]
