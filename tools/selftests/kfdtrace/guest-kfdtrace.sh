#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest suite of the observability tools on the emulated device: kfdtrace's
# counts (4096 ranges one by one = 4096 ioctls, as a batch 1; one notifier
# per range), its eviction verdict over the invalidation tests and under
# userptr-stress, and the four bpftrace views; which calls are the
# device's (its file and its commands, not KFD numbers on /dev/null or on
# the device), the follow map (1400 processes, a worker behind 1100
# threads, an overflow reported as incomplete); kfdtrace feature's states
# with the device unloaded, loaded and loaded without its batch ioctl, each
# the groups record then loads; last, with amdgpu and kernel/kfd-node-shim
# loaded, /dev/kfd's calls by class (the takeover of a GEM userptr,
# amdkfd's batch's second step, as gem_import) and feature's kfd_takeover
# (KFD 1.24 on). The device's own selftests
# are guest/userptr's, all but reg.r4096_4k, which runs here, under
# kfdtrace; this suite runs beside it. scripts/check runs it with kmemleak
# off: its point is the tools' counts and verdicts, and kmemleak's
# tracking took 40% of its time (250 s against 138 s alone). The device's
# code runs under kmemleak in guest/userptr: registration one by one of 1
# to 64 ranges, batched of up to 8192, the invalidation tests and a storm.
# Runs inside the guest (scripts/vm-run), prints TAP lines.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
. "$top/tools/selftests/lib/bt_ioctl.sh"
echo "TAP version 13"
. "$top/tools/selftests/userptr/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bt_expect NAME CMD REGEX...: run the four bpftrace views as one program
# (bpftrace compiles slowly under TCG) with -c CMD; passes when the output
# has a line matching each REGEX
bt_expect() {
	local name=$1 cmd=$2 out re ok=1 prog
	shift 2
	# one program may have one END: the scripts' ENDs only clear maps
	prog=$(awk '/^#!/ { next } /^END$/ { skip = 1 } !skip { print } skip && /^}$/ { skip = 0 }' \
		"$top"/bpf/bpftrace/{kfd_ioctl,hmm_fault,userptr_inval,userptr_restore}.bt
	       echo 'END { clear(@class); clear(@asked); clear(@start); clear(@evicted_at); }')
	out=$(bt_run -e "$prog" -c "$cmd" 2>&1)
	for re in "$@"; do
		has_line "$re" <<<"$out" && continue
		echo "no line matches: $re" | tap_diag
		ok=0
	done
	if [ $ok -eq 1 ]; then
		tap_ok "$name"
	else
		tap_diag_last 30 . <<<"$out"
		tap_fail "$name"
	fi
}

# the bpftrace views on the device, with Debian's bpftrace: 16 ranges of
# 2 MiB one by one and batched, then MADV_DONTNEED on a registered range
# of the inv fixture's batch of 8 (2 batch calls, 24 ranges in all). Each
# registration's pages are mapped, so each is read by one
# hmm_range_read_many() call (at most 16384 pages): 18 HMM calls, and
# more for the restores after MADV_DONTNEED (25 on 7.3.4); each returned
# its pages, counted as @ret[0].
bpftrace_views() {
	bt_expect "bpftrace views: ioctls, HMM faults, invalidations, restores" \
		"$top/build/bin/userptr_emu_tests -v r16_2m -t madv_dontneed" \
		'^@calls\[userptr_emu_tes, emu_userptr\]: 16$' \
		'^@calls\[userptr_emu_tes, emu_batch\]: 2$' \
		'^@ranges\[userptr_emu_tes, emu_batch\]: 24$' \
		'^@ret\[0\]: (19|[2-9][0-9]|[1-9][0-9]{2,})$' '^@pages: ([1-9][0-9]{4,})$' \
		'^@invalidations\[[0-9]+, 1\]: [1-9]' '^@evicted\[[0-9]+\]: [1-9]' \
		'^@evict_to_restore_us:' '^@populate_us:'
}

