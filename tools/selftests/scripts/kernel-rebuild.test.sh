#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel build with nothing changed compiles nothing, relinks nothing and
# reinstalls nothing: what keeps make check's warm runs short.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

O=$top/build/kernel-test
before=$(stat -c %Y "$O/vmlinux" "$O/arch/x86/boot/bzImage" "$O/modroot/.stamp" "$O/.config")
out=$("$top/scripts/kernel-build" --flavour test 2>&1) && rc=0 || rc=$?
[ $rc -eq 0 ] && tap_ok "kernel-build re-runs" || tap_fail "kernel-build re-runs (exit $rc)"

steps=$(printf '%s\n' "$out" | grep -E '^  (CC|AS|LD|AR|BTF|OBJCOPY|MODPOST|INSTALL) ' || true)
if [ -z "$steps" ]; then
	tap_ok "nothing is compiled or linked"
else
	printf '%s\n' "$steps" | head -n 20 | tap_diag
	tap_fail "nothing is compiled or linked"
fi
after=$(stat -c %Y "$O/vmlinux" "$O/arch/x86/boot/bzImage" "$O/modroot/.stamp" "$O/.config")
[ "$before" = "$after" ] && tap_ok "vmlinux, bzImage, installed modules and .config keep their times" ||
	tap_fail "vmlinux, bzImage, installed modules and .config keep their times"

[ $TAP_FAILED -eq 0 ]
