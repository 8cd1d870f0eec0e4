# SPDX-License-Identifier: GPL-2.0
# Shared by the guest suites of the emulated device. Sourced, never run
# (the suites' own $top and tools/selftests/lib/tap.sh first).

# The helper's populate deadline in the guests (drm_userptr_batch.timeout_ms;
# 10 s by default, for hardware): TCG with KASAN runs the kernel hundreds of
# times slower, and slower again beside other work, so here it is one that
# cannot expire before a suite's own limit (scripts/check): a test then
# fails by a deadline only where the deadline is what it tests, and those
# set a short one themselves (or hold the restore with a switch). The
# selftests wait for the device twice as long (their wait_ms()).
GUEST_DEADLINE_MS=3600000

# load_emu: load the device (and the helper it needs), with that deadline
load_emu() {
	modprobe userptr_emu &&
		echo $GUEST_DEADLINE_MS >/sys/module/drm_userptr_batch/parameters/timeout_ms
}

# zram_swap [SIZE]: swap on zram (512M, what it holds uncompressed), for
# the MADV_PAGEOUT test and the memory pressure ones: the pages of a
# registered range must be able to leave RAM
zram_swap() {
	[ -e /sys/block/zram0/disksize ] && ! grep -q zram0 /proc/swaps || return 0
	echo "${1:-512M}" >/sys/block/zram0/disksize &&
		mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
		echo "# zram swap could not be set up"
}

# kselftests: the series' selftests of the device, as a maintainer runs
# them from the kernel tree: the kselftest runner (installed in
# build/kselftest by kselftest-install) runs test_userptr_batch.sh, which
# loads the device, runs userptr_emu_tests and unloads it. The runner nests
# the tests' TAP one "# " deeper: each test's line is lifted to the
# suite's level, so that each counts, and the runner's own line counts the
# script (the device's load and unload included).
kselftests() {
	local l
	while IFS= read -r l; do
		if [[ $l =~ ^#\ ((not\ )?ok\ [0-9]+\ .*) ]]; then
			l=${BASH_REMATCH[1]}
		elif ! [[ $l =~ ^(not\ )?ok\ [0-9]+\ selftests: ]]; then
			l="# $l"
		fi
		[[ $l == "not ok "* ]] && TAP_FAILED=$((TAP_FAILED + 1))
		echo "$l"
	done < <(USERPTR_BATCH_TIMEOUT_MS=$GUEST_DEADLINE_MS "$top/build/kselftest/run_kselftest.sh" \
			-o 3000 -c drivers/gpu/userptr_batch 2>&1)
}

# race_test: the race test of guest-smp.sh and guest-kcsan.sh, on the
# loaded device: each thread pinned to a CPU in turn, a bounded run
# (RACE_SECONDS, default 40), every read checked, nothing left behind
race_test() {
	local out rc=0 cpus
	cpus=$(nproc)
	out=$("$top/build/bin/userptr-stress" -n 64 -s 16k -d "${RACE_SECONDS:-40}" \
		-m 2 -t 2 -b -P -a all -T 60000 2>&1) || rc=$?
	tap_diag <<<"$out"
	if [ $rc -eq 0 ] && has_line 'PASS$' <<<"$out" &&
	   has_line 'batches registered and freed [1-9]' <<<"$out"; then
		tap_ok "race test on $cpus CPUs: no stale read, no error, nothing left registered"
	else
		tap_fail "race test on $cpus CPUs (exit $rc)"
	fi
}