# hmm_fault.bt and kfdtrace on the reads of a populate: a blob of 1024
# guest pages at random frames of 64 MiB of touched guest RAM, registered
# as one batch twice (the workload's warm-up and its repetition), with
# nothing to fault. With the helper's read_in_order at 0, each window is
# read in hmm_range_fault_many() calls of 156 to 224 runs (the helper's
# DRM_USERPTR_READ_RUNS is 256), and the view sums the pages of every
# range of each call: at least the blob's a registration (gap pages walked
# inside runs add to them). At 1 (the default), hmm_range_read_many()
# reads the blob's pages and nothing else: the view sums its returns,
# exactly the blob's 2048. Either way as many as kfdtrace's hmm probe
# counts over the same command. BT_HMM_SCRIPT runs another script in the
# view's place.
hmm_fault_many() {
	local in_order=$1
	local cmd="$top/build/bin/userptr-virgl -n 1024 -G 64 -O -r 1 -w batch"
	local par=/sys/module/drm_userptr_batch/parameters/read_in_order
	local out bt kt ok name

	if [ "$in_order" = 0 ]; then
		name="hmm_fault.bt: every range of reads of up to 256 runs, as kfdtrace"
	else
		name="hmm_fault.bt: the pages of reads in the caller's order, as kfdtrace"
	fi
	if ! echo "$in_order" >"$par"; then
		tap_fail "$name: no $par"
		return
	fi
	out=$(bt_run "${BT_HMM_SCRIPT:-$top/bpf/bpftrace/hmm_fault.bt}" -c "$cmd" 2>&1)
	bt=$(sed -n 's/^@pages: //p' <<<"$out")
	"$top/build/bin/kfdtrace" record -a -o "$tmp/many.json" -- $cmd >"$tmp/many.txt" 2>&1
	kt=$(jq -r '.hmm.pages' "$tmp/many.json" 2>/dev/null)
	echo 1 >"$par"
	ok=0
	if [[ $bt =~ ^[0-9]+$ ]] && [ "$bt" = "$kt" ]; then
		if [ "$in_order" = 0 ]; then
			[ "$bt" -ge 2048 ] && ok=1
		else
			[ "$bt" -eq 2048 ] && ok=1
		fi
	fi
	if [ $ok = 1 ]; then
		tap_ok "$name ($bt pages)"
	else
		echo "view: ${bt:-none} pages, kfdtrace: ${kt:-none}, the blob's: 2048" | tap_diag
		tap_diag_last 20 . <<<"$out"
		tap_fail "$name"
	fi
}

# 7.3's hmm_range_fault_unlocked_timeout(), through which drm_gpusvm
# (Xe's userptr) faults: hmm-tests' userfaultfd_read has test_hmm read 4
# pages of a userfaultfd range with it, the test's handler thread filling
# them while the fault waits without the mmap lock (the device-coherent
# variant skips: this guest reserves no memory for it). It calls neither
# hmm_range_fault() nor hmm_range_fault_many(): what the hmm probes and
# hmm_fault.bt count is that call.
hmm_unlocked() {
	local cmd="$top/build/bin/hmm-tests -t userfaultfd_read" out bt
	local name="hmm_fault.bt: hmm_range_fault_unlocked_timeout() (a userfaultfd range)"

	if ! tap_run "modprobe test_hmm" modprobe test_hmm; then
		return
	fi
	tap_run "kfdtrace: hmm_range_fault_unlocked_timeout() counted (a userfaultfd range)" \
		"$top/build/bin/kfdtrace" check -a \
		--expect "status == 0" --expect "probes.hmm == 1" \
		--expect "hmm.calls >= 1" --expect "hmm.pages >= 4" \
		--expect "hmm.errors == 0" -- $cmd
	out=$(bt_run "$top/bpf/bpftrace/hmm_fault.bt" -c "$cmd" 2>&1)
	bt=$(sed -n 's/^@pages: //p' <<<"$out")
	if [[ $bt =~ ^[0-9]+$ ]] && [ "$bt" -ge 4 ] && grep -q '^@ret\[0\]: [1-9]' <<<"$out"; then
		tap_ok "$name ($bt pages)"
	else
		tap_diag_last 20 . <<<"$out"
		tap_fail "$name"
	fi
}

