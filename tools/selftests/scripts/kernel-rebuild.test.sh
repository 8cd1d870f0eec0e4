#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel build with nothing changed compiles nothing, relinks nothing and
# reinstalls nothing: what keeps make check's warm runs short. The
# project's modules are relinked after a new vmlinux, not before.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

O=$top/build/kernel-test
start=$(date +%s)
before=$(stat -c %Y "$O/vmlinux" "$O/arch/x86/boot/bzImage" "$O/modroot/.stamp" "$O/.config")
out=$("$top/scripts/kernel-build" --flavour test 2>&1) && rc=0 || rc=$?
[ $rc -eq 0 ] && tap_ok "kernel-build re-runs" || tap_fail "kernel-build re-runs (exit $rc)"

# the build's own output is in its log, which this run wrote
log=$O/build.log
steps=$(grep -E '^  (CC|AS|LD|AR|BTF|OBJCOPY|MODPOST) ' "$log" 2>/dev/null || true)
if [ "$(stat -c %Y "$log" 2>/dev/null || echo 0)" -lt "$start" ]; then
	printf '%s\n' "$out" | tail -n 5 | tap_diag
	tap_fail "nothing is compiled or linked (no build log of this run: $log)"
elif [ -z "$steps" ]; then
	tap_ok "nothing is compiled or linked"
else
	printf '%s\n' "$steps" | head -n 20 | tap_diag
	tap_fail "nothing is compiled or linked"
fi
after=$(stat -c %Y "$O/vmlinux" "$O/arch/x86/boot/bzImage" "$O/modroot/.stamp" "$O/.config")
[ "$before" = "$after" ] && tap_ok "vmlinux, bzImage, installed modules and .config keep their times" ||
	tap_fail "vmlinux, bzImage, installed modules and .config keep their times"

# An out-of-tree module is relinked after a new vmlinux, and only then:
# its split BTF must match vmlinux's or the guest refuses to load it.
# (A new vmlinux is simulated by making the module's record of the last
# one it saw old: touching vmlinux would make the next build relink.)
obj=$top/build/modules-test/splat-test
ko_time() { stat -c %y "$obj/splat_test.ko" 2>/dev/null; }
t0=$(ko_time)
"$top/scripts/module-build" --flavour test splat-test >/dev/null 2>&1 &&
	[ -n "$t0" ] && [ "$(ko_time)" = "$t0" ] &&
	tap_ok "module-build with nothing changed leaves the module alone" ||
	tap_fail "module-build with nothing changed leaves the module alone"
touch -d @0 "$obj/.vmlinux-seen"
"$top/scripts/module-build" --flavour test splat-test >/dev/null 2>&1 &&
	[ "$(ko_time)" != "$t0" ] && [ ! "$obj/.vmlinux-seen" -ot "$O/vmlinux" ] &&
	tap_ok "module-build relinks a module after a new vmlinux" ||
	tap_fail "module-build relinks a module after a new vmlinux"

[ $TAP_FAILED -eq 0 ]
