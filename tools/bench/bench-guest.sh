# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmarks that run in the guest (bench-matrix.sh,
# bench-icount.sh, kfdtrace-overhead.sh and, through perf-guest.sh, the
# perf ones): sets $bin to the project's userspace binaries and loads the
# emulated device if it is not loaded yet; load_gpusvm loads the
# bench-only drm_gpusvm module. Needs $top.
bin=$top/build/bin
if [ ! -e /dev/userptr_emu ]; then
	. "$top/tools/selftests/userptr/lib.sh"
	load_emu
fi

# How much of a guest RAM of $1 MiB userptr-virgl writes (--touch): all
# of it up to 2 GiB, as a running guest's is; above, the blob's pages and
# a sparse sample, so that it fits the machine (make bench's span rows)
virgl_touch() {
	if [ "$1" -le 2048 ]; then echo all; else echo sparse; fi
}

# load_gpusvm DIR: the bench-only userptr_gpusvm that scripts/bench built
# in DIR (tools/bench/gpusvm), after drm_gpusvm's helper module (the
# kernel's, or the one built beside it); 1 with a message when DIR has none
load_gpusvm() {
	[ -e /dev/userptr_gpusvm ] && return 0
	if [ ! -f "$1/userptr_gpusvm.ko" ]; then
		echo "no $1/userptr_gpusvm.ko (scripts/bench builds it): no gpusvm rows" >&2
		return 1
	fi
	if ! grep -q '^drm_gpusvm_helper ' /proc/modules &&
	   ! modprobe drm_gpusvm_helper 2>/dev/null; then
		insmod "$1/drm_gpusvm_helper.ko" || return 1
	fi
	insmod "$1/userptr_gpusvm.ko"
}

# gpusvm_rows OUT REPS MAXN RAM...: the drm_gpusvm rows of bench-matrix.sh
# and bench-icount.sh: 4096 and 8192 ranges of 4 KiB (up to MAXN),
# scattered and inside one mapping, in the four modes, and the virgl blob
# of as many pages in each guest RAM given (MiB, or "default"),
# registered and freed four ways; gpusvm_*.json in OUT
gpusvm_rows() {
	local out=$1 reps=$2 maxn=$3 n ram
	shift 3
	for n in 4096 8192; do
		[ "$n" -le "$maxn" ] || continue
		echo "== $n x 4k: per-range, batch, contiguous and gpusvm"
		"$bin/userptr-bench" -n "$n" -s 4k -m per-range -m batch -m contiguous \
			-m gpusvm -k 1 -r "$reps" -o "$out/gpusvm_s${n}.json"
		echo "== $n x 4k, one mapping: per-range, batch, contiguous and gpusvm"
		"$bin/userptr-bench" -n "$n" -s 4k --one-mapping -m per-range -m batch \
			-m contiguous -m gpusvm -k 1 -r "$reps" -o "$out/gpusvm_m${n}.json"
		for ram in "$@"; do
			echo "== virgl blob of $n guest pages, guest RAM $ram: per-iovec, batch, contiguous and gpusvm"
			"$bin/userptr-virgl" -n "$n" $([ "$ram" = default ] || echo "-G $ram") -O \
				-w per-range -w batch -w contiguous -w gpusvm -r "$reps" \
				-o "$out/gpusvm_v${n}_${ram}.json"
		done
	done
}
