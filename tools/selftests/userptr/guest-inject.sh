#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each fault-injection switch of the emulated device breaks one rule of the
# eviction protocol; the selftest that guards that rule must then fail, and
# so must kfdtrace's eviction verdict on the same run (it passes without
# the switch). A switch nothing notices would mean that bug goes unseen.
# Runs inside the guest with --allow-splat: a broken device may also make
# KASAN report the stale pages it reads, which is a failure too. And with
# --no-kmemleak: under --allow-splat a leak would fail nothing, and
# kmemleak's tracking slows every registration here about threefold.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
tests=$top/build/bin/userptr_emu_tests
kt=$top/build/bin/kfdtrace
params=/sys/module/userptr_emu/parameters
. "$top/tools/selftests/userptr/lib.sh"

# verdict NAME FILE WANT: kfdtrace's eviction verdict in FILE is WANT
verdict() {
	local v
	v=$("$kt" check --expect "verdict.eviction == \"$3\"" "$2" 2>&1) &&
		tap_ok "$1" || { printf '%s\n' "$v" | tap_diag; tap_fail "$1"; }
}

# expect_fail SWITCH TEST: TEST passes without SWITCH and fails with it,
# and kfdtrace's verdict on each of the two runs says the same. Each run
# is the test under kfdtrace record, whose exit status is the test's: one
# run gives both answers (an exec of the test costs seconds here). The
# tracing shifts timing, but no test here relies on it: the windows they
# need are held open by the device's knobs.
expect_fail() {
	local sw=$1 t=$2 out rc
	load_emu || { tap_fail "modprobe userptr_emu"; return; }
	out=$("$kt" record -o /tmp/base.json -- "$tests" -r "$t" 2>&1) && rc=0 || rc=$?
	if [ $rc -ne 0 ]; then
		tap_diag_last 5 '^(not )?ok|^#' <<<"$out"
		tap_fail "without $sw, $t passes"
		modprobe -r userptr_emu
		return
	fi
	verdict "without $sw, kfdtrace's verdict on $t is pass" /tmp/base.json pass
	echo 1 >"$params/$sw"
	out=$("$kt" record -o /tmp/broken.json -- "$tests" -r "$t" 2>&1) && rc=0 || rc=$?
	echo 0 >"$params/$sw"
	tap_diag_last 6 '^(not )?ok|^# +.*[^ ]' <<<"$out"
	if [ $rc -ne 0 ] && has_line "^not ok .*$t" <<<"$out"; then
		tap_ok "$sw makes $t fail"
	else
		tap_fail "$sw makes $t fail (it passed)"
	fi
	verdict "$sw makes kfdtrace's verdict on $t fail" /tmp/broken.json fail
	modprobe -r userptr_emu || tap_fail "rmmod userptr_emu after $sw"
}

# stress_fail SWITCH WHAT: userptr-stress passes, and with SWITCH on fails
# with WHAT in its output (its exit status is what CI would see)
stress_fail() {
	local sw=$1 what=$2 out rc
	local stress=("$top/build/bin/userptr-stress" -n 16 -i 40 -T 3000
		      -a dontneed,mremap,fork,write)
	load_emu || { tap_fail "modprobe userptr_emu"; return; }
	out=$("${stress[@]}" 2>&1) && rc=0 || rc=$?
	if [ $rc -ne 0 ]; then
		tap_diag_last 5 <<<"$out"
		tap_fail "without $sw, userptr-stress passes"
		modprobe -r userptr_emu
		return
	fi
	echo 1 >"$params/$sw"
	out=$("${stress[@]}" 2>&1) && rc=0 || rc=$?
	echo 0 >"$params/$sw"
	tap_diag_last 4 <<<"$out"
	if [ $rc -eq 1 ] && has_line "$what" <<<"$out"; then
		tap_ok "$sw makes userptr-stress fail ($what)"
	else
		tap_fail "$sw makes userptr-stress fail ($what): exit $rc"
	fi
	modprobe -r userptr_emu || tap_fail "rmmod userptr_emu after $sw"
}

expect_fail inject_ignore_invalidate inv.madv_dontneed
expect_fail inject_ignore_invalidate inv.mremap_onto_range
expect_fail inject_never_restore inv.madv_dontneed
expect_fail inject_skip_seq_check inv.invalidate_between_fault_and_commit
stress_fail inject_ignore_invalidate "STALE READ"
stress_fail inject_never_restore "Connection timed out"
[ $TAP_FAILED -eq 0 ]
