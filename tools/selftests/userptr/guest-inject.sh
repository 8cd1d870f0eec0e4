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

# verdict NAME FILE WANT [OP]: kfdtrace's eviction verdict in FILE is WANT
# (OP "!=": is not)
verdict() {
	local v
	v=$("$kt" check --expect "verdict.eviction ${4:-==} \"$3\"" "$2" 2>&1) &&
		tap_ok "$1" || { printf '%s\n' "$v" | tap_diag; tap_fail "$1"; }
}

# The tests the switches break, and the storm they run. The sparse ones
# are the span of 1 GiB with holes carved in, the hardest of their layouts.
sparse=sparse.holes_1g
broken=(inv.madv_dontneed inv.mremap_onto_range inv.invalidate_between_fault_and_commit
	win.refault_only_the_hit_range $sparse.restore_refaults_the_invalidated_ranges
	$sparse.refault_only_the_hit_range_far_apart movers.thp_collapse
	movers.mremap_dontunmap movers.hugetlb_dontneed movers.ksm_merge_unmerge
	movers.soft_offline movers.hwpoison movers.userfaultfd_missing
	movers.numa_migrate movers.compaction)
stress=("$top/build/bin/userptr-stress" -n 16 -i 40 -T 3000 -a dontneed,mremap,fork,write)
# the race test of guest/userptr-smp (guest-smp.sh), bounded by changes
# instead of time, and each commit held 20 ms after its faults
# (restore_commit_delay_ms): the second drop of its redrop action then
# lands between a restore's faults and its commit, as it can on two CPUs
# at once, and a commit without the sequence check maps the freed pages
race=("$top/build/bin/userptr-stress" -n 16 -s 16k -i 60 -m 2 -t 1 -b -P -a all -T 3000)
race_delay=20

# baseline: with every switch off, the tests pass and kfdtrace's verdict on
# them is pass, in one run under kfdtrace record (whose exit status is the
# tests'); and userptr-stress passes. Once for all cases below: each one
# turns a single switch on, and off again, on a freshly loaded device.
baseline() {
	local out rc t args=()
	load_emu || { tap_fail "modprobe userptr_emu"; return; }
	for t in "${broken[@]}"; do args+=(-r "$t"); done
	out=$("$kt" record -o /tmp/base.json -- "$tests" "${args[@]}" 2>&1) && rc=0 || rc=$?
	if [ $rc -eq 0 ]; then
		tap_ok "without a switch, ${broken[*]} pass"
	else
		tap_diag_last 8 '^(not )?ok|^#' <<<"$out"
		tap_fail "without a switch, ${broken[*]} pass"
	fi
	verdict "without a switch, kfdtrace's verdict on them is pass" /tmp/base.json pass
	out=$("${stress[@]}" 2>&1) && rc=0 || rc=$?
	if [ $rc -eq 0 ]; then
		tap_ok "without a switch, userptr-stress passes"
	else
		tap_diag_last 5 <<<"$out"
		tap_fail "without a switch, userptr-stress passes"
	fi
	echo $race_delay >"$params/restore_commit_delay_ms"
	out=$("${race[@]}" 2>&1) && rc=0 || rc=$?
	echo 0 >"$params/restore_commit_delay_ms"
	if [ $rc -eq 0 ]; then
		tap_ok "without a switch, the race test passes (commits held ${race_delay} ms)"
	else
		tap_diag_last 6 <<<"$out"
		tap_fail "without a switch, the race test passes (commits held ${race_delay} ms)"
	fi
	modprobe -r userptr_emu || tap_fail "rmmod userptr_emu after the baseline"
}

# switch_on SWITCH: SWITCH on, on a freshly loaded device. Restores that
# never come are waited for up to the selftests' wait (twice the populate
# deadline): the hardware's deadline (10 s) bounds that wait here, where
# the guests' own (lib.sh) would make it two hours.
switch_on() {
	[ "$1" != inject_never_restore ] ||
		echo 10000 >/sys/module/drm_userptr_batch/parameters/timeout_ms
	echo 1 >"$params/$1"
}

