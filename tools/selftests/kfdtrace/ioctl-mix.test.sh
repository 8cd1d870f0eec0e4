#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kfdtrace on the host: its JSON reader's and writer's unit tests;
# record -w's events files replayed by report and check (synthetic streams
# of amdgpu's quiesce and resume, correct and with each ordering bug, a
# lost resume, bad versions, layouts and files; a recorded one reports what
# record did); the probes load and the syscall programs attach; on ioctl_mix (a known mix of
# amdkfd- and userptr_emu-numbered ioctls on /dev/null) every call is
# not_device, none a registration, and the total is what strace -c sees;
# the follow map: 1400 processes one after another, a worker forked
# behind 1100 threads, pruned at exit, its overflow and a full process
# table reported (check says INCOMPLETE, exit 1); check's exit codes (0 holds, 1
# fails, 2 usage), its verdict on CMD's status and on fields of probe groups
# that were not live; compare's output and --threshold; the command line's
# behaviour (signals forwarded, -d, -o checked first, argument errors, -h,
# libbpf quiet without -v, the hint without privileges, names that are not
# UTF-8); kfdtrace feature without privileges (exit 0, JSON that parses,
# every probe group not live) and as root (the groups record loads).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$top/build/bin
out=$top/build/check/kfdtrace
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
mkdir -p "$out"

# the JSON reader and writer that record, compare and check use (no root needed)
"$bin/kfdtrace_json_test" || TAP_FAILED=$((TAP_FAILED + 1))

kt() { "$bin/kfdtrace" "$@"; }

# expect_out NAME WANT_STATUS ERE CMD...: CMD exits WANT_STATUS and a line
# of its output (stdout and stderr) matches ERE
expect_out() {
	local name=$1 want=$2 re=$3 o rc=0
	shift 3
	o=$("$@" 2>&1) || rc=$?
	if [ "$rc" = "$want" ] && has_line "$re" <<<"$o"; then
		tap_ok "$name"
	else
		printf '%s\n' "$o" | tail -n 20 | tap_diag
		tap_fail "$name (exit $rc, expected $want and a line matching: $re)"
	fi
}

# json_is FILE JQ-FILTER WANT NAME: the filter's value in FILE is WANT
json_is() {
	local got
	got=$(jq -r "$2" "$1" 2>&1)
	if [ "$got" = "$3" ]; then
		tap_ok "$4"
	else
		tap_fail "$4 ($2 is \"$got\", expected \"$3\")"
	fi
}

# --- record -w's events files, replayed by report and check (no root
# needed): synthetic streams of amdgpu's quiesce and resume and the
# helper's events (kfdtrace_evstream), a correct order and each of
# amdgpu's rules broken by one injected ordering bug
evs=$bin/kfdtrace_evstream
# replay_verdict NAME SCENARIO WANT_VERDICT WANT_RULE WANT_CHECK_STATUS
replay_verdict() {
	local name=$1 sc=$2 want=$3 rule=$4 wst=$5 f=$out/$2.events got rc=0
	"$evs" "$sc" "$f"
	kt report -o "$f.json" "$f" >"$f.txt" 2>&1 || rc=$?
	got=$(jq -r '[.verdict.eviction, ([.verdict.list[].rule] | unique | join(","))] | @tsv' \
	      "$f.json" 2>&1)
	if [ "$rc" = 0 ] && [ "$got" = "$want"$'\t'"$rule" ]; then
		tap_ok "$name"
	else
		tap_diag <"$f.txt"
		tap_fail "$name (report exit $rc, verdict and rules \"$got\", expected \"$want	$rule\")"
	fi
	tap_expect_status "... check on the events file exits $wst" "$wst" \
		kt check --expect 'verdict.eviction == "pass"' "$f"
}
replay_verdict "amdgpu: invalidate, quiesce, fault, resume: pass" amdgpu-pass pass "" 0
replay_verdict "the device's batch with amdgpu live: the device's rules alone, pass" \
	emu-pass pass "" 0
