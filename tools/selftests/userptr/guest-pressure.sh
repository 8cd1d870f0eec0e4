#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest suite: a registration under memory pressure, then the OOM killer
# (tools/workloads/userptr_pressure.c). The device reads a batch taken
# over from the render node while a hog pushes its pages to zram swap
# (each push an eviction, each read after it a restore); every read must
# match the CPU's data, every round must read something, no read may time
# out. Then the registering process is made the OOM killer's choice and
# the hog grows until the kernel kills it: the device must hold nothing of
# it afterwards. Runs inside a guest of 1 GiB (scripts/vm-run --mem 1024 --numa 2) with
# KASAN and lockdep, but without kmemleak, whose own metadata cannot be
# allocated out of memory (it disables itself, which the runner would
# count as a splat); the device's counts are the leak check here.
#
#   guest-pressure.sh [SWITCH]
#
# SWITCH, a fault-injection switch of the device set after it is loaded
# (inject_ignore_invalidate: the device keeps reading the pages reclaim
# took), shows the checks failing on a broken device.
# The hog locks once a round (--hog-once: what is available plus half the
# registration): its steps after that, which make bench's 4 GiB guest
# needs, had not ended after 40 minutes here on a loaded machine.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
. "$top/tools/selftests/userptr/lib.sh"
zram_swap

pressure() {
	local json=/tmp/pressure.json
	tap_run "userptr-pressure: 256 MiB in 4096 ranges through the render node, a hog locking half of it out, then the OOM killer" \
		"$top/build/bin/userptr-pressure" -v -n 4096 -s 64k -r 2 --hog-once --oom -o "$json" || return
	tap_run "userptr-pressure: pages swapped out, the batch evicted and restored, reads in every round" \
		jq -e '.swapped_pages > 0 and .evictions > 0 and .restores > 0 and
		       .mismatches == 0 and .timeouts == 0 and .errors == 0' "$json"
	tap_run "userptr-pressure: killed by the OOM killer, nothing left on the device" \
		jq -e '.oom_killed and .leftovers == 0' "$json"
}

if tap_run "modprobe userptr_emu" load_emu; then
	[ -z "${1:-}" ] || echo 1 >"/sys/module/userptr_emu/parameters/$1"
	pressure
	tap_run "rmmod userptr_emu" modprobe -r userptr_emu
fi
[ $TAP_FAILED -eq 0 ]
