#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where a registration's time goes: perf samples (cpu-clock, with kernel
# call chains) of userptr-bench registering N scattered 4 KiB ranges on the
# emulated device in MODE (batch, per-range or contiguous), ROUNDS times;
# more userptr-bench options after those (--one-mapping). Run it in the
# guest on the bench kernel, with a results directory:
#
#   scripts/vm-run --flavour bench --out build/perf -- \
#           tools/bench/perf-registration.sh [N] [ROUNDS] [MODE] [OPTION...]
#
# It leaves perf.data and the guest's kallsyms in the results directory
# (the guest's tmpfs is gone after the run) and prints the report of the
# samples under the batch ioctl, by symbol, with and without callees.
# PERF_FREQ sets the sampling rate (default 4000 a second; in an
# --icount guest, where a second is 10^9 instructions, 50000 gives
# a sample every 20000 instructions). The
# same report on the host, against the kernel's symbols:
#
#   perf report -i build/perf/perf.data --kallsyms build/perf/kallsyms \
#           --parent "$parent" -x --sort sym --percentage relative --stdio
#
# with $parent as set below.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-4096}
rounds=${2:-40}
mode=${3:-batch}
freq=${PERF_FREQ:-4000}
shift $(($# < 3 ? $# : 3))
. "$top/tools/bench/perf-guest.sh"
perf record -q -e cpu-clock -F "$freq" -g -o "$out/perf.data" -- \
	"$bin/userptr-bench" -n "$n" -s 4k -m "$mode" -r "$rounds" -k 1 -W \
	-o "$out/bench.json" "$@" >/dev/null
# perf report of the samples under the device's alloc ioctls (the
# registration: the batch's prepare, which reads the ranges in, its
# creation and its populate; the ioctl handlers themselves are inlined,
# and both of the helper's prepare functions tail-call batch_prepare(), so
# these three name them)
parent='^(batch_prepare|uemu_alloc_create|uemu_alloc_publish)$'
under() {
	perf report -i "$out/perf.data" --kallsyms "$out/kallsyms" \
		--parent "$parent" -x --stdio -g none "$@" 2>/dev/null
}
report() {
	under --sort sym --percentage relative --percent-limit 1 "$@" | grep -v '^$' | head -n 40
}
# the registration's median as userptr-bench timed it, and how much of
# the whole run's time was spent under the alloc ioctls ($freq samples
# a second of CPU time)
samples=$(under --sort parent -n | awk -v re="$parent" '$4 ~ re { s += $3 } END { print s + 0 }')
echo "== $mode, $n ranges: registration median" \
	"$(jq -r --arg m "$mode" '.modes[$m].register.median_us' "$out/bench.json") us;" \
	"${samples:-0} samples under the alloc ioctls in $rounds rounds:" \
	"$(echo "${samples:-0} * 1000000 / $freq / $rounds" | bc) us a round"
echo "== samples under the alloc ioctls (the registration): self time, by symbol"
report --no-children
echo "== including callees"
report --children
