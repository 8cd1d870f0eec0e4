#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest suite of the batch userptr core: the helper's KUnit suite, then the
# series' selftests of its test device through the kselftest runner (with
# zram swap for the MADV_PAGEOUT test),
# libuserptr on the device, userptr-bench's counts, an eviction storm of
# userptr-stress, then unloading the device, which must leave nothing
# behind. kfdtrace and the bpftrace views on the device are
# guest/kfdtrace's (tools/selftests/kfdtrace). This is the suite that runs
# the device's code under kmemleak, besides guest/smoke's load and unload.
# Runs inside the guest (scripts/vm-run), prints TAP lines.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

tap_kunit drm_userptr_batch_test

. "$top/tools/selftests/userptr/lib.sh"
zram_swap

# userptr-bench, as a tool (its times are not asserted): the ioctls of
# each mode, in its JSON, and every device read checked by it
# userptr-virgl: every device read is checked against the guest's page,
# so a run that ends 0 read the right data each way; the counts of the
# four ways; -O registers and frees only; and the vm.max_map_count wall of
# the stitching, which the batch of the same iovecs does not meet
virgl_counts() {
	local json=/tmp/virgl.json out old
	tap_run "userptr-virgl: a blob of 256 guest pages, four ways, restores, reads checked" \
		"$top/build/bin/userptr-virgl" -n 256 -r 1 -o "$json" || return
	tap_run "userptr-virgl: batch 1 ioctl and no VMA, stitch 1 ioctl and a VMA per iovec, per-iovec one each, contiguous 1 and no VMA" \
		jq -e '.iovecs > 100 and .iovecs < 256 and .ways.batch.ioctls == 1 and
		       .ways.batch.vmas == 0 and .ways.stitch.ioctls == 1 and
		       .ways.stitch.vmas >= .iovecs and
		       .ways["per-range"].ioctls == .iovecs and
		       .ways.contiguous.ioctls == 1 and .ways.contiguous.vmas == 0' "$json"
	# -O, as tools/bench/icount-profile.sh runs it: registration and
	# teardown only, no read and no restore timed
	tap_run "userptr-virgl -O: each blob registered and freed, nothing between" \
		"$top/build/bin/userptr-virgl" -O -n 256 -r 1 -w batch -w contiguous -o "$json" || return
	tap_run "userptr-virgl -O: registrations timed, no access or restore" \
		jq -e '.ways.batch.ioctls == 1 and .ways.batch.register_ms > 0 and
		       .ways.contiguous.register_ms > 0 and .ways.batch.access_ms == null and
		       .ways.batch.restore_1_ms == null and .ways.batch.restore_half_ms == null and
		       .ways.contiguous.access_ms == null and .ways.batch.teardown_ms > 0' "$json"
	read -r old </proc/sys/vm/max_map_count
	echo 256 >/proc/sys/vm/max_map_count
	out=$("$top/build/bin/userptr-virgl" --map-limit -n 1024 2>&1)
	echo "$old" >/proc/sys/vm/max_map_count
	printf '%s\n' "$out" | tap_diag
	if [[ $out == *"stitching fails at N = "*"Cannot allocate memory"* ]] &&
	   [[ $out == *"the batch of the same"*"registers: 1 ioctl"* ]]; then
		tap_ok "userptr-virgl --map-limit: stitching fails at vm.max_map_count = 256, the batch does not"
	else
		tap_fail "userptr-virgl --map-limit: stitching fails at vm.max_map_count = 256, the batch does not"
	fi
}

bench_counts() {
	local json=/tmp/bench.json
	tap_run "userptr-bench: 64 ranges in three modes, restore of 1 and 32" \
		"$top/build/bin/userptr-bench" -n 64 -S 64k -k 1 -k half -r 1 -o "$json" || return
	tap_run "userptr-bench: per-range 64 ioctls, batch 1, contiguous 1 of 1 range" \
		jq -e '.modes["per-range"].ioctls == 64 and .modes.batch.ioctls == 1 and
		       .modes.batch.ranges == 64 and .modes.contiguous.ioctls == 1 and
		       .modes.contiguous.ranges == 1 and .k == [1, 32] and
		       .ratios.register_per_range_over_batch > 0' "$json"
	# a run without per-range, the first mode, still writes valid JSON
	if "$top/build/bin/userptr-bench" -n 16 -m batch -m contiguous -r 1 -o "$json" >/dev/null; then
		tap_run "userptr-bench: the JSON of batch and contiguous alone parses" \
			jq -e '(.modes | keys) == ["batch", "contiguous"] and
			       .ratios.register_batch_over_contiguous > 0 and
			       .modes.contiguous.vmas == 1' "$json"
	else
		tap_fail "userptr-bench -m batch -m contiguous"
	fi
	# the contiguous reference over the VMAs of a scattered layout: 16
	# ranges, 8 of them mmap'd (a VMA each) and 8 in the heap
	if "$top/build/bin/userptr-bench" -n 16 -m batch -m contiguous --vma-per-range \
		-r 1 -o "$json" >/dev/null; then
		tap_run "userptr-bench --vma-per-range: one contiguous range over 16 VMAs" \
			jq -e '.contiguous_vma_per_range and .modes.contiguous.ranges == 1 and
			       .modes.contiguous.vmas == 16 and .modes.batch.vmas > 8' "$json"
	else
		tap_fail "userptr-bench --vma-per-range"
	fi
	# the gap probe fails by itself when a gap evicts; its JSON has the
	# one notifier of the batch and the helper's memory
	if "$top/build/bin/userptr-bench" -n 64 --gap-probe -r 1 -o "$json" >/dev/null; then
		tap_run "userptr-bench --gap-probe: 64 gap pages dropped, no eviction, 1 notifier" \
			jq -e '.windows == 1 and .ratio > 0 and .helper_bytes_per_range > 0' "$json"
	else
		tap_fail "userptr-bench --gap-probe"
	fi
}

# the series' selftests of the device, through the kselftest runner
kselftests

if tap_run "modprobe userptr_emu" load_emu; then
	# the library and the benchmark on it; all but kfd_without_a_gpu,
	# which needs amdgpu loaded (guest/smoke runs it), and batch_hidden
	# and hsakmt_batch_hidden, which need the device without its batch
	# ioctl (below)
	"$top/build/bin/userptr_lib_tests" -T kfd_without_a_gpu -T batch_hidden \
		-T hsakmt_batch_hidden ||
		TAP_FAILED=$((TAP_FAILED + 1))
	bench_counts
	virgl_counts
	# eviction storms with the restore worker and device reads racing
	# them, here where kmemleak is on (guest/kfdtrace runs a longer one
	# under kfdtrace, with kmemleak off)
	tap_run "userptr-stress: 64 ranges, 60 changes of every kind, no stale read" \
		"$top/build/bin/userptr-stress" -n 64 -s 16k -i 60
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu
fi
# discovery: the device of a kernel without the batch ioctl
if tap_run "modprobe userptr_emu hide_batch=1" modprobe userptr_emu hide_batch=1; then
	"$top/build/bin/userptr_lib_tests" -r global.batch_hidden -r global.hsakmt_batch_hidden ||
		TAP_FAILED=$((TAP_FAILED + 1))
	tap_run "rmmod userptr_emu (hide_batch=1)" modprobe -r userptr_emu
fi
[ $TAP_FAILED -eq 0 ]
