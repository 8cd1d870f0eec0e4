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
if [ "${1:-}" = --guest ]; then
	rounds=$2
	out=${VM_OUT:?run under scripts/vm-run}
	bin=$top/build/bin
	ab=$top/build/ab-helper
	. "$top/tools/bench/helper-modules.sh"
	# the summary reads every round's file: none of an earlier run
	rm -f "$out"/old-*.json "$out"/new-*.json
	for round in $(seq "$rounds"); do
		for v in old new; do
			helper_load "$ab/$v"
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
. "$top/tools/bench/helper-modules.sh"
clock=(--icount) rounds=
if [ "${1:-}" = -w ]; then clock=() rounds=3; shift; fi
if [ "${1:-}" = -r ]; then rounds=$2; shift 2; fi
rounds=${rounds:-1}
[ $# -ge 1 ] || die "usage: ${0##*/} [-w] [-r ROUNDS] OLD_REV [NEW_REV]"
O=$(kobj bench)
[ -f "$O/Module.symvers" ] || die "no bench kernel: run 'make kernel modules FLAVOUR=bench' first"

for v in old new; do
	rev=${1:-}
	[ $v = new ] && rev=${2:-}
	helper_tree "$rev" "$top/build/ab-helper/$v"
	helper_build "$O" "$top/build/ab-helper/$v"
done
exec "$top/scripts/vm-run" "${clock[@]}" --flavour bench --mem 1024 --no-kmemleak --timeout 3000 \
	--out "$BUILD/ab-helper/run" -- "$top/tools/bench/ab-helper.sh" --guest "$rounds"
