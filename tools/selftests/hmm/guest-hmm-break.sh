#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest of tools/selftests/hmm/hmm-break.sh, on the test kernel
# built with break-read-present.patch: each bit of hmm.break_read makes
# hmm_range_fault()'s read mishandle one kind of page-table entry (or
# ignore a write fault's request), each bit of hmm.break_read_many makes
# hmm_range_read_many() mishandle one (hmm-tests' _read_many variants read
# with it first), and hmm-tests' case of that kind must fail with the bit
# set and pass with none. Prints TAP lines.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$top/build/bin
. "$top/tools/selftests/lib/tap.sh"
. "$top/tools/selftests/lib/test_hmm.sh"
. "$top/tools/selftests/userptr/lib.sh"
param=/sys/module/hmm/parameters/break_read
many=/sys/module/hmm/parameters/break_read_many

echo "TAP version 13"
[ -w $param ] && [ -w $many ] ||
	{ tap_fail "$param: not the kernel of break-read-present.patch"; exit 1; }
echo 16 >/proc/sys/vm/nr_hugepages
test_hmm_spm
modprobe test_hmm "${spm[@]}" || { tap_fail "modprobe test_hmm ${spm[*]}"; exit 1; }

# bit: the case of that kind, and its variant (the device kinds need theirs)
cases=(
	"0 hmm2_device_private.read_zero_page"
	"1 hmm2_device_private.read_read_only"
	"2 hmm2_device_private.read_written"
	"3 hmm2_device_private.read_never_touched"
	"4 hmm2_device_private.read_prot_none"
	"5 hmm2_device_private.read_device_private"
	"6 hmm2_device_coherent.read_device_coherent"
	"7 hmm2_device_private.read_migration_entry"
	"8 hmm2_device_private.read_thp"
	"9 hmm2_device_private.read_hugetlb"
	"10 hmm2_device_private.read_protnone"
	"11 hmm_device_private.anon_write_child"
)
# the same kinds mishandled by hmm_range_read_many() alone, and a THP
# mapped by its PMD (bit 12); the kinds it leaves to hmm_range_fault()
# whatever it reads (a PROT_NONE or hugetlb VMA) and a write fault, which
# no snapshot asks, have no bit here
many_cases=(
	"0 hmm2_device_private_read_many.read_zero_page"
	"1 hmm2_device_private_read_many.read_read_only"
	"2 hmm2_device_private_read_many.read_written"
	"3 hmm2_device_private_read_many.read_never_touched"
	"5 hmm2_device_private_read_many.read_device_private"
	"6 hmm2_device_coherent_read_many.read_device_coherent"
	"7 hmm2_device_private_read_many.read_migration_entry"
	"8 hmm2_device_private_read_many.read_thp"
	"10 hmm2_device_private_read_many.read_protnone"
	"12 hmm2_device_private_read_many.read_thp"
)
run() { "$bin/hmm-tests" -r "${1%%_device*}.$1" >"$out" 2>&1; }
# check PARAM WHICH BIT CASE: CASE passes with no bit set and fails with BIT
check() {
	local p=$1 which=$2 b=$3 t=$4

	echo 0 >$param
	echo 0 >$many
	if ! run "$t"; then
		tap_diag_last 10 <"$out"
		tap_fail "$t passes against the series' reads"
		return
	fi
	# a case that skips proves nothing
	if grep -q "SKIP" "$out"; then
		tap_diag_last 5 <"$out"
		tap_fail "$t ran (it skipped)"
		return
	fi
	echo $((1 << b)) >"$p"
	if run "$t"; then
		tap_diag_last 10 <"$out"
		tap_fail "$t fails against $which that mishandles its kind (bit $b)"
	else
		tap_ok "$t fails against $which that mishandles its kind (bit $b): $(grep -m1 -o 'Expected.*' "$out" || true)"
	fi
}
out=$(mktemp)
for c in "${cases[@]}"; do
	read -r b t <<<"$c"
	check $param "a read" "$b" "$t"
done
for c in "${many_cases[@]}"; do
	read -r b t <<<"$c"
	check $many "hmm_range_read_many()" "$b" "$t"
done
# bit 11 of hmm.break_read_many: a read-only page taken for a write read,
# which only the batch helper's pages make (a snapshot asks no write).
# Its selftest of a first registration over copy-on-write pages shared
# with a live child must fail: the device would keep the page the CPU's
# write replaces.
emu_run() { "$bin/userptr_emu_tests" -r "global.$1" >"$out" 2>&1; }
if load_emu; then
	t=first_registration_faults_what_it_cannot_take
	echo 0 >$many
	if ! emu_run $t || ! grep -q "^ok .*$t" "$out"; then
		tap_diag_last 10 <"$out"
		tap_fail "$t passes against the series' hmm_range_read_many()"
	else
		echo $((1 << 11)) >$many
		if emu_run $t; then
			tap_diag_last 10 <"$out"
			tap_fail "$t fails against hmm_range_read_many() that takes a read-only page for a write (bit 11)"
		else
			tap_ok "$t fails against hmm_range_read_many() that takes a read-only page for a write (bit 11): $(grep -m1 -o 'Expected.*' "$out" || true)"
		fi
		echo 0 >$many
	fi
	modprobe -r userptr_emu || tap_fail "rmmod userptr_emu"
else
	tap_fail "modprobe userptr_emu"
fi
echo 0 >$param
echo 0 >$many
rm -f "$out"
echo "1..$TAP_N"
exit $((TAP_FAILED > 0))
