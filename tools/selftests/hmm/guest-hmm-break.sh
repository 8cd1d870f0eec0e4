#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest of tools/selftests/hmm/hmm-break.sh, on the test kernel
# built with break-read-present.patch: each bit of hmm.break_read makes
# the read mishandle one kind of page-table entry (or ignore a write
# fault's request), and hmm-tests' case of that kind must fail with the
# bit set and pass with none. Prints TAP lines.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$top/build/bin
. "$top/tools/selftests/lib/tap.sh"
. "$top/tools/selftests/lib/test_hmm.sh"
param=/sys/module/hmm/parameters/break_read

echo "TAP version 13"
[ -w $param ] || { tap_fail "$param: not the kernel of break-read-present.patch"; exit 1; }
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
run() { "$bin/hmm-tests" -r "${1%%_device*}.$1" >"$out" 2>&1; }
out=$(mktemp)
for c in "${cases[@]}"; do
	read -r b t <<<"$c"
	echo 0 >$param
	if ! run "$t"; then
		tap_diag_last 10 <"$out"
		tap_fail "$t passes against the series' read"
		continue
	fi
	# a case that skips proves nothing
	if grep -q "SKIP" "$out"; then
		tap_diag_last 5 <"$out"
		tap_fail "$t ran (it skipped)"
		continue
	fi
	echo $((1 << b)) >$param
	if run "$t"; then
		tap_diag_last 10 <"$out"
		tap_fail "$t fails against a read that mishandles its kind (bit $b)"
	else
		tap_ok "$t fails against a read that mishandles its kind (bit $b): $(grep -m1 -o 'Expected.*' "$out" || true)"
	fi
done
echo 0 >$param
rm -f "$out"
echo "1..$TAP_N"
exit $((TAP_FAILED > 0))