replay_verdict "amdgpu: an eviction never quiesced before the re-fault fails [evict]" \
	no-quiesce fail evict 1
replay_verdict "amdgpu: an eviction never quiesced by the end fails [evict]" \
	no-quiesce-end fail evict 1
replay_verdict "amdgpu: a resume of running queues fails [quiesce]" \
	resume-unquiesced fail quiesce 1
replay_verdict "amdgpu: resumed with a range invalidated after its fault fails [commit]" \
	stale-commit fail commit 1
replay_verdict "amdgpu: still quiesced at the end, batch live, fails [restore]" \
	never-resumed fail restore 1
replay_verdict "amdgpu: the resume lost (ring buffer full): incomplete, not fail" \
	lost-resume incomplete restore 1
expect_out "... check on it says INCOMPLETE" 1 '^INCOMPLETE: the recording lost 1 updates' \
	kt check --expect 'verdict.eviction == "pass"' "$out/lost-resume.events"
expect_out "... report marks its violation not judged" 0 '^  not judged, seen on partial data:$' \
	kt report "$out/lost-resume.events"
"$evs" bad-version "$out/bad-version.events"
expect_out "check -c: a directory that is not a cgroup v2 is an error, exit 2" 2 \
	'^kfdtrace: --cgroup /tmp: not a cgroup v2 directory$' \
	kt check -c /tmp --expect "ioctl.total == 0" -- true
expect_out "record -c: a cgroup that is not there is an error, exit 2" 2 \
	'^kfdtrace: --cgroup /nonexistent/cg: No such file or directory$' \
	kt record -c /nonexistent/cg -- true
expect_out "report: another version: a clear error, exit 2" 2 \
	'^kfdtrace report: .*: events file version 2; this kfdtrace reads version 1$' \
	kt report "$out/bad-version.events"
"$evs" bad-layout "$out/bad-layout.events"
expect_out "report: another event layout: a clear error, exit 2" 2 \
	': recorded with another event layout \(event size 40, layout ' \
	kt report "$out/bad-layout.events"
head -c 100 "$out/amdgpu-pass.events" >"$out/truncated.events"
expect_out "report: a truncated file: a clear error, exit 2" 2 \
	': truncated at byte [0-9]+, in a record of [0-9]+ bytes$' kt report "$out/truncated.events"
head -c 24 "$out/amdgpu-pass.events" >"$out/cut.events"
expect_out "report: a file cut before its end record: truncated, exit 2" 2 \
	': truncated: no end record after 0 records' kt report "$out/cut.events"
{ head -c 24 "$out/amdgpu-pass.events"; head -c 4096 /dev/urandom; } >"$out/garbage.events"
expect_out "report: garbage after the header: a clear error, exit 2" 2 \
	': (corrupt record|truncated)' kt report "$out/garbage.events"
expect_out "check: a truncated events file exits 2" 2 '^kfdtrace check: .*: truncated' \
	kt check --expect 'ioctl.total == 0' "$out/truncated.events"
expect_out "report: a JSON recording is not an events file, exit 2" 2 \
	': not a kfdtrace events file' kt report "$out/amdgpu-pass.events.json"

# --- kfdtrace feature: exit 0 whatever it finds; without the privileges
# to load BPF (as nobody when this runs as root) no probe group is live
unpriv=()
[ "$(id -u)" -ne 0 ] || unpriv=(setpriv --reuid=65534 --regid=65534 --clear-groups)
rc=0
"${unpriv[@]}" "$bin/kfdtrace" feature -j >"$out/feature-unpriv.json" 2>"$out/feature-unpriv.err" || rc=$?
if [ $rc = 0 ] && python3 -m json.tool "$out/feature-unpriv.json" >/dev/null &&
   [ "$(jq -r '[.features.privileges.live, ([.probes[]] | add),
		 (.features.ioctl.reason | test("without root"))] | @tsv' \
	"$out/feature-unpriv.json")" = $'false\t0\ttrue' ]; then
	tap_ok "feature -j without privileges: exit 0, JSON, privileges and every probe group not live"
