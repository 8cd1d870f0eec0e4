#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where a batch registration's time goes: perf samples (cpu-clock, with
# kernel call chains) of userptr-bench registering N scattered 4 KiB ranges
# as one batch on the emulated device, ROUNDS times. Run it in the guest on
# the bench kernel, with a results directory:
#
#   scripts/vm-run --flavour bench --out build/perf -- \
#           tools/bench/perf-registration.sh [N] [ROUNDS]
#
# It leaves perf.data and the guest's kallsyms in the results directory
# (the guest's tmpfs is gone after the run) and prints the report of the
# samples under the batch ioctl, by symbol, with and without callees. The
# same report on the host, against the kernel's symbols:
#
#   perf report -i build/perf/perf.data --kallsyms build/perf/kallsyms \
#           --parent uemu_alloc_ranges -x --sort sym --percentage relative --stdio
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-4096}
rounds=${2:-40}
out=$(sed -n 's/.*vm_out=\([^ ]*\).*/\1/p' /proc/cmdline)
[ -n "$out" ] || { echo "perf-registration.sh: run it under scripts/vm-run" >&2; exit 2; }
if [ ! -e /dev/userptr_emu ]; then
	. "$top/tools/selftests/userptr/lib.sh"
	load_emu
fi
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
cp /proc/kallsyms "$out/kallsyms"

# the guest's root is read-only: perf writes to the results directory
cd "$out"
perf record -q -e cpu-clock -F 4000 -g -o "$out/perf.data" -- \
	"$top/build/bin/userptr-bench" -n "$n" -s 4k -m batch -r "$rounds" -k 1 -W >/dev/null
report() {
	perf report -i "$out/perf.data" --kallsyms "$out/kallsyms" --parent uemu_alloc_ranges -x \
		--sort sym --stdio --percentage relative --percent-limit 1 -g none "$@" 2>/dev/null |
		grep -v '^$' | head -n 40
}
echo "== samples under uemu_alloc_ranges (the registration): self time, by symbol"
report --no-children
echo "== including callees"
report --children
