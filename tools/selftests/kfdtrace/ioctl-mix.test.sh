#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kfdtrace on the host: its JSON reader's unit tests; the probes load and the syscall programs attach;
# on ioctl_mix (a known mix of amdkfd- and userptr_emu-numbered ioctls on
# /dev/null) the counts equal the known numbers and what strace -c sees;
# check's exit codes (0 holds, 1 fails, 2 usage) and compare's output.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$top/build/bin
out=$top/build/check/kfdtrace
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
mkdir -p "$out"

# the JSON reader that compare and check use (no root needed)
"$bin/kfdtrace_json_test" || TAP_FAILED=$((TAP_FAILED + 1))

if [ "$(id -u)" -ne 0 ]; then
	tap_skip "kfdtrace on the host" "needs root to load BPF programs"
	exit 0
fi
kt() { "$bin/kfdtrace" "$@"; }

tap_expect_status "record runs the command and returns its status" 0 \
	kt record -o "$out/mix.json" -- "$bin/ioctl_mix"

# the mix, from ioctl_mix.c
expect=(
	"ioctl.kfd_userptr.calls == 3" "ioctl.kfd_alloc_other.calls == 2"
	"ioctl.kfd_batch.calls == 1" "ioctl.kfd_free.calls == 4"
	"ioctl.kfd_other.calls == 5" "ioctl.emu_userptr.calls == 6"
	"ioctl.emu_batch.calls == 7" "ioctl.emu_free.calls == 0"
	"ioctl.userptr_alloc == 9" "ioctl.batch_alloc == 8" "ioctl.free == 4"
	"ioctl.total == 28" "ioctl.errors == 28" "ranges.registered == 0"
	"status == 0"
)
args=()
for e in "${expect[@]}"; do args+=(--expect "$e"); done
tap_run "counts per class equal the mix (28 calls, all failing)" kt check "${args[@]}" "$out/mix.json"

# strace sees the 28 plus the two ioctls of other types
st=$(strace -f -c -e trace=ioctl -o "$out/strace.txt" "$bin/ioctl_mix" 2>&1; awk '$NF == "ioctl" { print $4 }' "$out/strace.txt")
tap_run "strace -c counts the same calls (plus 2 not ours): $st" \
	kt check --expect "ioctl.total == $((st - 2))" "$out/mix.json"

tap_run "the command's children are traced (two runs: 56 calls)" \
	kt check --expect "ioctl.total == 56" -- sh -c '"$1"; "$1"' _ "$bin/ioctl_mix"
bash -c 'sleep 2; exec "$1"' _ "$bin/ioctl_mix" &
tap_run "-p PID follows a running process until it exits" \
	kt record -p $! -o "$out/pid.json"
tap_run "-p PID: its calls, none of others" kt check --expect "ioctl.total == 28" "$out/pid.json"

tap_expect_status "check: a false expectation exits 1" 1 \
	kt check --expect "ioctl.batch_alloc == 2" "$out/mix.json"
tap_expect_status "check: an unknown field exits 1" 1 \
	kt check --expect "ioctl.no_such_field == 0" "$out/mix.json"
tap_expect_status "check: a malformed expression exits 2" 2 \
	kt check --expect "ioctl.total ~ 3" "$out/mix.json"
tap_expect_status "check: a missing file exits 2" 2 \
	kt check --expect "ioctl.total == 0" "$out/none.json"
tap_expect_status "check: no expectation exits 2" 2 kt check "$out/mix.json"
tap_expect_status "check -- CMD: records and checks in one go" 0 \
	kt check --expect "ioctl.emu_batch.calls == 7" --expect "status == 0" -- "$bin/ioctl_mix"
tap_expect_status "record: an unknown verb exits 2" 2 kt frobnicate

# the bpftrace view of the same: one line per process and class
bt=$(cd "$out" && bpftrace "$top/bpf/bpftrace/kfd_ioctl.bt" -c "$bin/ioctl_mix" 2>&1)
want='@calls\[ioctl_mix, (kfd_userptr\]: 3|kfd_alloc_other\]: 2|kfd_batch\]: 1|kfd_free\]: 4|kfd_other\]: 5|emu_userptr\]: 6|emu_batch\]: 7)$'
if [ "$(printf '%s\n' "$bt" | grep -cE "^$want")" = 7 ] &&
   [ "$(printf '%s\n' "$bt" | grep -c '^@calls')" = 7 ]; then
	tap_ok "kfd_ioctl.bt counts the same mix"
else
	printf '%s\n' "$bt" | tap_diag
	tap_fail "kfd_ioctl.bt counts the same mix"
fi

# compare: the same file twice gives ratios of 1
cmp_out=$(kt compare "$out/mix.json" "$out/mix.json" 2>&1)
printf '%s\n' "$cmp_out" | tap_diag
printf '%s\n' "$cmp_out" | grep -Eq '^ioctl.total +28 +28 +1.00$' &&
	tap_ok "compare shows both files side by side" ||
	tap_fail "compare shows both files side by side"
# a probe group that was not live shows as "off"; a live one's 0 stays 0
jq '.probes.hmm = 0 | .hmm.calls = 0 | .probes.notifier = 1 | .notifier.insert = 0' \
	"$out/mix.json" >"$out/hmm-off.json"
jq '.probes.hmm = 1 | .hmm.calls = 5 | .probes.notifier = 0 | .notifier.insert = 0' \
	"$out/mix.json" >"$out/hmm-on.json"
cmp_out=$(kt compare "$out/hmm-off.json" "$out/hmm-on.json" 2>&1)
printf '%s\n' "$cmp_out" | grep -Eq '^hmm.calls +off +5 +-$' &&
	printf '%s\n' "$cmp_out" | grep -Eq '^notifier.insert +0 +off +-$' &&
	tap_ok "compare shows a probe group that was off as off, a live group's 0 as 0" ||
	{ printf '%s\n' "$cmp_out" | tap_diag
	  tap_fail "compare shows a probe group that was off as off, a live group's 0 as 0"; }
[ $TAP_FAILED -eq 0 ]