else
	tap_diag <"$out/feature-unpriv.err"
	tap_diag <"$out/feature-unpriv.json"
	tap_fail "feature -j without privileges: exit 0, JSON, privileges and every probe group not live (exit $rc)"
fi
expect_out "feature without privileges: a line a feature, exit 0" 0 \
	'^ioctl +not live +record cannot load BPF programs without root' "${unpriv[@]}" "$bin/kfdtrace" feature
expect_out "feature: an argument is a usage error, exit 2" 2 'feature takes no argument' \
	kt feature probe
expect_out "feature -h: its usage on stdout, exit 0" 0 '^Usage: kfdtrace feature ' kt feature -h

if [ "$(id -u)" -ne 0 ]; then
	tap_skip "kfdtrace on the host" "needs root to load BPF programs"
	exit 0
fi

tap_expect_status "record runs the command and returns its status" 0 \
	kt record -o "$out/mix.json" -- "$bin/ioctl_mix"

# as root: the groups feature calls live are those record loaded
rc=0
kt feature -j >"$out/feature.json" 2>&1 || rc=$?
got=$(jq -c .probes "$out/feature.json" 2>&1)
want=$(jq -c .probes "$out/mix.json" 2>&1)
if [ $rc = 0 ] && [ "$got" = "$want" ] &&
   [ "$(jq -r '[.features.privileges.live, .features.ioctl.live] | @tsv' "$out/feature.json")" = \
     $'true\ttrue' ]; then
	tap_ok "feature -j as root: exit 0, the probe groups record loaded ($got)"
else
	tap_diag <"$out/feature.json"
	tap_fail "feature -j as root: exit 0, the probe groups record loaded (exit $rc, $got, record $want)"
fi

# a recorded events file: report prints and writes what record did
kt record -w "$out/mix.events" -o "$out/mix-w.json" -- "$bin/ioctl_mix" \
	>"$out/mix-w.txt" 2>/dev/null
kt report -o "$out/mix-r.json" "$out/mix.events" >"$out/mix-r.txt" 2>&1
if [ -s "$out/mix-w.txt" ] && cmp -s "$out/mix-w.txt" "$out/mix-r.txt" &&
   cmp -s <(jq -S . "$out/mix-w.json") <(jq -S . "$out/mix-r.json"); then
	tap_ok "record -w, then report: the same report and the same JSON"
else
	diff "$out/mix-w.txt" "$out/mix-r.txt" | tap_diag
	diff <(jq -S . "$out/mix-w.json") <(jq -S . "$out/mix-r.json") | tap_diag
	tap_fail "record -w, then report: the same report and the same JSON"
fi
tap_run "check reads the events file as the JSON: 28 not_device" \
	kt check --expect "ioctl.not_device.calls == 28" --expect "complete == 1" "$out/mix.events"
expect_out "record -w: a file that cannot be written fails before the run, exit 2" 2 \
	'^kfdtrace: /nonexistent/x.events: No such file or directory$' \
	kt record -w /nonexistent/x.events -- true
rm -f "$out/failed.events"
tap_expect_status "record -w: a run that cannot trace exits 2" 2 \
	kt record -w "$out/failed.events" -p 2147483647
if [ ! -e "$out/failed.events" ]; then
	tap_ok "... and removes the events file it created"
else
	tap_fail "... and removes the events file it created"
fi