# judge_fail SWITCH TEST RC LINES OUT: TEST's run with SWITCH on (exit RC,
# output OUT, of which the last LINES results and messages are shown)
# failed, and failed TEST
judge_fail() {
	tap_diag_last "$4" '^(not )?ok|^# +.*[^ ]' <<<"$5"
	if [ "$3" -ne 0 ] && has_line "^not ok .*$2" <<<"$5"; then
		tap_ok "$1 makes $2 fail"
	else
		tap_fail "$1 makes $2 fail (it passed)"
	fi
}

# expect_fail SWITCH TEST: with SWITCH on, TEST fails, and so does
# kfdtrace's verdict on the same run: one run gives both answers (an exec
# of the test costs seconds here). The tracing shifts timing, but no test
# here relies on it: the windows they need are held open by the device's
# knobs.
expect_fail() {
	local sw=$1 t=$2 out rc
	load_emu || { tap_fail "modprobe userptr_emu"; return; }
	switch_on "$sw"
	out=$("$kt" record -o /tmp/broken.json -- "$tests" -r "$t" 2>&1) && rc=0 || rc=$?
	echo 0 >"$params/$sw"
	judge_fail "$sw" "$t" "$rc" 6 "$out"
	verdict "$sw makes kfdtrace's verdict on $t fail" /tmp/broken.json fail
	modprobe -r userptr_emu || tap_fail "rmmod userptr_emu after $sw"
}

# stress_fail SWITCH WHAT [race]: with SWITCH on, userptr-stress (or the
# race test, its commits held) fails with WHAT in its output (its exit
# status is what CI would see)
stress_fail() {
	local sw=$1 what=$2 name=userptr-stress out rc cmd=("${stress[@]}")
	[ "${3:-}" = race ] && name="the race test" cmd=("${race[@]}")
	# ${4}: more changes than the run's own (-i, later on the line, wins)
	[ -n "${4:-}" ] && cmd+=(-i "$4")
	load_emu || { tap_fail "modprobe userptr_emu"; return; }
	[ "${3:-}" = race ] && echo $race_delay >"$params/restore_commit_delay_ms"
	switch_on "$sw"
	out=$("${cmd[@]}" 2>&1) && rc=0 || rc=$?
	echo 0 >"$params/$sw"
	echo 0 >"$params/restore_commit_delay_ms"
	# the first complaints, then the summary
	tap_diag_last 3 '^[a-z].*: ' <<<"$(grep -v '^userptr-stress:' <<<"$out" | head -n 3)"
	tap_diag_last 4 <<<"$out"
	if [ $rc -eq 1 ] && has_line "$what" <<<"$out"; then
		tap_ok "$sw makes $name fail ($what)"
	else
		tap_fail "$sw makes $name fail ($what): exit $rc"
	fi
	modprobe -r userptr_emu || tap_fail "rmmod userptr_emu after $sw"
}

# render_fail SWITCH TEST [verdict]: the render node's tests: TEST passes
# without SWITCH and fails with it, on a freshly loaded device. With
# "verdict", both runs are recorded by kfdtrace, whose verdict must not
# fail the first and must fail the second: it follows the GEM objects
# through the device's accesses (a submission is one) and the objects
# the device's file took over through their eviction and restore. A
# commit without the sequence check, in a submission's own populate, is
# beyond it: the commit rule needs the device's restore, which a
# submission does not make (docs/kfdtrace.md).
render_fail() {
	local sw=$1 t=$2 judge=${3:-} out rc run=("$tests" -r "$2")
	load_emu || { tap_fail "modprobe userptr_emu"; return; }
	[ -n "$judge" ] && run=("$kt" record -o /tmp/render-base.json -- "$tests" -r "$t")
	out=$("${run[@]}" 2>&1) && rc=0 || rc=$?
	[ $rc -eq 0 ] && tap_ok "without a switch, $t passes" ||
		{ tap_diag_last 6 <<<"$out"; tap_fail "without a switch, $t passes"; }
	if [ -n "$judge" ]; then
		verdict "without a switch, kfdtrace's verdict on $t does not fail" \
			/tmp/render-base.json fail !=
		run=("$kt" record -o /tmp/render-broken.json -- "$tests" -r "$t")
	fi
	switch_on "$sw"
	out=$("${run[@]}" 2>&1) && rc=0 || rc=$?
	echo 0 >"$params/$sw"
	echo 0 >"$params/restore_commit_delay_ms"
	echo 0 >"$params/exec_submit_delay_ms"
	echo 0 >"$params/import_hold_ms"
	echo 0 >"$params/job_hold_ms"
	judge_fail "$sw" "$t" "$rc" 4 "$out"
	[ -n "$judge" ] &&
		verdict "$sw makes kfdtrace's verdict on $t fail" /tmp/render-broken.json fail
	modprobe -r userptr_emu || tap_fail "rmmod userptr_emu after $sw"
}

