#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest booted from the kernel package of make kernel-deb, with its
# modules unpacked in ROOT: it is the packaged kernel, the test device
# loads from the packaged modules, and a batch registers on it.
# Prints "ok TEXT" / "not ok TEXT" lines, which kernel-deb.test.sh counts.
#   guest-kernel-deb.sh RELEASE ROOT
set -u
rel=$1 root=$2
top=$(cd "$(dirname "$0")/../../.." && pwd)
check() { if "$@" >/dev/null 2>&1; then echo "ok $name"; else echo "not ok $name"; fi; }

name="it runs the packaged kernel, $rel"
check test "$(uname -r)" = "$rel"
name="modprobe userptr_emu loads the test device and the helper from the package"
check modprobe userptr_emu
# modprobe's own answer to where they come from
ko=$root/lib/modules/$rel/kernel/drivers/gpu/drm
deps=$(modprobe --show-depends userptr_emu 2>&1)
while IFS= read -r l; do echo "# $l"; done <<<"$deps"
name="they are the packaged ones, in $ko"
check grep -qE "^insmod $ko/drm_userptr_batch.ko *$" <<<"$deps"
name="the test device is the packaged one"
check grep -qE "^insmod $ko/tests/userptr_emu.ko *$" <<<"$deps"
# the guests' populate deadline (tools/selftests/userptr/lib.sh)
. "$top/tools/selftests/userptr/lib.sh"
echo $GUEST_DEADLINE_MS >/sys/module/drm_userptr_batch/parameters/timeout_ms 2>/dev/null
out=$("$top/build/bin/userptr_emu_tests" -r reg.r64_mixed.batch_and_per_range 2>&1)
rc=$?
printf '# %s\n' "$(tail -n 3 <<<"$out")"
name="a batch of 64 ranges registers, and the device reads what the CPU wrote"
check test $rc -eq 0
name="modprobe -r unloads the device"
check modprobe -r userptr_emu
