#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in a guest (scripts/vm-run --smp 2 ...): switch the sched_switch and
# sched_wakeup tracepoints on and off for SECONDS (default 20) while pipes
# keep every CPU scheduling. Each switch live-patches __schedule() and
# try_to_wake_up() (text_poke_bp()), the code both CPUs run all the time:
# on QEMU 7.2's multi-threaded TCG a 2-vCPU guest dies of an int3 oops
# within seconds (scripts/vm-run, "More than one vCPU"); with
# --tcg-threads single it lives. Prints "flips: N" and exits 0 when it
# ran to the end.
#
#   scripts/vm-run --smp 2 --tcg-threads single -- tools/selftests/scripts/smp-text-poke.sh 20
set -u
secs=${1:-20}
T=/sys/kernel/tracing
[ -d "$T/events/sched" ] || { echo "no tracefs at $T"; exit 1; }
echo "CPUs: $(nproc)"
pids=()
for i in $(seq "$(nproc)"); do
	yes | cat >/dev/null &
	pids+=($!)
done
end=$((SECONDS + secs)) n=0
while [ $SECONDS -lt $end ]; do
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$T/events/sched/sched_wakeup/enable
	echo 0 >$T/events/sched/sched_switch/enable
	echo 0 >$T/events/sched/sched_wakeup/enable
	n=$((n + 1))
done
kill "${pids[@]}" 2>/dev/null
pkill -x yes 2>/dev/null
wait 2>/dev/null
echo "flips: $n"