baseline
expect_fail inject_ignore_invalidate inv.madv_dontneed
expect_fail inject_ignore_invalidate inv.mremap_onto_range
expect_fail inject_never_restore inv.madv_dontneed
expect_fail inject_skip_seq_check inv.invalidate_between_fault_and_commit
expect_fail inject_skip_seq_check win.refault_only_the_hit_range
expect_fail inject_ignore_invalidate $sparse.restore_refaults_the_invalidated_ranges
expect_fail inject_skip_seq_check $sparse.refault_only_the_hit_range_far_apart
# the page movers: a device that ignores the invalidation reads old pages
# (or a poisoned one), faults nothing again and fails no range
for t in thp_collapse mremap_dontunmap hugetlb_dontneed ksm_merge_unmerge \
	 soft_offline hwpoison userfaultfd_missing numa_migrate compaction; do
	expect_fail inject_ignore_invalidate movers.$t
done
# the render node: a submission that commits without the check reads the
# page it faulted before the invalidation; the importer's worker must
# evict and restore the object it took over
render_fail inject_skip_seq_check render.invalidate_between_fault_and_commit
render_fail inject_skip_submit_check render.invalidate_between_copy_and_submit verdict
render_fail inject_ignore_invalidate render.import_evict_restore_free verdict
render_fail inject_never_restore render.import_evict_restore_free verdict
# the takeover's glue, as a GPU makes it dangerous: an invalidation or a
# takeover that does not wait for the render node's jobs lets a job run on
# pages no notifier keeps for it (a use after free through the GART); a
# wait on the VM's eviction fence evicts the whole importing process; a
# check of the object's handles that does not shut the other ways in
# leaves a second handle on an object the importer owns
render_fail inject_inval_no_wait render.invalidate_waits_for_jobs
render_fail inject_takeover_transfer_first render.takeover_waits_for_jobs
render_fail inject_wait_eviction_fence render.takeover_evicts_no_process
render_fail inject_takeover_check_late render.takeover_refuses_a_second_handle
render_fail inject_takeover_fault_wait render.takeover_does_not_wait_for_userspace
# a restore worker that holds the dead process's address space itself (as
# amdkfd's does) and does not say so faults the rest of its batch back in
render_fail inject_mm_held_unsaid dying.worker_mmget.killed_inside_a_restore
stress_fail inject_ignore_invalidate "STALE READ"
stress_fail inject_never_restore "Connection timed out"
stress_fail inject_ignore_invalidate "STALE READ" race
stress_fail inject_never_restore "Connection timed out" race
# the redrop action drops a range again while the restore the first drop
# set off holds its commit: without the check the device maps the freed
# pages (4 runs of 4 read them within 5 changes on the test kernel). The
# restore must fault within the 5 ms between the drops: in a make check
# whose other guest loaded the host, 60 changes (11 redrops) once read
# none (2026-12-02), so this run makes 200
stress_fail inject_skip_seq_check "STALE READ" race 200
[ $TAP_FAILED -eq 0 ]
