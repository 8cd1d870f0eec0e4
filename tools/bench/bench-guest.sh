# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmarks that run in the guest (bench-matrix.sh,
# bench-icount.sh, kfdtrace-overhead.sh and, through perf-guest.sh, the
# perf ones): sets $bin to the project's userspace binaries and loads the
# emulated device if it is not loaded yet. Needs $top.
bin=$top/build/bin
if [ ! -e /dev/userptr_emu ]; then
	. "$top/tools/selftests/userptr/lib.sh"
	load_emu
fi
