# SPDX-License-Identifier: GPL-2.0
# Sourced by the perf benchmarks, in the guest: sets $out to vm-run's
# results directory and changes to it (the guest's root is read-only:
# perf writes there), loads the emulated device and sets $bin
# (bench-guest.sh), lets perf see kernel symbols and call chains, and
# keeps the guest's kallsyms in $out for perf report on the host. Needs
# $top.
out=${VM_OUT:-}
[ -n "$out" ] || { echo "${0##*/}: run it under scripts/vm-run" >&2; exit 2; }
. "$top/tools/bench/bench-guest.sh"
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
cp /proc/kallsyms "$out/kallsyms"
cd "$out"