# the mix, from ioctl_mix.c, on /dev/null: amdkfd's and the device's
# numbers, but not their files, so none is theirs (not_device, in
# ioctl.other), none a registration
expect=(
	"ioctl.not_device.calls == 28" "ioctl.not_device.errors == 28"
	"ioctl.userptr_alloc == 0" "ioctl.batch_alloc == 0" "ioctl.free == 0"
	"ioctl.other_alloc == 0" "ioctl.other == 28"
	"ioctl.total == 28" "ioctl.errors == 28" "ranges.registered == 0"
	"ioctl.by_name.AMDKFD_IOC_ALLOC_MEMORY_OF_GPU.calls == 0"
	"ioctl.by_name.AMDKFD_IOC_IMPORT_DMABUF.calls == 0"
	"ioctl.by_name.USERPTR_EMU_IOC_ALLOC_BATCH.calls == 0"
	"ioctl.takeover == 0"
	"status == 0" "complete == 1" "lost.total == 0"
	# no device here: the syscalls tracepoints, the only place to see them
	'ioctl.counted_at.kfd == "none"' 'ioctl.counted_at.emu == "none"'
	'ioctl.counted_at.other_files == "syscall"'
)
for c in kfd_userptr kfd_alloc_other kfd_free kfd_other gem_import emu_userptr emu_batch \
	 emu_free emu_other; do
	expect+=("ioctl.$c.calls == 0")
done
args=()
for e in "${expect[@]}"; do args+=(--expect "$e"); done
tap_run "on /dev/null the mix's 28 calls are not_device, none a registration" \
	kt check "${args[@]}" "$out/mix.json"

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
# amdkfd has no batch ioctl: no class, no name of it in the JSON
tap_expect_status "check: ioctl.kfd_batch (amdkfd's batch ioctl, gone) is an unknown field, exit 1" 1 \
	kt check --expect "ioctl.kfd_batch.calls == 0" "$out/mix.json"
tap_expect_status "check: ... as is its name in ioctl.by_name, exit 1" 1 \
	kt check --expect "ioctl.by_name.AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH.calls == 0" \
	"$out/mix.json"
tap_expect_status "check: a malformed expression exits 2" 2 \
	kt check --expect "ioctl.total ~ 3" "$out/mix.json"
tap_expect_status "check: a missing file exits 2" 2 \
	kt check --expect "ioctl.total == 0" "$out/none.json"
tap_expect_status "check: no expectation exits 2" 2 kt check "$out/mix.json"
tap_expect_status "check -- CMD: records and checks in one go" 0 \
	kt check --expect "ioctl.not_device.calls == 28" --expect "status == 0" -- "$bin/ioctl_mix"
tap_expect_status "record: an unknown verb exits 2" 2 kt frobnicate

# --- the follow map: keyed by process, pruned at exit, sized from pid_max
# (follow_load's workers make 2 calls each on /dev/null)
fl=$bin/follow_load
tap_run "1400 processes one after another: 2800 calls, 1400 followed" \
	kt check --expect "ioctl.not_device.calls == 2800" --expect "follow.added == 1400" \
	--expect "follow.removed == 1401" --expect "status == 0" -- "$fl" seq 1400 /dev/null
tap_run "a worker forked behind 1100 threads: its 2 calls" \
	kt check --expect "ioctl.not_device.calls == 2" --expect "follow.added == 1" \
	--expect "status == 0" -- "$fl" threads 1100 /dev/null
tap_run "a follow map of 4: 50 processes one after another all counted (exits prune it)" \
	kt check --debug-follow-max 4 --expect "ioctl.not_device.calls == 100" \
	--expect "lost.follow == 0" -- "$fl" seq 50 /dev/null
expect_out "a follow map of 4 and 20 processes alive at once: INCOMPLETE, exit 1" 1 \
	'^INCOMPLETE: the recording lost [0-9]+ updates or events' \
	kt check --debug-follow-max 4 --expect "ioctl.not_device.calls == 40" -- \
	"$fl" live 20 /dev/null
kt record --debug-follow-max 4 -o "$out/overflow.json" -- "$fl" live 20 /dev/null \
	>"$out/overflow.txt" 2>&1
json_is "$out/overflow.json" '[.lost.follow, .lost.total, .complete, .verdict.eviction] | @tsv' \
	$'17\t17\tfalse\tincomplete' \
	"record: ... the JSON: lost.follow 17 (21 processes, 4 entries), complete false, verdict incomplete"
if has_line '^INCOMPLETE: ' <"$out/overflow.txt" && has_line '^  lost.follow = 17: ' <"$out/overflow.txt" &&
   has_line '^kfdtrace: INCOMPLETE: ' <"$out/overflow.txt"; then
	tap_ok "record: ... the report and stderr say INCOMPLETE and lost.follow"