# same_ioctl_counts NAME DRIVER.json OTHER.json AT [DEV]: OTHER counted
# DEV (emu unless given) at AT and has DRIVER's ioctl counts, calls,
# errors and ranges by class, by name and by errno (not the time: the
# driver's or the syscall's), and the same command's status 0
same_ioctl_counts() {
	local name=$1 a=$2 b=$3 at=$4 dev=${5:-emu} f got want

	f='{ioctl: (.ioctl | del(.counted_at) | walk(if type == "object" then del(.ns) else . end)),
	    ranges: (.ranges | del(.registration_ms)), status}'
	want=$(jq -S "$f" "$a" 2>&1)
	got=$(jq -S "$f" "$b" 2>&1)
	if [ "$(jq -r ".ioctl.counted_at.$dev" "$b" 2>&1)" = "$at" ] &&
	   [ "$(jq -r .status "$b")" = 0 ] && [ "$got" = "$want" ] &&
	   [ "$(jq -r .ioctl.total "$b")" -gt 0 ]; then
		tap_ok "$name ($(jq -r '"\(.ioctl.total) calls, \(.ranges.registered) ranges"' "$b"))"
	else
		jq -c .ioctl.counted_at "$b" 2>&1 | tap_diag
		diff <(echo "$want") <(echo "$got") | tap_diag
		tap_fail "$name"
	fi
}

# The render-node route (libuserptr's UPR_MODE_RENDER*): 64 ranges as one
# GEM userptr with a ranges array, then one GEM userptr per range, each
# object taken over by the device's file (IMPORT_GEM), one range of each
# invalidated and restored. kfdtrace counts them by class and by name at
# drm_ioctl() (fentry, the kprobe fallback) and at the syscalls (-S), the
# same; the verdict follows the taken-over batches through their eviction
# and restore; kfd_ioctl.bt counts them class by class as kfdtrace.
render_node_counts() {
	local kt=$top/build/bin/kfdtrace at way
	local cmd="$top/build/bin/userptr-bench -n 64 -s 4k -m render -m render-per-range -k 1 -r 1 -W"

	for at in "" --debug-ioctl-at=kprobe -S; do
		case $at in
		"") way=fentry ;;
		-S) way=syscall ;;
		*) way=kprobe ;;
		esac
		"$kt" record $at -o "$tmp/render-$way.json" -- $cmd >"$tmp/render-$way.txt" 2>&1
		tap_run "kfdtrace: render node ($way): 64 ranges as one GEM batch take 2 ioctls, one by one 128" \
			"$kt" check \
			--expect "ioctl.counted_at.drm == \"$way\"" \
			--expect "ioctl.gem_batch.calls == 1" --expect "ioctl.gem_batch.ranges == 64" \
			--expect "ioctl.gem_userptr.calls == 64" --expect "ioctl.gem_userptr.ranges == 64" \
			--expect "ioctl.gem_import.calls == 65" --expect "ioctl.takeover == 65" \
			--expect "ioctl.gem_close.calls == 0" --expect "ioctl.errors == 0" \
			--expect "ioctl.batch_alloc == 1" --expect "ioctl.userptr_alloc == 64" \
			--expect "ranges.registered == 128" \
			--expect "ioctl.by_name.DRM_IOCTL_USERPTR_EMU_GEM_USERPTR.calls == 65" \
			--expect "ioctl.by_name.USERPTR_EMU_IOC_IMPORT_GEM.calls == 65" \
			--expect "ioctl.emu_batch.calls == 0" --expect "ioctl.emu_userptr.calls == 0" \
			--expect 'verdict.eviction == "pass"' --expect "evict.emu >= 2" \
			--expect "restore.emu >= 2" --expect "status == 0" \
			"$tmp/render-$way.json" || tap_diag_last 30 . <"$tmp/render-$way.txt"
	done
	bt_ioctl_same "kfd_ioctl.bt: the render node's GEM userptrs at drm_ioctl, class by class as kfdtrace" \
		"$tmp/render-fentry.json" "$cmd"
}

