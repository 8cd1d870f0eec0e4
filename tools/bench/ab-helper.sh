#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The helper module and its driver, before and after a change: builds
# drm_userptr_batch.ko and the emulated device, userptr_emu.ko, from the
# series (kernel/patches; kernel/userptr-emu before the device joined it)
# at two project revisions
# against the bench kernel, then loads each pair in turn in ONE bench
# guest, ROUNDS times, and times the batch and contiguous registrations of
# 4096 and 8192 scattered 4 KiB ranges (userptr-bench -m batch -m
# contiguous -r 5, both layouts). Same guest, same kernel: only the two
# modules differ (a change of the helper's API changes its caller), so
# the run-to-run spread of separate guests (the contiguous reference
# varies up to 4x) stays out. The guest
# counts instructions (scripts/vm-run --icount): its microsecond is a
# thousand instructions, the same on every run whatever the host does, so
# one round (the default) measures a change exactly; -w times it by the
# wall clock instead (3 rounds by default), as make bench does.
#
#   tools/bench/ab-helper.sh [-w] [-r ROUNDS] OLD_REV [NEW_REV]
#
# NEW_REV defaults to the working tree's kernel/patches. Each pair is built against the bench kernel with its
# own revision's include/drm/drm_userptr_batch.h (from the same series),
# put before the kernel's on the include path: a change of the helper's
# structs compares too. Prints one line
# per run and, last, per layout and N the old and new batch's median of
# the rounds' medians and its fastest registration of all, in us:
#
#   one-mapping 4096: median 1821.7 -> 1617.1 us (0.89x), fastest 1821.6 -> 1617.1 us (0.89x); contiguous 718.0 -> 668.5 us (0.93x)
#
# (--icount: median and fastest agree; under -w on a loaded host the
# medians move with the load and the fastest does not)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# the helper's files, which the series adds (patches 3-6)
helper_c=drivers/gpu/drm/drm_userptr_batch.c
helper_trace=drivers/gpu/drm/drm_userptr_batch_trace.h
header=include/drm/drm_userptr_batch.h

if [ "${1:-}" = --guest ]; then
	rounds=$2
	out=${VM_OUT:?run under scripts/vm-run}
	bin=$top/build/bin
	ab=$top/build/ab-helper
	# the summary reads every round's file: none of an earlier run
	rm -f "$out"/old-*.json "$out"/new-*.json
	for round in $(seq "$rounds"); do
		for v in old new; do
			modprobe -r userptr_emu 2>/dev/null || true
			rmmod drm_userptr_batch 2>/dev/null || true
			insmod "$ab/$v/drm_userptr_batch.ko"
			insmod "$ab/$v/emu/userptr_emu.ko"
			for lay in scattered one-mapping; do
				opt=()
				[ $lay = one-mapping ] && opt=(--one-mapping)
				for n in 4096 8192; do
					f=$out/$v-$lay-$n-$round.json
					"$bin/userptr-bench" -n $n -s 4k "${opt[@]}" -m batch \
						-m contiguous -r 5 -o "$f" >/dev/null
					jq -r --arg v $v --arg l $lay --arg n $n --arg r "$round" \
						'"\($v) \($l) \($n) round \($r): batch \(.modes.batch.register.median_us) contiguous \(.modes.contiguous.register.median_us)"' "$f"
				done
			done
		done
	done
	# medians drift with the host's load; the fastest of all the
	# registrations is the cost with the least interference
	echo "== $rounds rounds of 5: layout n, batch old/new median of the medians," \
		"then fastest; contiguous (one range, the same helper) old/new median"
	med() {	# the median of one mode's medians over the rounds' files
		jq -s --arg m "$1" '[.[].modes[$m].register.median_us] | sort |
			if length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end' "${@:2}"
	}
	fastest() {
		jq -s '[.[].modes.batch.register.min_us] | min' "$@"
	}
	for lay in scattered one-mapping; do
		for n in 4096 8192; do
			awk -v l=$lay -v n=$n \
				-v om="$(med batch "$out"/old-$lay-$n-*.json)" \
				-v nm="$(med batch "$out"/new-$lay-$n-*.json)" \
				-v of="$(fastest "$out"/old-$lay-$n-*.json)" \
				-v nf="$(fastest "$out"/new-$lay-$n-*.json)" \
				-v oc="$(med contiguous "$out"/old-$lay-$n-*.json)" \
				-v nc="$(med contiguous "$out"/new-$lay-$n-*.json)" \
				'BEGIN { printf "%s %s: median %.1f -> %.1f us (%.2fx), fastest %.1f -> %.1f us (%.2fx); contiguous %.1f -> %.1f us (%.2fx)\n",
					l, n, om, nm, nm / om, of, nf, nf / of, oc, nc, nc / oc }'
		done
	done
	exit 0