else
	tap_diag <"$out/overflow.txt"
	tap_fail "record: ... the report and stderr say INCOMPLETE and lost.follow"
fi
expect_out "a process table of 3 rows and 20 processes: INCOMPLETE (lost.rows), exit 1" 1 \
	'^  lost.rows = [1-9]' \
	kt check --debug-rows-max 3 --expect "ioctl.total == 40" -- "$fl" seq 20 /dev/null
expect_out "check FILE: an incomplete recording exits 1, its assertions not judged" 1 \
	'^INCOMPLETE: the recording lost 17 ' kt check --expect "ioctl.total >= 0" "$out/overflow.json"

# compare: the same file twice gives ratios of 1
cmp_out=$(kt compare "$out/mix.json" "$out/mix.json" 2>&1)
printf '%s\n' "$cmp_out" | tap_diag
printf '%s\n' "$cmp_out" | grep -Eq '^ioctl.total +28 +28 +1.00$' &&
	tap_ok "compare shows both files side by side" ||
	tap_fail "compare shows both files side by side"
# counted at a driver's entry against the tracepoints: compare says the
# two differ in what not_device and the times mean; the same file, not
jq '.ioctl.counted_at.emu = "fentry" | .ioctl.counted_at.other_files = "none"' \
	"$out/mix.json" >"$out/at-driver.json"
cmp_out=$(kt compare "$out/at-driver.json" "$out/mix.json" 2>&1)
if has_line '^note: BASE and NEW counted the ioctls at different places .*emu fentry, other_files none; .*emu none, other_files syscall' <<<"$cmp_out" &&
   has_line '^ioctl.counted_at.other_files +none +syscall +-$' <<<"$cmp_out" &&
   ! kt compare "$out/mix.json" "$out/mix.json" 2>&1 | grep -q '^note: '; then
	tap_ok "compare notes runs counted at different places, not the same run twice"
else
	printf '%s\n' "$cmp_out" | tap_diag
	tap_fail "compare notes runs counted at different places, not the same run twice"
fi
# a probe group that was not live shows as "off"; a live one's 0 stays 0
# (evict.emu is the device's, though under evict.*)
jq '.probes.hmm = 0 | .hmm.calls = 0 | .probes.notifier = 1 | .notifier.insert = 0 |
    .probes.emu = 1 | .evict.emu = 3' "$out/mix.json" >"$out/hmm-off.json"
jq '.probes.hmm = 1 | .hmm.calls = 5 | .probes.notifier = 0 | .notifier.insert = 0 |
    .probes.emu = 0 | .evict.emu = 0' "$out/mix.json" >"$out/hmm-on.json"
cmp_out=$(kt compare "$out/hmm-off.json" "$out/hmm-on.json" 2>&1)
printf '%s\n' "$cmp_out" | grep -Eq '^hmm.calls +off +5 +-$' &&
	printf '%s\n' "$cmp_out" | grep -Eq '^notifier.insert +0 +off +-$' &&
	printf '%s\n' "$cmp_out" | grep -Eq '^evict.emu +3 +off +-$' &&
	tap_ok "compare shows a probe group that was off as off, a live group's 0 as 0" ||
	{ printf '%s\n' "$cmp_out" | tap_diag
	  tap_fail "compare shows a probe group that was off as off, a live group's 0 as 0"; }

# --- check -- CMD judges CMD's end too
expect_out "check -- false: exits 1, saying CMD's status" 1 \
	'^FAIL the command exited with status 1 ' \
	kt check --expect "ioctl.errors == 0" -- false
expect_out "check --ignore-status -- false: the status is not judged" 0 '^ok +ioctl.errors == 0' \
	kt check --ignore-status --expect "ioctl.errors == 0" -- false
expect_out "check -- a command that does not exist: exits 1" 1 \
	'^FAIL the command did not start: ./no-such-cmd: No such file or directory$' \
	kt check --ignore-status --expect "ioctl.errors == 0" -- ./no-such-cmd