# which calls are the device's, and the follow map, with the device loaded
attribution_and_following() {
	local kt=$top/build/bin/kfdtrace mix=$top/build/bin/ioctl_mix fl=$top/build/bin/follow_load

	# ioctl_mix on the device, then on /dev/null: of the 56 calls only
	# the device's own commands on its file are its (6 allocations and 7
	# batches, each refused: EINVAL), KFD's numbers on it and everything
	# on /dev/null are not_device
	# At the device's driver entry (the default) the calls on /dev/null are
	# not seen, and not_device is the 15 KFD numbers on the device's file;
	# -S sees /dev/null's 28 too, as do the tracepoints where they are
	# attached beside the driver's entry (which they then leave the
	# device's file to: no call counted twice). The kprobe fallback of
	# the driver's entry counts as fentry does.
	local mixcmd=('"$1" /dev/userptr_emu && "$1" /dev/null' _ "$mix") at way
	for at in "" --debug-ioctl-at=kprobe; do
		way=fentry
		[ -n "$at" ] && way=kprobe
		tap_run "the device's calls at its driver's entry ($way): 15 KFD numbers on it are not_device, /dev/null unseen" \
			"$kt" check $at --expect "ioctl.counted_at.emu == \"$way\"" \
			--expect 'ioctl.counted_at.other_files == "none"' \
			--expect "ioctl.emu_userptr.calls == 6" --expect "ioctl.emu_batch.calls == 7" \
			--expect "ioctl.emu_userptr.errors == 6" --expect "ioctl.not_device.calls == 15" \
			--expect "ioctl.total == 28" --expect "ioctl.errno.EINVAL == 13" \
			--expect "ioctl.by_name.USERPTR_EMU_IOC_ALLOC_BATCH.calls == 7" \
			-- sh -c "${mixcmd[@]}"
	done
	# kfd_ioctl.bt at the driver's entry: the same, class by class
	# (bpftrace -c splits its command at spaces, without a shell, and runs
	# ELF programs alone: the two runs as a script of sh's)
	printf '"%s" /dev/userptr_emu && "%s" /dev/null\n' "$mix" "$mix" >"$tmp/mix.sh"
	"$kt" record -o "$tmp/mix.json" -- /bin/sh "$tmp/mix.sh" >/dev/null 2>&1
	bt_ioctl_same "kfd_ioctl.bt: the device's calls at uemu_ioctl, class by class as kfdtrace, /dev/null unseen" \
		"$tmp/mix.json" "/bin/sh $tmp/mix.sh"
	for at in -S --debug-ioctl-at=both --debug-ioctl-at=none; do
		way=syscall
		[ $at = --debug-ioctl-at=both ] && way=fentry
		tap_run "the device's calls are those on its file (emu at $way, $at): KFD numbers on it and /dev/null are not_device" \
			"$kt" check $at --expect "ioctl.counted_at.emu == \"$way\"" \
			--expect 'ioctl.counted_at.other_files == "syscall"' \
			--expect "ioctl.emu_userptr.calls == 6" --expect "ioctl.emu_batch.calls == 7" \
			--expect "ioctl.emu_userptr.errors == 6" --expect "ioctl.not_device.calls == 43" \
			--expect "ioctl.kfd_userptr.calls == 0" --expect "ioctl.gem_import.calls == 0" \
			--expect "ioctl.kfd_free.calls == 0" --expect "ioctl.kfd_other.calls == 0" \
			--expect "ioctl.userptr_alloc == 6" --expect "ioctl.batch_alloc == 7" \
			--expect "ioctl.total == 56" --expect "ranges.registered == 0" \
			--expect "ioctl.by_name.USERPTR_EMU_IOC_ALLOC.errors == 6" \
			--expect "ioctl.by_name.USERPTR_EMU_IOC_ALLOC_BATCH.calls == 7" \
			--expect "ioctl.by_name.AMDKFD_IOC_ALLOC_MEMORY_OF_GPU.calls == 0" \
			--expect "ioctl.errno.EINVAL == 13" --expect 'devices.emu != ""' \
			-- sh -c "${mixcmd[@]}"
	done
	# each worker: KFD's GET_VERSION (not_device on the device) and the
	# device's STATS (emu_other; refused without an allocation: EBADF)
	tap_run "1400 processes one after another: each one's calls" \
		"$kt" check --expect "ioctl.emu_other.calls == 1400" \
		--expect "ioctl.not_device.calls == 1400" --expect "follow.added == 1400" \
		--expect "follow.removed == 1401" --expect "status == 0" \
		-- "$fl" seq 1400 /dev/userptr_emu
	tap_run "a worker forked behind 1100 threads: its calls" \
		"$kt" check --expect "ioctl.by_name.USERPTR_EMU_IOC_STATS.calls == 1" \
		--expect "ioctl.total == 2" --expect "status == 0" \
		-- "$fl" threads 1100 /dev/userptr_emu
	local o rc=0
	o=$("$kt" check --debug-follow-max 4 --expect "ioctl.total == 40" \
		-- "$fl" live 20 /dev/userptr_emu 2>&1) || rc=$?
	if [ $rc = 1 ] && has_line '^INCOMPLETE: the recording lost 17 ' <<<"$o" &&
	   has_line '^  lost.follow = 17: ' <<<"$o"; then
		tap_ok "a follow map of 4, 20 processes alive: INCOMPLETE (lost.follow 17), exit 1"
	else
		tap_diag_last 30 . <<<"$o"
		tap_fail "a follow map of 4, 20 processes alive: INCOMPLETE (lost.follow 17), exit 1 (exit $rc)"
	fi
}

