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

# How much of a guest RAM of $1 MiB userptr-virgl writes (--touch): all
# of it up to 2 GiB, as a running guest's is; above, the blob's pages and
# a sparse sample, so that it fits the machine (make bench's span rows)
virgl_touch() {
	if [ "$1" -le 2048 ]; then echo all; else echo sparse; fi
}