expect_out "check -- a command killed by a signal: exits 1" 1 \
	'^FAIL the command was killed by signal 15 \(Terminated\), status 143' \
	kt check --expect "ioctl.errors == 0" -- sh -c 'kill -TERM $$'
rm -f "$out/ran"	# from an earlier run of this suite
expect_out "check: a malformed expression exits 2 before CMD runs" 2 'cannot parse' \
	kt check --expect "ioctl.total ~ 3" -- sh -c "touch '$out/ran'"
[ ! -e "$out/ran" ] && tap_ok "check: ... and CMD did not run" ||
	tap_fail "check: ... and CMD did not run"

# --- a field of a probe group that was not live fails, naming the group
jq '.probes.hmm = 0 | .probes.emu = 0' "$out/mix.json" >"$out/groups-off.json"
jq '.probes.hmm = 1 | .probes.emu = 1' "$out/mix.json" >"$out/groups-on.json"
expect_out "check: hmm.errors with the hmm group off exits 1, naming it" 1 \
	'^FAIL hmm.errors == 0: probe group hmm was not live in this run \(probes.hmm = 0\)$' \
	kt check --expect "hmm.errors == 0" "$out/groups-off.json"
expect_out "check: evict.emu with the emu group off exits 1, naming it" 1 \
	'^FAIL evict.emu == 0: probe group emu was not live' \
	kt check --expect "evict.emu == 0" "$out/groups-off.json"
tap_expect_status "check: the same fields with their groups live hold" 0 \
	kt check --expect "hmm.errors == 0" --expect "evict.emu == 0" "$out/groups-on.json"
tap_expect_status "check: probes.hmm itself is never gated" 0 \
	kt check --expect "probes.hmm == 0" "$out/groups-off.json"

# --- compare: more/fewer the right way round, --threshold gates a regression
# (4096 ranges one by one in 100 ms, as one batch in 20 ms)
jq '.ranges.registered = 4096 | .ioctl.userptr_alloc = 4096 | .ioctl.batch_alloc = 0 |
    .ranges.registration_ms = 100' "$out/mix.json" >"$out/per-range.json"
jq '.ranges.registered = 4096 | .ioctl.userptr_alloc = 0 | .ioctl.batch_alloc = 1 |
    .ranges.registration_ms = 20' "$out/mix.json" >"$out/batch.json"
jq '.ranges.registration_ms = 115' "$out/per-range.json" >"$out/per-range-slow.json"
# amdkfd's batch: a GEM userptr with ranges, then its takeover (2 ioctls)
jq '.ranges.registered = 4096 | .ioctl.userptr_alloc = 0 | .ioctl.batch_alloc = 1 |
    .ioctl.takeover = 1 | .ranges.registration_ms = 20' "$out/mix.json" >"$out/kfd-batch.json"
expect_out "compare: an improvement reads \"fewer\" and \"less\", and exits 0 under --threshold" 0 \
	'^time in registration ioctls: 100.0 ms -> 20.0 ms \(5.00x less\)$' \
	kt compare --threshold 10 "$out/per-range.json" "$out/batch.json"
expect_out "compare: ... registration syscalls 4096x fewer" 0 \
	'^registration syscalls per range: 1 -> 0.000244141 \(4096x fewer\)$' \
	kt compare "$out/per-range.json" "$out/batch.json"
expect_out "compare: amdkfd's batch counts its takeover: 2 ioctls for 4096 ranges, 2048x fewer" 0 \
	'^registration syscalls per range: 1 -> 0.000488281 \(2048x fewer\)$' \
	kt compare "$out/per-range.json" "$out/kfd-batch.json"
expect_out "compare --threshold: the takeover counts: 1 -> 2 ioctls for a batch exits 1" 1 \
	'^REGRESSION registration syscalls per range: \+100.0% \(threshold 10%\)$' \
	kt compare --threshold 10 "$out/batch.json" "$out/kfd-batch.json"
