#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/hw-check up to the GPU, on a machine without one: run as it is
# here it stops at once with exit 77, says what is missing and writes a
# report saying why; pointed at a fake sysfs (HW_CHECK_SYSFS) and /dev
# (HW_CHECK_DEV) it finds a fake GPU node (its gpu_id, name and gfx
# version in the report) and stops at the next thing missing: /dev/kfd
# (77), the series (78: no batch helper's max_ranges, an amdgpu module
# that does not use the helper), root (79), then, as root, a KFD version
# before 1.24 (78: the fake /dev/kfd answers no AMDKFD_IOC_GET_VERSION, or
# HW_CHECK_KFD_VERSION says 1.23); with all of them, as root on a machine
# without the real /dev/kfd, every step runs and fails cleanly (1). A
# CPU-only topology is no GPU (77), an unknown --gpu-id and
# a bad option exit 2, and --help prints the synopsis (exit 0); its
# programs are built by the Makefile's rules; run by sudo from a user's
# clone, what it made in build/ is given back to the user.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tools/selftests/lib/tap.sh
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
hw=$top/scripts/hw-check

# hwc NAME WANT-RC STDERR-ERE REPORT-ERE... -- ENV... [CMD...]: hw-check
# with the options in hwc_args, run by env with the words after -- (CMD:
# what runs it, setpriv), exits WANT-RC in under hwc_max seconds (a stop
# is at once), says STDERR-ERE, and its report, in a directory of its own,
# has a line matching each REPORT-ERE
hwc_args=()
hwc_max=30
hwc() {
	local name=$1 want=$2 err_re=$3 rc=0 t0=$SECONDS o=$tmp/out.$TAP_N bad=
	local -a res=()
	shift 3
	while [ "$1" != -- ]; do res+=("$1"); shift; done
	shift
	mkdir -p "$o" && chmod 0777 "$o"
	timeout $((hwc_max * 2)) env "$@" "$hw" "${hwc_args[@]}" --out "$o" >"$o.stdout" 2>"$o.stderr" || rc=$?
	[ "$rc" = "$want" ] || bad="exit $rc, expected $want"
	[ $((SECONDS - t0)) -lt "$hwc_max" ] || bad="${bad:+$bad; }took $((SECONDS - t0)) s"
	grep -Eq -- "$err_re" "$o.stderr" || bad="${bad:+$bad; }stderr without /$err_re/"
	local r
	if [ ! -s "$o/hw-check-report.txt" ]; then
		bad="${bad:+$bad; }no report"
	else
		for r in "${res[@]}"; do
			grep -Eq -- "$r" "$o/hw-check-report.txt" ||
				bad="${bad:+$bad; }report without /$r/"
		done
	fi
	if [ -z "$bad" ]; then
		tap_ok "$name"
	else
		tap_diag <"$o.stderr"
		[ ! -f "$o/hw-check-report.txt" ] || head -n 40 "$o/hw-check-report.txt" | tap_diag
		tap_fail "$name ($bad)"
	fi
}

kver=$(uname -r)
versions=("^kernel release: ${kver//./\\.}$" '^series commit: ' '^kernel/patches fingerprint: [0-9a-f]{64}$'
	  '^kfdtrace --version: ')

# this machine, as it is
if [ -d /sys/class/kfd/kfd/topology/nodes ] &&
   grep -qvx 0 /sys/class/kfd/kfd/topology/nodes/*/gpu_id 2>/dev/null; then
	tap_skip "this machine: no GPU, exit 77" "this machine has an AMD GPU in its KFD topology"
else
	hwc "this machine: stops at once, exit 77, 'no AMD GPU', a report saying why" 77 \
		'^hw-check: no AMD GPU: ' \
		'^result: STOPPED: no AMD GPU \(exit 77\)$' '^why: no AMD GPU: ' \
		'^steps: 0 passed, 0 failed, 0 skipped$' "${versions[@]}" \
		'^== machine ==$' 'no AMD GPU found' -- \
		HW_CHECK_SYSFS= HW_CHECK_DEV=
fi

# a fake sysfs: node 0 a CPU, node 1 a GPU
sys=$tmp/sys
mkdir -p "$sys/class/kfd/kfd/topology/nodes/0" "$tmp/nodev" "$tmp/dev"
n0=$sys/class/kfd/kfd/topology/nodes/0
echo 0 >"$n0/gpu_id"
echo "" >"$n0/name"
printf 'cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n' >"$n0/properties"

hwc "fake topology of a CPU alone: no AMD GPU, exit 77" 77 \
	'no node of the KFD topology .* has a gpu_id other than 0' \
	'^result: STOPPED: no AMD GPU \(exit 77\)$' '^node 0: gpu_id 0 \(CPU\)' -- \
	HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/nodev"

n1=$sys/class/kfd/kfd/topology/nodes/1
mkdir -p "$n1"
echo 1234 >"$n1/gpu_id"
echo gfx90a >"$n1/name"
printf 'cpu_cores_count 0\nsimd_count 440\nvendor_id 4098\ndevice_id 29711\ndrm_render_minor 128\ngfx_target_version 90010\n' \
	>"$n1/properties"
gpu_line='^node 1: gpu_id 1234, name gfx90a, gfx90a \(gfx_target_version 90010\), vendor_id 4098, device_id 29711, simd_count 440, drm_render_minor 128$'

hwc "fake GPU node, no /dev/kfd: past the topology, exit 77, 'no .../kfd'" 77 \
	"GPU gpu_id 1234 \(gfx90a, gfx90a\) in the topology, but no $tmp/nodev/kfd" \
	'^result: STOPPED: no /dev/kfd \(exit 77\)$' "$gpu_line" \
	'^GPU under test: gpu_id 1234 \(gfx90a, gfx90a\)$' "${versions[@]}" -- \
	HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/nodev"

: >"$tmp/dev/kfd"
chmod 0666 "$tmp/dev/kfd"
helper=$sys/module/drm_userptr_batch
hwc "fake GPU and /dev/kfd, no batch helper: the kernel lacks the series, exit 78" 78 \
	"lacks the series: no $helper/parameters/max_ranges" \
	'^result: STOPPED: kernel without the series \(exit 78\)$' "$gpu_line" \
	'^GEM userptr ranges: no .*/max_ranges \(the batch helper is not loaded\)$' -- \
	HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/dev"

