#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The data-race run (make kcsan): guest/userptr-smp's work, the series'
# selftests through the kselftest runner and the race test, on the kcsan
# kernel with two or more vCPUs, then the kernel's KCSAN reports sorted:
# a report that names the batch userptr helper, its test device, HMM or
# the interval notifiers fails the run, shown whole; the rest of the
# kernel's are counted and their headlines shown. Any other splat fails
# it too. Runs inside the guest, under scripts/vm-run --flavour kcsan
# --smp 2 --allow-splat (this script judges the log). Prints TAP lines.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
. "$top/tools/selftests/userptr/lib.sh"

if [ -d /sys/kernel/debug/kcsan ] || grep -q 'kcsan' /proc/kallsyms 2>/dev/null; then
	tap_ok "the kernel has KCSAN, $(nproc) CPUs"
else
	tap_fail "the kernel has no KCSAN: run it with --flavour kcsan"
fi
[ "$(nproc)" -ge 2 ] || tap_fail "the guest has $(nproc) CPU: run it with --smp 2"

zram_swap
kselftests
if tap_run "modprobe userptr_emu" load_emu; then
	race_test
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu
fi

# the reports: a block from "BUG: KCSAN:" to the line of '=' that ends it
ours='drm_userptr_batch|userptr_emu|hmm_|mmu_interval|mmu_notifier'
mapfile -t log < <(dmesg)
n_ours=0 n_else=0 block=() in=0 heads=()
flush() {
	local l b
	[ ${#block[@]} -eq 0 ] && return
	b=$(printf '%s\n' "${block[@]}")
	if [[ $b =~ $ours ]]; then
		n_ours=$((n_ours + 1))
		printf '%s\n' "${block[@]}" | tap_diag
	else
		n_else=$((n_else + 1))
		heads+=("${block[0]#*] }")
	fi
	block=()
}
for l in "${log[@]}"; do
	if [[ $l == *"BUG: KCSAN:"* ]]; then
		flush
		in=1
	fi
	[ $in -eq 1 ] && block+=("$l")
	if [ $in -eq 1 ] && [[ $l == *"=================================="* ]] &&
	   [ ${#block[@]} -gt 1 ]; then
		flush
		in=0
	fi
done
flush
if [ $n_else -gt 0 ]; then
	echo "KCSAN reports elsewhere in the kernel: $n_else" | tap_diag
	printf '%s\n' "${heads[@]}" | sort | uniq -c | sort -rn | head -n 20 | tap_diag
fi
if [ $n_ours -eq 0 ]; then
	tap_ok "no KCSAN report in the helper, its device, HMM or the notifiers ($n_else elsewhere)"
else
	tap_fail "KCSAN: $n_ours reports in the helper, its device, HMM or the notifiers"
fi
# any other splat: what vm-run would fail without --allow-splat
other=$(printf '%s\n' "${log[@]}" | grep -E 'WARNING:|BUG: (sleeping|scheduling|spinlock|unable)|KASAN:|Oops|possible (circular|recursive)|INFO: task .* blocked|soft lockup|general protection' || true)
if [ -z "$other" ]; then
	tap_ok "no other splat"
else
	printf '%s\n' "$other" | head -n 20 | tap_diag
	tap_fail "another splat in the log"
fi
[ $TAP_FAILED -eq 0 ]
