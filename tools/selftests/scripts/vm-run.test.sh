#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/vm-run: exit status, argument passing, working directory, module
# loading, and that a kernel splat, a crash or a hang fails the run even
# when the command succeeds. Boots the test kernel a few times (~2 min).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

vm() { "$top/scripts/vm-run" --out "$top/build/check/vm-run.test" "$@"; }
out=

# run_vm WANT CMD...: run vm-run, keep its output in $out, check the status
run_vm() {
	local want=$1 rc=0
	shift
	out=$(vm "$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] && return 0
	printf '%s\n' "$out" | tail -n 30 | tap_diag
	echo "vm-run exited $rc, expected $want" | tap_diag
	return 1
}

start=$(date +%s.%N)
run_vm 0 -- true && tap_ok "a clean boot runs the command, exit 0, no splat" ||
	tap_fail "a clean boot runs the command, exit 0, no splat"
printf 'boot, command and shutdown took %.1f s\n' "$(echo "$(date +%s.%N) - $start" | bc)" | tap_diag

run_vm 3 -- sh -c 'exit 3' && tap_ok "the command's exit status comes back (3)" ||
	tap_fail "the command's exit status comes back (3)"

dir=$(mktemp -d)
if (cd "$dir" && run_vm 0 -- bash -c 'printf "<%s>" "$@"; echo; pwd; id -u' _ 'a b' '$c' "d'e"); then
	[ "$(printf '%s\n' "$out" | sed -n 1p)" = "<a b><\$c><d'e>" ] &&
		tap_ok "arguments reach the command unchanged" ||
		{ printf '%s\n' "$out" | tap_diag; tap_fail "arguments reach the command unchanged"; }
	[ "$(printf '%s\n' "$out" | sed -n 2p)" = "$dir" ] && [ "$(printf '%s\n' "$out" | sed -n 3p)" = 0 ] &&
		tap_ok "the command runs as root in the caller's directory" ||
		tap_fail "the command runs as root in the caller's directory"
else
	tap_fail "arguments reach the command unchanged"
	tap_fail "the command runs as root in the caller's directory"
fi
rmdir "$dir"

run_vm 126 --load splat_test -- true && printf '%s' "$out" | grep -q "WARNING:" &&
	tap_ok "a WARN_ON in the guest fails the run and is printed" ||
	tap_fail "a WARN_ON in the guest fails the run and is printed"

run_vm 126 -- modprobe splat_test kind=leak && printf '%s' "$out" | grep -q "kmemleak" &&
	tap_ok "a kmemleak report fails the run" ||
	tap_fail "a kmemleak report fails the run"

run_vm 125 -- sh -c 'echo c >/proc/sysrq-trigger' && printf '%s' "$out" | grep -q "Kernel panic" &&
	tap_ok "a guest crash fails the run and shows the console" ||
	tap_fail "a guest crash fails the run and shows the console"

run_vm 124 --timeout 40 -- sleep 600 && tap_ok "a hung command hits the timeout (124)" ||
	tap_fail "a hung command hits the timeout (124)"

run_vm 125 --load no_such_module -- true && tap_ok "a module that cannot load fails the run" ||
	tap_fail "a module that cannot load fails the run"

[ $TAP_FAILED -eq 0 ]
