# SPDX-License-Identifier: GPL-2.0
#
#   make              userspace tools and test programs into build/bin
#   make kernel       the patched kernel (FLAVOUR=test, the default, or bench)
#   make modules      the project's out-of-tree modules for that kernel
#   make check        every test: host suites, then guest suites (QEMU)
#   make demo         the main job, in the guest, with readable output
#   make bench        the benchmark matrix on the bench kernel: docs/results
#
# check and demo install their Debian dependencies and build what is
# missing; see docs/development.md for the pieces.

FLAVOUR ?= test
BUILD := build
BIN := $(BUILD)/bin
KSRC := $(BUILD)/linux
# Userspace takes the UAPI headers and, for BPF CO-RE, the vmlinux BTF of
# one built kernel of the tree: the test flavour's when it is built, else
# the bench flavour's, else FLAVOUR's, which is then built. The headers are
# the same in both and CO-RE objects load on both, so `make demo` builds
# the bench kernel alone; a later build of the test kernel rebuilds the
# tools against it.
built_flavours := $(foreach f,test bench,$(if $(wildcard $(BUILD)/kernel-$(f)/vmlinux),$(f)))
TOOLS_FLAVOUR := $(firstword $(built_flavours) $(FLAVOUR))
TOOLS_KOBJ := $(BUILD)/kernel-$(TOOLS_FLAVOUR)
KHDR := $(TOOLS_KOBJ)/usr/include
MODULES := splat-test userptr-emu

CC := gcc
CFLAGS ?= -O2 -g
# tests on kselftest_harness.h build as the kernel's selftests do: -Wall
SELFTEST_CFLAGS := $(CFLAGS) -Wall -D_GNU_SOURCE \
		   -I$(KSRC)/tools/testing/selftests -Itools/selftests/lib -isystem $(KHDR)

BINARIES := $(BIN)/kfdtrace $(BIN)/hmm-tests $(BIN)/amdgpu-smoke \
	$(BIN)/kfd_batch_tests $(BIN)/userptr_emu_tests $(BIN)/ioctl_mix $(BIN)/follow_load \
	$(BIN)/kfdtrace_json_test $(BIN)/kfdtrace_evstream $(BIN)/userptr-bench $(BIN)/userptr-stress $(BIN)/userptr-virgl \
	$(BIN)/userptr_unit_tests $(BIN)/userptr_lib_tests $(BIN)/guest-init \
	$(BIN)/host-tsc-khz

.PHONY: all kernel modules check demo bench deps clean distclean
all: $(BINARIES)

$(KHDR)/linux/kfd_ioctl.h:
	@scripts/kernel-build --flavour $(TOOLS_FLAVOUR) -s headers_install \
		INSTALL_HDR_PATH=$(abspath $(TOOLS_KOBJ)/usr)

# The kernel's own HMM selftest, from the same tree as the kernel, built as
# a copy whose "../kselftest_harness.h" is tools/selftests/lib/tcg_harness.h:
# the same tests, with timeouts for an emulated CPU.
HMM_TESTS_SRC := $(KSRC)/tools/testing/selftests/mm/hmm-tests.c
HMM_TESTS_DIR := $(BUILD)/hmm-tests
$(HMM_TESTS_SRC): $(KHDR)/linux/kfd_ioctl.h ;
$(HMM_TESTS_DIR)/mm/hmm-tests.c: $(HMM_TESTS_SRC)
	@mkdir -p $(@D)
	cp $< $@
$(HMM_TESTS_DIR)/kselftest_harness.h: tools/selftests/lib/tcg_harness.h
	@mkdir -p $(@D)
	cp $< $@
$(BIN)/hmm-tests: $(HMM_TESTS_DIR)/mm/hmm-tests.c $(HMM_TESTS_DIR)/kselftest_harness.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -I$(KSRC) $< -o $@ -lpthread -lrt -lm