expect_out "compare: a regression reads \"more\", never \"0x fewer\"" 0 \
	'^registration syscalls per range: 0.000244141 -> 1 \(4096x more\)$' \
	kt compare "$out/batch.json" "$out/per-range.json"
expect_out "compare --threshold: a regression of the syscalls exits 1" 1 \
	'^REGRESSION registration syscalls per range: \+409500.0% \(threshold 10%\)$' \
	kt compare --threshold 10 "$out/batch.json" "$out/per-range.json"
expect_out "compare --threshold 10: 15% more time in registration exits 1" 1 \
	'^REGRESSION time in registration ioctls: \+15.0% \(threshold 10%\)$' \
	kt compare --threshold 10 "$out/per-range.json" "$out/per-range-slow.json"
tap_expect_status "compare --threshold 20: 15% more time passes" 0 \
	kt compare --threshold 20 "$out/per-range.json" "$out/per-range-slow.json"
expect_out "compare --threshold: NEW registered nothing exits 1" 1 \
	'^REGRESSION NEW registered no range' \
	kt compare --threshold 10 "$out/per-range.json" "$out/mix.json"
tap_expect_status "compare --threshold: BASE registered nothing exits 2" 2 \
	kt compare --threshold 10 "$out/mix.json" "$out/per-range.json"
tap_expect_status "compare: a bad --threshold exits 2" 2 \
	kt compare --threshold x "$out/per-range.json" "$out/batch.json"

# --- the JSON reader on nesting too deep for recursion: an error, not a crash
printf '%*s' 1000000 '' | tr ' ' '[' >"$out/deep.json"
expect_out "check: a deeply nested file is an error (exit 2), not a crash" 2 'depth' \
	kt check --expect "a == 1" "$out/deep.json"

# --- record: the workload's real end in the JSON
rm -f "$out/term.json" "$out/term.err" "$out/term.pid"
# (the binary itself in the background, so that $! is kfdtrace's PID)
"$bin/kfdtrace" record -o "$out/term.json" -- sh -c "echo \$\$ >'$out/term.pid'; exec sleep 60" \
	>/dev/null 2>"$out/term.err" &
kpid=$!
for _ in $(seq 300); do
	[ -s "$out/term.pid" ] && break
	sleep 0.1
done
kill -TERM $kpid
rc=0
wait $kpid || rc=$?
[ $rc = 143 ] && tap_ok "record: SIGTERM to kfdtrace ends the command, exit 143" ||
	{ tap_diag <"$out/term.err"; tap_fail "record: SIGTERM to kfdtrace ends the command, exit 143 (exit $rc)"; }
if [ -s "$out/term.pid" ] && ! kill -0 "$(cat "$out/term.pid")" 2>/dev/null; then
	tap_ok "record: ... and leaves no orphan"
else
	tap_fail "record: ... and leaves no orphan"
	kill "$(cat "$out/term.pid")" 2>/dev/null
fi
json_is "$out/term.json" '[.status, .signal, .stop] | @tsv' $'143\t15\tsignal' \
	"record: SIGTERM: JSON status 143, signal 15, stop \"signal\""

rm -f "$out/int.json" "$out/int.pid"
"$bin/kfdtrace" record -o "$out/int.json" -- sh -c "echo \$\$ >'$out/int.pid'; exec sleep 60" \
	>/dev/null 2>&1 &
kpid=$!
for _ in $(seq 300); do
	[ -s "$out/int.pid" ] && break
	sleep 0.1
done
kill -INT $kpid
rc=0
wait $kpid || rc=$?
[ $rc = 130 ] && tap_ok "record: SIGINT is forwarded too, exit 130" ||
	tap_fail "record: SIGINT is forwarded too, exit 130 (exit $rc)"
json_is "$out/int.json" '[.status, .signal, .stop] | @tsv' $'130\t2\tsignal' \
	"record: SIGINT: JSON status 130, signal 2, stop \"signal\""

tap_expect_status "record -d 1 -- sleep 3: SIGTERM at the deadline, exit 143" 143 \
	kt record -d 1 -o "$out/deadline.json" -- sleep 3