fi

. "$top/scripts/lib.sh"
clock=(--icount) rounds=
if [ "${1:-}" = -w ]; then clock=() rounds=3; shift; fi
if [ "${1:-}" = -r ]; then rounds=$2; shift 2; fi
rounds=${rounds:-1}
[ $# -ge 1 ] || die "usage: ${0##*/} [-w] [-r ROUNDS] OLD_REV [NEW_REV]"
O=$(kobj bench)
[ -f "$O/Module.symvers" ] || die "no bench kernel: run 'make kernel modules FLAVOUR=bench' first"

# tree REV DIR: the helper's files and the test device's, as base + the
# series at project revision REV (the working tree when REV is empty) has
# them, in DIR: every file is new in the series, so the series' hunks for
# them apply to an empty tree. A revision from before the device joined
# the series (patch 7, drivers/gpu/drm/tests) has it in kernel/userptr-emu.
tree() {
	local rev=$1 dir=$2 p
	rm -rf "$dir"
	mkdir -p "$dir/emu"
	git -C "$dir" init -q
	for p in $(if [ -n "$rev" ]; then
			git -C "$top" show "$rev:kernel/patches/series"
		else
			cat "$top/kernel/patches/series"
		fi | grep -v '^#'); do
		if [ -n "$rev" ]; then
			git -C "$top" show "$rev:kernel/patches/$p"
		else
			cat "$top/kernel/patches/$p"
		fi | git -C "$dir" apply --include="$helper_c" --include="$helper_trace" \
			--include="$header" --include='drivers/gpu/drm/tests/userptr_emu*' - ||
			die "kernel/patches/$p at ${rev:-the working tree} does not apply"
	done
	rm -rf "$dir/.git"
	[ -s "$dir/$helper_c" ] || die "no $helper_c in the series at ${rev:-the working tree}"
	if [ -f "$dir/drivers/gpu/drm/tests/userptr_emu.c" ]; then
		mv "$dir"/drivers/gpu/drm/tests/userptr_emu* "$dir/emu/"
		printf 'obj-m += userptr_emu.o\nCFLAGS_userptr_emu.o := -I$(src)\n' >"$dir/emu/Kbuild"
	elif [ -n "$rev" ]; then
		git -C "$top" archive "$rev" kernel/userptr-emu | tar -x -C "$dir/emu" --strip-components=2
	fi
	[ -s "$dir/emu/userptr_emu.c" ] || die "no test device at ${rev:-the working tree}"
}

for v in old new; do
	rev=${1:-}
	[ $v = new ] && rev=${2:-}
	d=$top/build/ab-helper/$v
	tree "$rev" "$d"
	cp "$d/$helper_c" "$d/$helper_trace" "$d/"
	mkdir -p "$d/include/drm"
	cp "$d/$header" "$d/include/drm/"
	# NOSTDINC_FLAGS comes before the kernel's include directories
	printf 'obj-m := drm_userptr_batch.o\nccflags-y := -I$(src)\nNOSTDINC_FLAGS += -I$(src)/include\n' >"$d/Kbuild"
	kmake "$O" -s M="$d" modules
	# the device at the same revision: it calls what that helper exports
	echo 'NOSTDINC_FLAGS += -I$(src)/../include' >>"$d/emu/Kbuild"
	kmake "$O" -s M="$d/emu" modules
done
exec "$top/scripts/vm-run" "${clock[@]}" --flavour bench --mem 1024 --no-kmemleak --timeout 3000 \
	--out "$BUILD/ab-helper/run" -- "$top/tools/bench/ab-helper.sh" --guest "$rounds"