# -c CGROUP: of two ioctl_mix runs on the device under one command, only
# the one that moved itself into the cgroup is counted (28 calls of 56)
cgroup_filter() {
	local kt=$top/build/bin/kfdtrace mix=$top/build/bin/ioctl_mix cg=/sys/fs/cgroup

	if ! grep -q " $cg cgroup2 " /proc/mounts && ! mount -t cgroup2 none "$cg"; then
		tap_fail "-c CGROUP: cgroup2 cannot be mounted"
		return
	fi
	mkdir -p "$cg/kt-in"
	tap_run "-c CGROUP: only the calls made inside it, 28 of 56" \
		"$kt" check -c "$cg/kt-in" --expect "ioctl.total == 28" \
		--expect "ioctl.emu_userptr.calls == 6" --expect "ioctl.emu_batch.calls == 7" \
		--expect "status == 0" \
		-- bash -c 'bash -c "echo 0 >$2/cgroup.procs && exec $1 /dev/userptr_emu" &&
			   "$1" /dev/userptr_emu' _ "$mix" "$cg/kt-in"
	rmdir "$cg/kt-in"
}

# amdgpu without a GPU, then with kernel/kfd-node-shim (KFD counts one GPU
# node: a process opens /dev/kfd, each gpu_id lookup still finds nothing),
# as guest/smoke loads them: kfdtrace feature's kfd_takeover (IMPORT_DMABUF
# takes a GEM userptr from KFD 1.24 on, asked with GET_VERSION) is off
# while /dev/kfd does not open and live once it does; ioctl_mix on /dev/kfd
# is counted by class at kfd_ioctl() (fentry) and with -S alike: the
# IMPORT_DMABUF of a GEM handle (dmabuf_fd KFD_INVALID_FD) is gem_import,
# a takeover (refused here: no GPU), amdkfd's other numbers their classes,
# the device's numbers on /dev/kfd not_device; kfd_ioctl.bt the same.
# Last in the suite: amdgpu stays loaded.
kfd_takeover() {
	local kt=$top/build/bin/kfdtrace mix=$top/build/bin/ioctl_mix json at way f

	tap_run "modprobe amdgpu" modprobe amdgpu || return
	json=$("$kt" feature -j 2>&1)
	if [ "$(jq -r '[.features.kfd_dev.live, .features.kfd_takeover.live,
			(.features.kfd_takeover.reason | test("^/dev/kfd does not open read-write"))] |
		       @tsv' <<<"$json" 2>&1)" = $'false\tfalse\ttrue' ]; then
		tap_ok "kfdtrace feature: amdgpu without a GPU node: kfd_takeover off, /dev/kfd does not open"
	else
		"$kt" feature 2>&1 | tap_diag
		tap_fail "kfdtrace feature: amdgpu without a GPU node: kfd_takeover off, /dev/kfd does not open"
	fi
	tap_run "modprobe kfd_node_shim" modprobe kfd_node_shim || return
	json=$("$kt" feature -j 2>&1)
	if [ "$(jq -r '[.features.kfd_dev.live, .features.kfd_takeover.live,
			(.features.kfd_takeover.reason |
			 test("^KFD 1\\.(2[4-9]|[3-9][0-9]): IMPORT_DMABUF takes over a GEM userptr .*; GEM_USERPTR with AMDGPU_GEM_USERPTR_RANGES: [1-9][0-9]* ranges at most"))] |
		       @tsv' <<<"$json" 2>&1)" = $'true\ttrue\ttrue' ]; then
		tap_ok "kfdtrace feature: with a KFD node: kfd_takeover live ($(jq -r .features.kfd_takeover.reason <<<"$json"))"
	else
		"$kt" feature 2>&1 | tap_diag
		tap_fail "kfdtrace feature: with a KFD node: kfd_takeover live (KFD 1.24 on)"
	fi
	for at in "" -S; do
		way=fentry
		[ -n "$at" ] && way=syscall
		f=$tmp/kfd-mix-$way.json
		"$kt" record $at -o "$f" -- "$mix" /dev/kfd >"$f.txt" 2>&1
		tap_run "kfdtrace ($way): ioctl_mix on /dev/kfd: the takeover is gem_import, no batch class" \
			"$kt" check --expect "ioctl.counted_at.kfd == \"$way\"" \
			--expect "ioctl.kfd_userptr.calls == 3" --expect "ioctl.kfd_alloc_other.calls == 2" \
			--expect "ioctl.gem_import.calls == 1" --expect "ioctl.gem_import.errors == 1" \
			--expect "ioctl.takeover == 1" \
			--expect "ioctl.by_name.AMDKFD_IOC_IMPORT_DMABUF.calls == 1" \
			--expect "ioctl.kfd_free.calls == 4" --expect "ioctl.kfd_other.calls == 5" \
			--expect "ioctl.kfd_other.errors == 0" --expect "ioctl.not_device.calls == 13" \
			--expect "ioctl.emu_userptr.calls == 0" --expect "ioctl.emu_batch.calls == 0" \
			--expect "ioctl.userptr_alloc == 3" --expect "ioctl.batch_alloc == 0" \
			--expect "ioctl.total == 28" --expect "ranges.registered == 0" \
			--expect "status == 0" --expect "complete == 1" \
			"$f" || tap_diag_last 30 . <"$f.txt"
	done
	same_ioctl_counts "kfdtrace -S: /dev/kfd's calls, the same counts at the syscalls tracepoints" \
		"$tmp/kfd-mix-fentry.json" "$tmp/kfd-mix-syscall.json" syscall kfd
	bt_ioctl_same "kfd_ioctl.bt: /dev/kfd's calls at kfd_ioctl, the takeover too, class by class as kfdtrace" \
		"$tmp/kfd-mix-fentry.json" "$mix /dev/kfd"
}