json_is "$out/deadline.json" '[.status, .signal, .stop, (.seconds < 2.5)] | @tsv' \
	$'143\t15\tdeadline\ttrue' "record -d 1: JSON status 143, signal 15, stop \"deadline\", < 2.5 s"
tap_expect_status "record -d 1: a command that ignores SIGTERM is killed 5 s later" 137 \
	kt record -d 1 -o "$out/deadline-kill.json" -- \
	sh -c 'trap "" TERM; i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done'
json_is "$out/deadline-kill.json" '[.status, .signal, .stop] | @tsv' $'137\t9\tdeadline' \
	"record -d 1: ... JSON status 137, signal 9"
tap_expect_status "record -- exit 3: exit 3" 3 kt record -o "$out/exit3.json" -- sh -c 'exit 3'
json_is "$out/exit3.json" '[.status, .signal, .stop] | @tsv' $'3\t0\texit' \
	"record -- exit 3: JSON status 3, signal 0, stop \"exit\""

# --- record: errors found before the run
rm -f "$out/ran"
expect_out "record -o /nonexistent/x.json fails at once (exit 2)" 2 \
	'^kfdtrace: /nonexistent/x.json: No such file or directory$' \
	kt record -o /nonexistent/x.json -- sh -c "touch '$out/ran'"
[ ! -e "$out/ran" ] && tap_ok "record -o: ... before the command ran" ||
	tap_fail "record -o: ... before the command ran"
expect_out "record ls: says the command goes after --" 2 'a command to trace goes after "--"' \
	kt record ls
expect_out "record -p of a process that does not exist: exit 2" 2 \
	'^kfdtrace: -p 2147483647: no such process$' kt record -p 2147483647
for c in record compare check; do
	expect_out "$c -h: its usage on stdout, exit 0" 0 "^Usage: kfdtrace $c " kt $c -h
done
expect_out "kfdtrace -h: the commands" 0 '^  compare ' kt -h

# --- libbpf speaks only with -v
err=$(kt record -- true 2>&1 >/dev/null)
if [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && has_line '^kfdtrace: probes live: ioctl' <<<"$err"; then
	tap_ok "record without -v: one line on stderr (the live probes)"
else
	printf '%s\n' "$err" | tail -n 20 | tap_diag
	tap_fail "record without -v: one line on stderr (the live probes)"
fi
expect_out "record -v: libbpf's messages" 0 '^libbpf: ' kt record -v -- true
# the targets are asked before the load: a kernel that refuses fentry or
# makes no kprobes (this host refuses fentry on the notifiers) loads at the
# first attempt, and nothing it was given fails to attach
err=$(kt record -v -- true 2>&1 >/dev/null)
if ! has_line '^kfdtrace: (load attempt|cannot attach)' <<<"$err" &&
   has_line '^kfdtrace: probes live: ioctl' <<<"$err"; then
	tap_ok "record -v: one load, every program given attaches"
else
	printf '%s\n' "$err" | grep '^kfdtrace: ' | tap_diag
	tap_fail "record -v: one load, every program given attaches"
fi
expect_out "record without privileges: exit 2 and a hint" 2 'needs root \(or CAP_BPF' \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$bin/kfdtrace" record -- true

# --- a task name that is not UTF-8 is written escaped, the JSON stays valid
cp "$bin/ioctl_mix" "$out/mix"$'\xff'
kt record -o "$out/latin.json" -- "$out/mix"$'\xff' >/dev/null 2>&1
if iconv -f UTF-8 -t UTF-8 "$out/latin.json" >/dev/null 2>&1 &&
   [ "$(jq -r '[.processes[].comm] | unique | .[]' "$out/latin.json")" = 'mix\xff' ]; then
	tap_ok "record: a name that is not UTF-8 is written as mix\\xff, valid UTF-8"
else
	grep comm "$out/latin.json" | head -n 3 | tap_diag
	tap_fail "record: a name that is not UTF-8 is written as mix\\xff, valid UTF-8"
fi
[ $TAP_FAILED -eq 0 ]
