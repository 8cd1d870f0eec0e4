#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest: guest-install.sh PREFIX-IN-DESTDIR UPR_EXAMPLE (see
# guest-install.test.sh). The installed program and kfdtrace, nothing of
# build/bin.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
. "$top/tools/selftests/userptr/lib.sh"
pfx=$1 ex=$2
kt=$pfx/sbin/kfdtrace
export LD_LIBRARY_PATH=$pfx/lib
n=64
# TAP numbers go on from the host part's
TAP_N=1

if ! tap_run "modprobe userptr_emu" load_emu; then
	exit 1
fi
o=$("$ex" $n 2>&1)
rc=$?
tap_diag <<<"$o"
if [ $rc -eq 0 ] && has_line "^$n ranges at 0x[0-9a-f]+ in 1 ioctl\\(s\\) on " <<<"$o"; then
	tap_ok "upr_example on the installed libuserptr.so.1: $n pages as one batch ioctl"
else
	tap_fail "upr_example on the installed libuserptr.so.1: $n pages as one batch ioctl (exit $rc)"
fi
tap_expect_status "installed kfdtrace check: one batch ioctl, $n ranges, no per-range ioctl" 0 \
	"$kt" check --expect 'ioctl.batch_alloc == 1' --expect "ranges.registered == $n" \
	--expect 'ioctl.userptr_alloc == 0' -- "$ex" $n
o=$("$kt" feature 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	tap_ok "installed kfdtrace feature: exit 0"
else
	tap_diag_last 20 <<<"$o"
	tap_fail "installed kfdtrace feature (exit $rc)"
fi
modprobe -r userptr_emu
[ "$TAP_FAILED" -eq 0 ]
