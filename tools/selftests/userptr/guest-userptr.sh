#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest suite of the batch userptr core: the helper's KUnit suite, then the
# emulated device's selftests (with zram swap for the MADV_PAGEOUT test),
# then unloading the device, which must leave nothing behind.
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
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu
fi
[ $TAP_FAILED -eq 0 ]