$(BIN)/amdgpu-smoke: tools/selftests/smoke/amdgpu_smoke.c $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) $< -o $@ -lbpf

$(BIN)/kfd_batch_tests: tools/selftests/amdkfd/kfd_batch_tests.c $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) $< -o $@

$(BIN)/userptr_emu_tests: tools/selftests/userptr/userptr_emu_tests.c \
			  kernel/userptr-emu/userptr_emu_uapi.h | $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Ikernel/userptr-emu $< -o $@ -lpthread

# BPF (libbpf-bootstrap's layout): CO-RE objects built against the BTF of
# the project's kernel (TOOLS_FLAVOUR), embedded in the tools as bpftool
# skeletons
BPF_OUT := $(BUILD)/bpf
VMLINUX := $(TOOLS_KOBJ)/vmlinux
BPF_CFLAGS := -g -O2 -Wall -target bpf -D__TARGET_ARCH_x86 -I$(BPF_OUT) -Ibpf
TOOL_CFLAGS := $(CFLAGS) -Wall -Wextra -Wno-unused-parameter \
	       -Wno-missing-field-initializers -I$(BPF_OUT) -Ibpf

$(VMLINUX):
	@scripts/kernel-build --flavour $(TOOLS_FLAVOUR)
.SECONDARY: $(BPF_OUT)/kfdtrace.bpf.o
$(BPF_OUT)/vmlinux.h: $(VMLINUX)
	@mkdir -p $(@D)
	bpftool btf dump file $< format c >$@.tmp && mv $@.tmp $@
$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c bpf/%.h $(BPF_OUT)/vmlinux.h
	clang $(BPF_CFLAGS) -c $< -o $@
$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	bpftool gen skeleton $< >$@.tmp && mv $@.tmp $@

KFDTRACE_DIR := tools/kfdtrace
KFDTRACE_SRC := $(addprefix $(KFDTRACE_DIR)/,main.c recopts.c record.c compare.c \
		check.c report.c doc.c verdict.c ioctls.c events.c replay.c feature.c)
KFDTRACE_HDR := $(addprefix $(KFDTRACE_DIR)/,main.h report.h doc.h verdict.h events.h)
# (ioctls.c: the devices' ioctls, from the kernel's and the device's uAPI)
$(BIN)/kfdtrace: $(KFDTRACE_SRC) $(KFDTRACE_HDR) bpf/kfdtrace.h $(BPF_OUT)/kfdtrace.skel.h \
		 kernel/userptr-emu/userptr_emu_uapi.h | $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(TOOL_CFLAGS) -isystem $(KHDR) -Ikernel/userptr-emu $(KFDTRACE_SRC) -o $@ \
		-lbpf -lelf -lz -ljansson -lm

# the JSON reader and writer, and the verdict they carry: no BPF needed
KFDTRACE_JSON_SRC := $(addprefix $(KFDTRACE_DIR)/,doc.c report.c verdict.c ioctls.c events.c)
$(BIN)/kfdtrace_json_test: tools/selftests/kfdtrace/json_test.c $(KFDTRACE_JSON_SRC) \
			   $(KFDTRACE_HDR) bpf/kfdtrace.h | $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Ibpf -Ikernel/userptr-emu $< $(KFDTRACE_JSON_SRC) -o $@ \
		-ljansson -lm

# synthetic events files (record -w's format) for the replay tests
$(BIN)/kfdtrace_evstream: tools/selftests/kfdtrace/evstream.c $(KFDTRACE_HDR) bpf/kfdtrace.h
	@mkdir -p $(BIN)
	$(CC) $(TOOL_CFLAGS) -Itools/kfdtrace $< -o $@

$(BIN)/ioctl_mix: tools/selftests/kfdtrace/ioctl_mix.c kernel/userptr-emu/userptr_emu_uapi.h \
		  $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Ikernel/userptr-emu $< -o $@

