#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost of tracing: the same workload run ROUNDS times alternately
# without and under `kfdtrace record`, the median of each, and the overhead
# in percent. A benchmark, not a test: it reports, it does not assert. Run
# it in the guest (the emulated device is loaded if it is not):
#
#   scripts/vm-run [--flavour bench] -- tools/bench/kfdtrace-overhead.sh [ROUNDS]
#
# The workload registers 4096 ranges one by one and as a batch on the
# emulated device (userptr_emu_tests -v r4096_4k), 8194 registration
# ioctls in all, the case where per-ioctl probes cost the most. What is
# timed is the registrations, as the test itself logs them, so that
# loading the probes (seconds under TCG) does not count as overhead.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-5}
test=$top/build/bin/userptr_emu_tests
if [ ! -e /dev/userptr_emu ]; then
	. "$top/tools/selftests/userptr/lib.sh"
	load_emu
fi

# reg_secs CMD...: seconds of the registrations that CMD's test output logs
reg_secs() {
	"$@" 2>&1 | sed -n 's/.*registered in \([0-9.]*\) s.*/\1/p' |
		awk '{ s += $1 } END { if (NR != 2) exit 1; printf "%.3f\n", s }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

plain=() traced=()
for ((i = 1; i <= rounds; i++)); do
	plain+=("$(reg_secs "$test" -v r4096_4k)")
	traced+=("$(reg_secs "$top/build/bin/kfdtrace" record -- "$test" -v r4096_4k)")
	echo "round $i: registrations take ${plain[-1]} s, under kfdtrace ${traced[-1]} s"
done
p=$(printf '%s\n' "${plain[@]}" | median)
t=$(printf '%s\n' "${traced[@]}" | median)
printf 'median of %d rounds: %.3f s, under kfdtrace %.3f s: overhead %.1f%%\n' \
	"$rounds" "$p" "$t" "$(echo "($t - $p) * 100 / $p" | bc -l)"