# feature_is NAME STATES [-a]: `kfdtrace feature -j` exits 0 and says
# STATES: every feature, in order, "name=live" or "name=off", then how
# hmm and notifier load ("hmm:fentry", ":kprobe", ":-" for none); and
# record (check -- true) loads the very probe groups it calls live
feature_is() {
	local name=$1 want=$2 kt=$top/build/bin/kfdtrace json got rc=0 expects=() e
	shift 2
	json=$("$kt" feature -j "$@" 2>&1) || rc=$?
	got=$(jq -r '[(.features | to_entries[] |
			"\(.key)=\(if .value.live then "live" else "off" end)"),
		      (.features | (.hmm, .notifier) | .programs |
			if length == 0 then "-" elif all(test("_f(entry|exit)$")) then "fentry"
			elif all(test("_kprobe$|_kretprobe$")) then "kprobe" else "mixed" end) ] |
		     .[:-2] + ["hmm:" + .[-2], "notifier:" + .[-1]] | join(" ")' <<<"$json" 2>&1)
	if [ $rc = 0 ] && [ "$got" = "$want" ]; then
		tap_ok "$name"
	else
		printf 'got:  %s\nwant: %s\n' "$got" "$want" | tap_diag
		"$kt" feature "$@" 2>&1 | tap_diag
		tap_fail "$name (exit $rc)"
	fi
	mapfile -t expects < <(jq -r '.probes | to_entries[] | "probes.\(.key) == \(.value)"' <<<"$json")
	local args=()
	for e in "${expects[@]}"; do args+=(--expect "$e"); done
	tap_run "... record${1:+ $1} loads exactly the probe groups it calls live" \
		"$kt" check "$@" "${args[@]}" -- true
}