mkdir -p "$helper/parameters" "$helper/holders" "$sys/module/amdgpu/holders"
echo 8192 >"$helper/parameters/max_ranges"
hwc "fake GPU, the helper, an amdgpu module not using it (a DKMS one): exit 78" 78 \
	"the amdgpu module loaded does not use drm_userptr_batch \(no $helper/holders/amdgpu\)" \
	'^result: STOPPED: kernel without the series \(exit 78\)$' \
	'^GEM userptr ranges: .* = 8192 ranges a GEM userptr at most$' \
	'^amdgpu: a module not using drm_userptr_batch' -- \
	HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/dev"

# (sysfs has a link to amdgpu's directory there)
ln -s ../../amdgpu "$helper/holders/amdgpu"
unpriv=()
[ "$(id -u)" -ne 0 ] || unpriv=(setpriv --reuid=65534 --regid=65534 --clear-groups)
# A clone in a private directory (mktemp -d makes it 0700, as make check's
# clean clones are) hides the tree from nobody: hw-check then runs from a
# world-readable copy of what it reads before it stops (scripts/, and
# kernel/ for the pinned base and the series, whose fingerprint it reports).
hw_root=$hw
if [ ${#unpriv[@]} -gt 0 ] && ! "${unpriv[@]}" test -x "$hw"; then
	mkdir -p "$tmp/tree"
	cp -a "$top/scripts" "$top/kernel" "$tmp/tree/"
	chmod -R a+rX "$tmp/tree"
	hw=$tmp/tree/scripts/hw-check
fi
hwc "fake GPU, /dev/kfd and the series, not root: exit 79 before any step" 79 \
	'^hw-check: not root' \
	'^result: STOPPED: not root \(exit 79\)$' '^GEM userptr ranges: .* = 8192 ranges a GEM userptr at most$' \
	'^amdgpu: a module using drm_userptr_batch$' \
	'^steps: 0 passed, 0 failed, 0 skipped$' -- \
	HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/dev" "${unpriv[@]}"
hw=$hw_root

# as root: the KFD version, which the fake /dev/kfd, a file, does not
# give (perl's AMDKFD_IOC_GET_VERSION fails with ENOTTY, as on any file
# that is not amdkfd's), or gives as 1.23 (HW_CHECK_KFD_VERSION): the
# kernel lacks the series, before any build or step
if [ "$(id -u)" -ne 0 ]; then
	tap_skip "fake GPU, as root: a /dev/kfd without a KFD version, exit 78" "not root"
	tap_skip "fake GPU, as root: KFD 1.23, exit 78" "not root"
else
	hwc "fake GPU, as root: a /dev/kfd without a KFD version, exit 78" 78 \
		"$tmp/dev/kfd gives no KFD version \(AMDKFD_IOC_GET_VERSION: Inappropriate ioctl for device\)" \
		'^result: STOPPED: kernel without the series \(exit 78\)$' \
		'^KFD version: unknown: AMDKFD_IOC_GET_VERSION: Inappropriate ioctl' \
		'^steps: 0 passed, 0 failed, 0 skipped$' -- \
		HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/dev"
	hwc "fake GPU, as root: KFD 1.23, exit 78" 78 \
		'KFD 1\.23: its AMDKFD_IOC_IMPORT_DMABUF takes no GEM userptr before 1\.24' \
		'^result: STOPPED: kernel without the series \(exit 78\)$' '^KFD version: 1\.23$' \
		'^steps: 0 passed, 0 failed, 0 skipped$' -- \
		HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/dev" HW_CHECK_KFD_VERSION=1.23
fi

# as root, everything found (the fake GPU, KFD 1.24), on a machine
# without the real /dev/kfd the tests open: every step runs and fails
# cleanly, each with kfdtrace's verdict and JSON in the report, and the
# run ends with nothing left registered (exit 1)
if [ "$(id -u)" -ne 0 ]; then
	tap_skip "fake GPU, as root: every step runs and fails cleanly" "not root"
elif [ -e /dev/kfd ]; then
	tap_skip "fake GPU, as root: every step runs and fails cleanly" "this machine has a /dev/kfd"
else
	# (it builds what is not built: longer on a fresh clone)
	hwc_args=(--step-timeout 60)
	hwc_max=600
	o_root=$tmp/out.$TAP_N
	hwc "fake GPU, as root: every step runs and fails cleanly, exit 1, a report of each" 1 \
		'^hw-check: [0-9]+ of [0-9]+ steps failed' \
		'^result: FAIL \(exit 1\)$' '^KFD version: 1\.24$' '^FAIL kfd_import_tests ' \
		'^FAIL gpu\.r8192\.invalidate_half .*kfdtrace check: FAIL ioctl\.gem_batch\.calls == 1 ' \
		'^FAIL takeover\.readonly_object_refuses_writable ' '^FAIL lib\.render ' \
		'^FAIL hsakmt\.registers_and_frees ' '^PASS libuserptr\.unit_tests ' \
		'^FAIL userptr-virgl ' '^SKIP gpu-readback .*kfd_gpu_readback: the HSA runtime does not start' \
		'^PASS nothing left registered ' '^== step gpu\.r1\.invalidate_one: FAIL ==$' \
		'^FAIL evict\.amdgpu >= 1: probe group amdgpu was not live' '^kfdtrace JSON:$' '^  "kfdtrace": 1,$' -- \
		HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/dev" HW_CHECK_KFD_VERSION=1.24
	# Its programs are the Makefile's goals, which a tree where only
	# `make` ran builds: a goal without a rule (an absolute path, as
	# hw-check once asked for) is "nothing to be done" when the file is
	# there, as here, and a failed build where it is not.
	if [ -s "$o_root/logs/build.log" ] &&
	   ! grep -q "Nothing to be done for '/" "$o_root/logs/build.log"; then
		tap_ok "fake GPU, as root: the programs are built by the Makefile's rules"
	else
		tap_diag_last 10 <"$o_root/logs/build.log"
		tap_fail "fake GPU, as root: the programs are built by the Makefile's rules"
	fi
fi

# run by sudo (SUDO_UID, SUDO_GID) from a clone that user owns: the
# report in the clone's build/ becomes the user's; from a clone root owns,
# it stays root's (a copy of what hw-check reads, stopping at "no
# /dev/kfd", before any build)
sudo_owner() {	# OWNER: the report's owner after a run from a tree OWNER owns
	local t=$tmp/sudo-$1
	rm -rf "$t" && mkdir -p "$t"
	cp -a "$top/scripts" "$top/kernel" "$t/"
	chown -R "$1:$1" "$t"
	env SUDO_UID=65534 SUDO_GID=65534 HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/nodev" \
		"$t/scripts/hw-check" >/dev/null 2>&1
	stat -c %u "$t/build/hw-check/hw-check-report.txt" 2>&1
}
if [ "$(id -u)" -ne 0 ]; then
	tap_skip "run by sudo: the report goes back to the clone's owner" "not root"
else
	mine=$(sudo_owner 65534) theirs=$(sudo_owner 0)
	if [ "$mine" = 65534 ] && [ "$theirs" = 0 ]; then
		tap_ok "run by sudo: the report goes back to the clone's owner, not to another's clone"
	else
		echo "owner of the report: $mine in the user's clone, $theirs in root's" | tap_diag
		tap_fail "run by sudo: the report goes back to the clone's owner, not to another's clone"
	fi
fi

hwc_max=30
hwc_args=(--gpu-id 999)
hwc "--gpu-id of no GPU: exit 2" 2 'no GPU with gpu_id 999' '^result: STOPPED: no such GPU' -- \
	HW_CHECK_SYSFS="$sys" HW_CHECK_DEV="$tmp/dev"
hwc_args=()

rc=0
err=$("$hw" --no-such 2>&1) || rc=$?
if [ $rc -eq 2 ] && grep -q "unknown argument '--no-such'" <<<"$err"; then
	tap_ok "an unknown option: exit 2"
else
	tap_diag <<<"$err"
	tap_fail "an unknown option: exit 2 (exit $rc)"
fi
rc=0
err=$("$hw" --help 2>/dev/null) || rc=$?
if [ $rc -eq 0 ] && grep -q -- '--step-timeout S' <<<"$err"; then
	tap_ok "--help: the synopsis, exit 0"
else
	tap_diag <<<"$err"
	tap_fail "--help: the synopsis, exit 0 (exit $rc)"
fi
[ "$TAP_FAILED" -eq 0 ]