$(BIN)/follow_load: tools/selftests/kfdtrace/follow_load.c kernel/userptr-emu/userptr_emu_uapi.h \
		    $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Ikernel/userptr-emu $< -o $@ -lpthread

# libuserptr, and the workloads on it
LIB := $(BUILD)/lib/libuserptr.a
LIB_CFLAGS := $(CFLAGS) -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	      -D_GNU_SOURCE -isystem $(KHDR) -Ikernel/userptr-emu -Itools/libuserptr
WL_CFLAGS := $(LIB_CFLAGS) -Itools/workloads
WL_COMMON := tools/workloads/layout.c tools/workloads/layout.h tools/libuserptr/userptr.h \
	     tools/libuserptr/hsakmt_compat.h kernel/userptr-emu/userptr_emu_uapi.h $(LIB)

$(BUILD)/lib/userptr.o: tools/libuserptr/userptr.c tools/libuserptr/userptr.h \
			tools/libuserptr/hsakmt_compat.h kernel/userptr-emu/userptr_emu_uapi.h | $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c $< -o $@
$(LIB): $(BUILD)/lib/userptr.o
	$(AR) rcs $@ $^

$(BIN)/userptr-bench: tools/workloads/userptr_bench.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(WL_CFLAGS) $< tools/workloads/layout.c -o $@ $(LIB)

$(BIN)/userptr-virgl: tools/workloads/userptr_virgl.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(WL_CFLAGS) $< tools/workloads/layout.c -o $@ $(LIB)

$(BIN)/userptr-stress: tools/workloads/userptr_stress.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(WL_CFLAGS) $< tools/workloads/layout.c -o $@ $(LIB) -lpthread

$(BIN)/userptr_unit_tests: tools/selftests/libuserptr/userptr_unit_tests.c \
			   tools/libuserptr/hsakmt_compat.h $(LIB)
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Itools/libuserptr $< -o $@ $(LIB)

$(BIN)/userptr_lib_tests: tools/selftests/libuserptr/userptr_lib_tests.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Itools/libuserptr -Itools/workloads -Ikernel/userptr-emu \
		$< tools/workloads/layout.c -o $@ $(LIB)

# PID 1 of scripts/vm-run's guest: static, so that it starts without
# reading a shared library over 9p
$(BIN)/guest-init: tools/guest-init/guest_init.c
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -Wall -Wextra -D_GNU_SOURCE -static $< -o $@
# its initramfs, /init alone: stripped of what differs between clones
# (debug info with their paths, the build ID), so that the guest snapshots
# scripts/vm-run keeps per machine serve every clone of the same source
$(BIN)/guest-init.cpio: $(BIN)/guest-init
	rm -rf $@.d && mkdir -p $@.d
	objcopy --strip-all --remove-section=.note.gnu.build-id $< $@.d/init
	chmod 0755 $@.d/init && touch -d @0 $@.d/init
	cd $@.d && echo init | cpio --quiet --reproducible -o -H newc -R 0:0 >../guest-init.cpio.tmp
	mv $@.tmp $@ && rm -rf $@.d
$(BIN)/host-tsc-khz: tools/guest-init/host_tsc_khz.c
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -Wall -Wextra $< -o $@

# V=1: the kernel build's output, not a line a minute
kernel:
	@scripts/kernel-build --flavour $(FLAVOUR) $(if $(filter 1,$(V)),--verbose)

modules:
	@scripts/module-build --flavour $(FLAVOUR) $(MODULES)

deps:
	@scripts/deps kernel vm user check bpf

check: deps
	@scripts/check $(SUITES)

demo: deps
	@scripts/demo

bench: deps
	@scripts/deps bench
	@scripts/bench $(REPS)

clean:
	rm -rf $(BIN) $(BUILD)/check $(BUILD)/vm $(BUILD)/modules-* $(BUILD)/bpf $(BUILD)/lib

distclean:
	rm -rf $(BUILD)