# the states of the test kernel without the device; cgroup v2 not mounted yet
feat_base="privileges=live btf=live tracefs=live fentry=live kprobe=live ioctl=live"
feature_is "kfdtrace feature: the device not loaded: hmm and notifier on fentry, no helper, no device" \
	"$feat_base hmm=live notifier=live helper=off emu=off amdgpu=off kfd_dev=off kfd_takeover=off emu_dev=off emu_batch=off drm_nodes=off cgroup=off hmm:fentry notifier:fentry"
if tap_run "modprobe userptr_emu" load_emu; then
	feature_is "kfdtrace feature: the device loaded: helper and device live, hmm and notifier off without -a" \
		"$feat_base hmm=off notifier=off helper=live emu=live amdgpu=off kfd_dev=off kfd_takeover=off emu_dev=live emu_batch=live drm_nodes=live cgroup=off hmm:- notifier:-"
	# where feature says record counts the ioctls: at the device's
	# driver entry and its render node's at drm_ioctl(), no tracepoint;
	# with -S at the tracepoints
	for at in "" -S; do
		want='{"kfd":"none","emu":"fentry","drm":"fentry","other_files":"none"}'
		[ -n "$at" ] && want='{"kfd":"none","emu":"syscall","drm":"syscall","other_files":"syscall"}'
		got=$("$top/build/bin/kfdtrace" feature -j $at | jq -c .features.ioctl.counted_at 2>&1)
		if [ "$got" = "$want" ]; then
			tap_ok "kfdtrace feature${at:+ $at}: the ioctls counted at $got"
		else
			echo "got $got, want $want" | tap_diag
			tap_fail "kfdtrace feature${at:+ $at}: the ioctls counted at $want"
		fi
	done
	feature_is "kfdtrace feature -a: the device loaded: hmm and notifier too, on fentry" \
		"$feat_base hmm=live notifier=live helper=live emu=live amdgpu=off kfd_dev=off kfd_takeover=off emu_dev=live emu_batch=live drm_nodes=live cgroup=off hmm:fentry notifier:fentry" -a
	# kfdtrace against the device (one process of the test, followed
	# through its fork): one alloc ioctl per range, or one for the batch;
	# one notifier and one HMM fault per range one by one, one notifier
	# and one HMM fault per 512 pages of span for the batch (its 4096
	# pages with a page between neighbours: 16 calls), never one per
	# range (-a: the HMM and notifier probes too, off by default with the
	# helper's tracepoints there). This is make check's only run of reg.r4096_4k
	# (guest/userptr leaves it out): its own checks, that the device reads
	# the same bytes through both paths, count through "status == 0".
	# The device's calls are counted at its driver's entry (fentry on
	# uemu_ioctl), and no syscalls tracepoint is attached. Every page is
	# mapped before it is registered: each registration is read by one
	# hmm_range_read_many() call, 4097 in all (more only if a read raced
	# an invalidation), of 8192 pages.
	"$top/build/bin/kfdtrace" record -a -o "$tmp/r4096-driver.json" \
		-- "$top/build/bin/userptr_emu_tests" -v r4096_4k >"$tmp/r4096-driver.txt" 2>&1
	tap_run "kfdtrace: 4096 ranges one by one take 4096 ioctls, as a batch 1" \
		"$top/build/bin/kfdtrace" check \
		--expect 'ioctl.counted_at.emu == "fentry"' \
		--expect 'ioctl.counted_at.other_files == "none"' \
		--expect "ioctl.emu_userptr.calls == 4096" \
		--expect "ioctl.emu_userptr.errors == 0" \
		--expect "ioctl.emu_batch.calls == 1" \
		--expect "ioctl.emu_batch.ranges == 4096" \
		--expect "ranges.registered == 8192" \
		--expect "ioctl.emu_free.calls == 4097" \
		--expect "status == 0" \
		--expect "probes.hmm == 1" --expect "probes.notifier == 1" \
		--expect "probes.helper == 1" --expect "probes.emu == 1" \
		--expect "notifier.insert == 4097" --expect "notifier.remove == 4097" \
		--expect "batch.created == 4097" --expect "batch.destroyed == 4097" \
		--expect "restore.faulted >= 8192" --expect "restore.errors == 0" \
		--expect "refault.errors == 0" \
		--expect "hmm.calls >= 4097" --expect "hmm.calls < 4400" \
		--expect "hmm.pages >= 8192" \
		"$tmp/r4096-driver.json" || tap_diag_last 30 . <"$tmp/r4096-driver.txt"
	# the fallback, forced: every ioctl at the syscalls tracepoints, the
	# same counts (the time in the calls aside: the syscall's, not the
	# driver's)
	"$top/build/bin/kfdtrace" record -S -o "$tmp/r4096-syscall.json" \
		-- "$top/build/bin/userptr_emu_tests" -v r4096_4k >"$tmp/r4096-syscall.txt" 2>&1
	same_ioctl_counts "kfdtrace -S: the same ioctl counts at the syscalls tracepoints" \
		"$tmp/r4096-driver.json" "$tmp/r4096-syscall.json" syscall
	# the eviction verdict over invalidations of every kind and a storm,
	# with the default probes: the helper's refault times, no HMM pair
	tap_run "kfdtrace: eviction verdict pass over the invalidation tests" \
		"$top/build/bin/kfdtrace" check \
		--expect 'verdict.eviction == "pass"' --expect "verdict.lost == 0" \
		--expect "probes.hmm == 0" --expect "probes.notifier == 0" \
		--expect "restore.faulted >= 4096" --expect "refault.ranges >= 5" \
		--expect "refault.p99_us > 0" \
		--expect "evict.emu >= 5" --expect "restore.emu >= 5" \
		--expect "invalidate.gap >= 7" \
		--expect "restore.evict_to_restore_count >= 5" --expect "status == 0" \
		-- "$top/build/bin/userptr_emu_tests" -t madv_dontneed -t munmap_one_range \
		-t mremap_onto_range -t fork_cow -t invalidate_between_fault_and_commit \
		-t register_4096_under_invalidation_storm -t gap_invalidation_evicts_nothing
	bpftrace_views
	render_node_counts
	hmm_fault_many 0
	hmm_fault_many 1
	hmm_unlocked
	attribution_and_following
	cgroup_filter
	tap_run "userptr-stress: no stale read, and kfdtrace's verdict passes" \
		"$top/build/bin/kfdtrace" check \
		--expect 'verdict.eviction == "pass"' --expect "verdict.lost == 0" \
		--expect "status == 0" --expect "evict.emu >= 10" --expect "ioctl.emu_batch.calls == 1" \
		-- "$top/build/bin/userptr-stress" -n 64 -s 16k -i 120
	# modprobe -r unloads the device's own dependencies, not theirs: the
	# GEM helper (drm_gem_userptr) goes with the device, the batch helper
	# it uses must be named
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu drm_userptr_batch
	# unloaded again (the helper with it); cgroup v2 is mounted now
	feature_is "kfdtrace feature: the device unloaded again, cgroup v2 mounted" \
		"$feat_base hmm=live notifier=live helper=off emu=off amdgpu=off kfd_dev=off kfd_takeover=off emu_dev=off emu_batch=off drm_nodes=off cgroup=live hmm:fentry notifier:fentry"
	if tap_run "modprobe userptr_emu hide_batch=1" modprobe userptr_emu hide_batch=1; then
		feature_is "kfdtrace feature: the device without its batch ioctl: emu_dev live, emu_batch off" \
			"$feat_base hmm=off notifier=off helper=live emu=live amdgpu=off kfd_dev=off kfd_takeover=off emu_dev=live emu_batch=off drm_nodes=live cgroup=live hmm:- notifier:-"
		tap_run "rmmod userptr_emu (hide_batch=1)" modprobe -r userptr_emu
	fi
fi
kfd_takeover
[ $TAP_FAILED -eq 0 ]
