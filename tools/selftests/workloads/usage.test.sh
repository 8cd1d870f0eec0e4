#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The workloads' command lines, on the host (no device needed): the layout
# options they share (-n -s -S -x) are checked the same way in both, and
# a bad one exits 2 naming what is wrong; userptr-virgl's own options too.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$top/build/bin
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

# usage_error NAME REGEX CMD...: CMD exits 2 and says REGEX on stderr
usage_error() {
	local name=$1 re=$2 err rc=0
	shift 2
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	if [ $rc -eq 2 ] && printf '%s\n' "$err" | grep -Eq -- "$re"; then
		tap_ok "$name"
	else
		printf '%s\n' "$err" | tap_diag
		tap_fail "$name (exit $rc, expected 2 and /$re/)"
	fi
}

for w in userptr-bench userptr-stress userptr-pressure; do
	usage_error "$w: -s of a size not a multiple of 4 KiB" \
		"bad size '5k': a multiple of 4 KiB, suffix k, m or g" "$bin/$w" -s 5k
	usage_error "$w: -S with an unknown suffix" "bad size '1t'" "$bin/$w" -S 1t
	usage_error "$w: -n past 65536" "bad count '65537'" "$bin/$w" -n 65537
	usage_error "$w: an unknown option" "unrecognized option" "$bin/$w" --no-such
	if "$bin/$w" --help | grep -Eq -- '-n, --count=N' &&
	   "$bin/$w" --help | grep -Eq -- '-x, --seed=SEED'; then
		tap_ok "$w: --help lists the layout options"
	else
		tap_fail "$w: --help lists the layout options"
	fi
done
# the floors differ: one range is a benchmark, a storm needs two
usage_error "userptr-bench: -n 0" "bad count '0' \(1\.\.65536\)" "$bin/userptr-bench" -n 0
usage_error "userptr-stress: -n 1" "bad count '1' \(2\.\.65536\)" "$bin/userptr-stress" -n 1
usage_error "userptr-pressure: a mode that is neither render nor batch" \
	"mode is render or batch, not 'kfd'" "$bin/userptr-pressure" -m kfd
usage_error "userptr-pressure: -r 0" "1 to 64 rounds" "$bin/userptr-pressure" -r 0
usage_error "userptr-pressure: -H 0" "bad hog size '0'" "$bin/userptr-pressure" -H 0
usage_error "userptr-bench: an unknown backend" "unknown backend 'gpu' \(emu or kfd\)" \
	"$bin/userptr-bench" -b gpu

# userptr-virgl's own options
v=$bin/userptr-virgl
usage_error "userptr-virgl: -n 1" "'1' is not a number from 2 to" "$v" -n 1
usage_error "userptr-virgl: --huge with N not a multiple of 512" \
	"--huge takes N a multiple of 512" "$v" -n 1000 --huge
usage_error "userptr-virgl: an unknown way" "unknown way 'all'" "$v" -w all
usage_error "userptr-virgl: guest RAM smaller than twice the blob" \
	"--ram must hold twice the blob" "$v" -n 16384 -G 64
usage_error "userptr-virgl: an unknown way after a known one" "unknown way 'foo'" \
	"$v" -w batch -w foo
usage_error "userptr-virgl: --touch of neither all nor sparse" \
	"unknown --touch 'none' \(all or sparse\)" "$v" --touch none
usage_error "userptr-virgl: guest RAM past 1 TiB" "'1048577' is not a number from 16 to 1048576" \
	"$v" -G 1048577
usage_error "userptr-virgl: --gap-price with --map-limit" \
	"--gap-price and --map-limit exclude each other" "$v" --gap-price --map-limit
usage_error "userptr-virgl: an unknown backend" "unknown backend 'gpu' \(emu or kfd\)" \
	"$v" --backend gpu
usage_error "userptr-virgl: --gap-price on /dev/kfd" \
	"--gap-price and --map-limit read the emulated device: --backend emu" \
	"$v" --backend kfd --gap-price
if [ -e /dev/kfd ]; then
	tap_skip "userptr-virgl --backend kfd without /dev/kfd" "this machine has a /dev/kfd"
else
	rc=0
	err=$("$v" --backend kfd -n 64 -r 1 -w batch 2>&1 >/dev/null) || rc=$?
	if [ $rc -eq 1 ] && [[ $err == *"open /dev/kfd: No such file or directory"* ]]; then
		tap_ok "userptr-virgl --backend kfd without /dev/kfd: exit 1, naming it"
	else
		printf '%s\n' "$err" | tap_diag
		tap_fail "userptr-virgl --backend kfd without /dev/kfd (exit $rc)"
	fi
fi
# the drm_gpusvm mode and way (make bench only): without the bench's
# module they exit 1 naming its device and what loads it
for c in "userptr-bench -m gpusvm" "userptr-virgl -w gpusvm"; do
	if [ -e /dev/userptr_gpusvm ]; then
		tap_skip "$c without /dev/userptr_gpusvm" "this machine has one"
		continue
	fi
	rc=0
	err=$("$bin/${c%% *}" -n 16 -r 1 ${c#* } 2>&1 >/dev/null) || rc=$?
	if [ $rc -eq 1 ] && [[ $err == *"/dev/userptr_gpusvm: No such file or directory (load tools/bench/gpusvm's userptr_gpusvm)"* ]]; then
		tap_ok "$c without /dev/userptr_gpusvm: exit 1, naming it and its module"
	else
		printf '%s\n' "$err" | tap_diag
		tap_fail "$c without /dev/userptr_gpusvm (exit $rc)"
	fi
done
help=$("$v" --help)
if [[ $help == *"--touch=HOW"* && $help == *"--gap-price"* && $help == *contiguous* ]]; then
	tap_ok "userptr-virgl: --help lists --touch, --gap-price and the contiguous way"
else
	tap_fail "userptr-virgl: --help lists --touch, --gap-price and the contiguous way"
fi
# 16 GiB of guest RAM, touched sparsely, maps in the memory of a small
# machine (about 300 MiB written): the run goes as far as the device
if [ -e /dev/userptr_emu ]; then
	tap_skip "userptr-virgl: 16 GiB of guest RAM touched sparsely" "a device to run on"
else
	rc=0
	err=$("$v" -n 4096 -G 16384 --touch sparse -r 1 2>&1 >/dev/null) || rc=$?
	if [ $rc -eq 1 ] && [[ $err == *"/dev/userptr_emu"* ]]; then
		tap_ok "userptr-virgl: 16 GiB of guest RAM touched sparsely, picked and written"
	else
		printf '%s\n' "$err" | tap_diag
		tap_fail "userptr-virgl: 16 GiB of guest RAM touched sparsely (exit $rc)"
	fi
fi
