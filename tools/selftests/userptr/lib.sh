# SPDX-License-Identifier: GPL-2.0
# Shared by the guest suites of the emulated device. Sourced, never run.

# load_emu: load the device (and the helper it needs). TCG with KASAN runs
# the kernel hundreds of times slower than hardware, so a populate of 8192
# ranges gets a budget to match here; the default (10 s) is for hardware.
load_emu() {
	modprobe userptr_emu &&
		echo 300000 >/sys/module/drm_userptr_batch/parameters/timeout_ms
}
