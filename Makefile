# SPDX-License-Identifier: GPL-2.0
#
#   make              the tools, no kernel needed: kfdtrace (BPF CO-RE),
#                     libuserptr (static and shared), the workloads
#   make tests        the test programs (the kernel tree's selftest harness
#                     and installed UAPI headers: no kernel build either)
#   make install      PREFIX (/usr/local) and DESTDIR; make uninstall
#   make deb          Debian packages of the tools: kfdtrace, libuserptr1,
#                     libuserptr-dev (debian/), in build/deb
#   make kernel       the patched kernel (FLAVOUR=test, the default, or bench)
#   make kernel-deb   linux-image and linux-headers packages of the base plus
#                     the series, from KERNEL_CONFIG (default: the running
#                     kernel's /boot/config-*), in KERNEL_DEB_OUT
#                     (build/kernel-deb-pkgs): scripts/kernel-deb
#   make modules      the project's out-of-tree modules for that kernel
#   make check        every test: host suites, then guest suites (QEMU)
#   make demo         the main job, in the guest, with readable output
#   make bench        the benchmark matrix on the bench kernel: docs/results
#   make kcsan        the data-race run: the selftests and the race test on
#                     the kcsan kernel with two vCPUs (not in make check)
#
# check and demo install their Debian dependencies and build what is
# missing; see docs/development.md for the pieces.

FLAVOUR ?= test
BUILD := build
BIN := $(BUILD)/bin
KSRC := $(BUILD)/linux
# The tools take the series' UAPI headers from include/uapi (copies that
# host/uapi keeps equal to base + series: scripts/uapi-sync) and, for BPF
# CO-RE, the vmlinux.h kept in bpf/vmlinux (make vmlinux-h): no kernel is
# built for them. The test programs take the selftest harness from the
# kernel tree and the UAPI headers it installs: of the test kernel when it
# is built, else of the bench kernel, else of FLAVOUR's (headers_install
# alone, no compile).
UAPI := include/uapi
built_flavours := $(foreach f,test bench,$(if $(wildcard $(BUILD)/kernel-$(f)/vmlinux),$(f)))
TOOLS_FLAVOUR := $(firstword $(built_flavours) $(FLAVOUR))
TOOLS_KOBJ := $(BUILD)/kernel-$(TOOLS_FLAVOUR)
KHDR := $(TOOLS_KOBJ)/usr/include
MODULES := splat-test kfd-node-shim

CC := gcc
CFLAGS ?= -O2 -g
# tests on kselftest_harness.h build as the kernel's selftests do: -Wall
# the series' selftests of the helper's test device (and their batch_param.h)
EMU_SELFTESTS := $(KSRC)/tools/testing/selftests/drivers/gpu/userptr_batch
KSELFTEST := $(BUILD)/kselftest
SELFTEST_CFLAGS := $(CFLAGS) -Wall -D_GNU_SOURCE \
		   -I$(KSRC)/tools/testing/selftests -Itools/selftests/lib -I$(EMU_SELFTESTS) \
		   -isystem $(KHDR)

TOOLS := $(BIN)/kfdtrace $(BIN)/userptr-bench $(BIN)/userptr-stress $(BIN)/userptr-virgl \
	 $(BIN)/userptr-pressure
TESTS := $(BIN)/hmm-tests $(BIN)/amdgpu-smoke \
	$(BIN)/kfd_import_tests $(BIN)/kfd_gpu_tests $(BIN)/kfd_gpu_readback $(BIN)/userptr_emu_tests $(BIN)/ioctl_mix $(BIN)/follow_load \
	$(BIN)/kfdtrace_json_test $(BIN)/kfdtrace_evstream \
	$(BIN)/userptr_unit_tests $(BIN)/userptr_lib_tests $(BIN)/guest-init \
	$(BIN)/host-tsc-khz $(BIN)/hmm-snapshot $(KSELFTEST)/run_kselftest.sh

.PHONY: all tests tool-deps hsa-deps kernel kernel-deb modules check demo bench deps clean distclean \
	vmlinux-h uapi man install uninstall deb kcsan
# the man pages too: `make && sudo make install` then builds nothing as
# root, which would leave files in build/ that the user cannot remove
all: $(TOOLS) libuserptr man
tests: $(TESTS)

# the Debian packages the tools build with (dpkg is asked, nothing is
# installed when they are there); order-only: it rebuilds nothing
tool-deps:
	@scripts/deps user bpf
$(TOOLS): | tool-deps
# the test programs on the tree's selftest harness and installed headers
$(filter-out $(BIN)/guest-init $(BIN)/host-tsc-khz $(BIN)/kfdtrace_evstream,$(TESTS)): \
	| $(KHDR)/linux/kfd_ioctl.h

$(KHDR)/linux/kfd_ioctl.h:
	@scripts/kernel-build --flavour $(TOOLS_FLAVOUR) -s headers_install \
		INSTALL_HDR_PATH=$(abspath $(TOOLS_KOBJ)/usr)

# The kernel's own HMM selftest, from the same tree as the kernel, built as
# a copy whose "kselftest_harness.h", found next to it before the include
# path, is tools/selftests/lib/tcg_harness.h: the same tests, with timeouts
# for an emulated CPU. It links the two files of its directory that
# selftests/mm's Makefile gives every program there.
HMM_TESTS_SRC := $(KSRC)/tools/testing/selftests/mm/hmm-tests.c
HMM_TESTS_LIBS := $(addprefix $(KSRC)/tools/testing/selftests/mm/,vm_util.c hugepage_settings.c)
HMM_TESTS_DIR := $(BUILD)/hmm-tests
$(HMM_TESTS_SRC) $(HMM_TESTS_LIBS): $(KHDR)/linux/kfd_ioctl.h ;
$(HMM_TESTS_DIR)/mm/hmm-tests.c: $(HMM_TESTS_SRC)
	@mkdir -p $(@D)
	cp $< $@
$(HMM_TESTS_DIR)/mm/kselftest_harness.h: tools/selftests/lib/tcg_harness.h
	@mkdir -p $(@D)
	cp $< $@
$(BIN)/hmm-tests: $(HMM_TESTS_DIR)/mm/hmm-tests.c $(HMM_TESTS_DIR)/mm/kselftest_harness.h \
		  $(HMM_TESTS_LIBS)
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -I$(KSRC) -I$(KSRC)/tools/testing/selftests/mm \
		$< $(HMM_TESTS_LIBS) -o $@ -lpthread -lrt -lm

# test_hmm's snapshot of a present range, timed (make bench counts it)
$(BIN)/hmm-snapshot: tools/bench/hmm_snapshot.c $(KSRC)/lib/test_hmm_uapi.h
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -Wall -I$(KSRC) $< -o $@

$(BIN)/amdgpu-smoke: tools/selftests/smoke/amdgpu_smoke.c $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) $< -o $@ -lbpf

# AMDKFD_IOC_IMPORT_DMABUF's takeover of a GEM userptr: its argument checks,
# on /dev/kfd without a GPU (guest/smoke) or with one (scripts/hw-check)
$(BIN)/kfd_import_tests: tools/selftests/amdkfd/kfd_import_tests.c $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) $< -o $@

# the series' own selftests of its test device, from the kernel tree (the
# guest suites also run them through the kselftest runner: kselftest-install)
$(EMU_SELFTESTS)/userptr_emu_tests.c $(KSRC)/drivers/gpu/drm/tests/userptr_emu_uapi.h: \
	$(KHDR)/linux/kfd_ioctl.h ;
$(BIN)/userptr_emu_tests: $(EMU_SELFTESTS)/userptr_emu_tests.c \
			  $(KSRC)/drivers/gpu/drm/tests/userptr_emu_uapi.h | $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -I$(KSRC) $< -o $@ -lpthread

# The same selftests as a maintainer runs them from the kernel tree: built
# and installed by the kernel's kselftest-install, with its runner
# (run_kselftest.sh), into build/kselftest, which guest/userptr runs.
$(KSELFTEST)/run_kselftest.sh: $(wildcard $(EMU_SELFTESTS)/*) | $(KHDR)/linux/kfd_ioctl.h
	@scripts/kernel-build --flavour $(TOOLS_FLAVOUR) -s kselftest-install \
		TARGETS=drivers/gpu/userptr_batch INSTALL_PATH=$(abspath $(KSELFTEST))

# BPF (libbpf-bootstrap's layout): CO-RE objects built against the
# vmlinux.h of bpf/vmlinux (the project's test kernel's BTF, dumped by
# `make vmlinux-h`; CO-RE relocates against the BTF of whichever kernel
# loads them), embedded in the tools as bpftool skeletons
BPF_OUT := $(BUILD)/bpf
BPF_ARCH := x86
VMLINUX_H := bpf/vmlinux/$(BPF_ARCH)/vmlinux.h
# -fms-extensions -Wno-microsoft-anon-tag, as 7.3's Makefile builds the
# kernel (CC_FLAGS_DIALECT): its types embed named structs without a member
# name (struct ns_common's struct ns_tree), which vmlinux.h keeps and clang
# otherwise drops from the layout
BPF_CFLAGS := -g -O2 -Wall -fms-extensions -Wno-microsoft-anon-tag -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	      -Ibpf/vmlinux/$(BPF_ARCH) -Ibpf
# libdrm: the DRM nodes' drivers (kfdtrace), render nodes (libuserptr)
DRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null)
DRM_LIBS := $(shell pkg-config --libs libdrm 2>/dev/null || echo -ldrm)

TOOL_CFLAGS := $(CFLAGS) -Wall -Wextra -Wno-unused-parameter \
	       -Wno-missing-field-initializers -I$(BPF_OUT) -Ibpf

.SECONDARY: $(BPF_OUT)/kfdtrace.bpf.o
$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c bpf/%.h $(VMLINUX_H) | tool-deps
	@mkdir -p $(@D)
	clang $(BPF_CFLAGS) -c $< -o $@
$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	bpftool gen skeleton $< >$@.tmp && mv $@.tmp $@

# Regenerate the kept vmlinux.h from a built kernel (KERNEL_VMLINUX, by
# default the test flavour's), when the BPF programs need a type the
# header has not got
KERNEL_VMLINUX ?= $(BUILD)/kernel-test/vmlinux
vmlinux-h:
	@test -f $(KERNEL_VMLINUX) || { echo "no $(KERNEL_VMLINUX): make kernel first" >&2; exit 1; }
	@mkdir -p $(dir $(VMLINUX_H))
	{ echo '/* SPDX-License-Identifier: GPL-2.0 */'; \
	  echo '/* bpftool btf dump file vmlinux format c: the test kernel of kernel/patches (make vmlinux-h) */'; \
	  bpftool btf dump file $(KERNEL_VMLINUX) format c; } >$(VMLINUX_H).tmp
	mv $(VMLINUX_H).tmp $(VMLINUX_H)

# the series' UAPI headers in include/uapi, from base + series
uapi:
	@scripts/uapi-sync

KFDTRACE_DIR := tools/kfdtrace
KFDTRACE_SRC := $(addprefix $(KFDTRACE_DIR)/,main.c recopts.c record.c compare.c \
		check.c report.c doc.c verdict.c ioctls.c events.c replay.c feature.c \
		probe.c)
KFDTRACE_HDR := $(addprefix $(KFDTRACE_DIR)/,main.h probe.h report.h doc.h verdict.h \
		events.h)
# (ioctls.c: the devices' ioctls, from the kernel's and the device's uAPI)
$(BIN)/kfdtrace: $(KFDTRACE_SRC) $(KFDTRACE_HDR) bpf/kfdtrace.h $(BPF_OUT)/kfdtrace.skel.h \
		 include/test/userptr_emu_uapi.h $(UAPI)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(TOOL_CFLAGS) -isystem $(UAPI) -Iinclude/test -DKT_VERSION='"$(LIB_VERSION)"' \
		$(DRM_CFLAGS) $(KFDTRACE_SRC) -o $@ -lbpf -lelf -lz -ljansson -lm $(DRM_LIBS)

# the JSON reader and writer, and the verdict they carry: no BPF needed
KFDTRACE_JSON_SRC := $(addprefix $(KFDTRACE_DIR)/,doc.c report.c verdict.c ioctls.c events.c)
$(BIN)/kfdtrace_json_test: tools/selftests/kfdtrace/json_test.c $(KFDTRACE_JSON_SRC) \
			   $(KFDTRACE_HDR) bpf/kfdtrace.h | $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Ibpf -Iinclude/test $< $(KFDTRACE_JSON_SRC) -o $@ \
		-ljansson -lm

# synthetic events files (record -w's format) for the replay tests
$(BIN)/kfdtrace_evstream: tools/selftests/kfdtrace/evstream.c $(KFDTRACE_HDR) bpf/kfdtrace.h
	@mkdir -p $(BIN)
	$(CC) $(TOOL_CFLAGS) -Itools/kfdtrace $< -o $@

$(BIN)/ioctl_mix: tools/selftests/kfdtrace/ioctl_mix.c include/test/userptr_emu_uapi.h \
		  $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Iinclude/test $< -o $@

$(BIN)/follow_load: tools/selftests/kfdtrace/follow_load.c include/test/userptr_emu_uapi.h \
		    $(KHDR)/linux/kfd_ioctl.h
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Iinclude/test $< -o $@ -lpthread

# libuserptr, and the workloads on it: one position-independent object
# for the static library and the shared one (soname libuserptr.so.1; the
# version script exports upr_* alone)
LIB := $(BUILD)/lib/libuserptr.a
LIB_SOVER := 1
# the packages' (debian/changelog), which kfdtrace --version prints too
LIB_VERSION := 1.0.0
LIB_SO := $(BUILD)/lib/libuserptr.so.$(LIB_VERSION)
LIB_CFLAGS := $(CFLAGS) -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	      -D_GNU_SOURCE -isystem $(UAPI) -Iinclude/test -Itools/libuserptr
WL_CFLAGS := $(LIB_CFLAGS) -Itools/workloads -Itools/bench/gpusvm
WL_COMMON := tools/workloads/layout.c tools/workloads/layout.h tools/libuserptr/userptr.h \
	     tools/libuserptr/hsakmt_compat.h include/test/userptr_emu_uapi.h \
	     tools/bench/gpusvm/userptr_gpusvm_uapi.h $(LIB)

.PHONY: libuserptr
libuserptr: $(LIB) $(LIB_SO) $(BUILD)/lib/libuserptr.so
$(BUILD)/lib/userptr.o: tools/libuserptr/userptr.c tools/libuserptr/userptr.h \
			tools/libuserptr/hsakmt_compat.h include/test/userptr_emu_uapi.h \
			$(UAPI)/linux/kfd_ioctl.h | tool-deps
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(DRM_CFLAGS) -fPIC -c $< -o $@
$(LIB): $(BUILD)/lib/userptr.o
	rm -f $@ && $(AR) rcs $@ $^
$(LIB_SO): $(BUILD)/lib/userptr.o tools/libuserptr/libuserptr.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libuserptr.so.$(LIB_SOVER) \
		-Wl,--version-script=tools/libuserptr/libuserptr.map -Wl,-z,defs \
		$< -o $@ $(DRM_LIBS)
$(BUILD)/lib/libuserptr.so: $(LIB_SO)
	ln -sf libuserptr.so.$(LIB_VERSION) $(BUILD)/lib/libuserptr.so.$(LIB_SOVER)
	ln -sf libuserptr.so.$(LIB_SOVER) $@

$(BIN)/userptr-bench: tools/workloads/userptr_bench.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(WL_CFLAGS) $< tools/workloads/layout.c -o $@ $(LIB) $(DRM_LIBS)

$(BIN)/userptr-virgl: tools/workloads/userptr_virgl.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(WL_CFLAGS) $< tools/workloads/layout.c -o $@ $(LIB) $(DRM_LIBS)

$(BIN)/userptr-stress: tools/workloads/userptr_stress.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(WL_CFLAGS) $< tools/workloads/layout.c -o $@ $(LIB) $(DRM_LIBS) -lpthread

$(BIN)/userptr-pressure: tools/workloads/userptr_pressure.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(WL_CFLAGS) $(DRM_CFLAGS) $< tools/workloads/layout.c -o $@ $(LIB) $(DRM_LIBS)

$(BIN)/userptr_unit_tests: tools/selftests/libuserptr/userptr_unit_tests.c \
			   tools/libuserptr/hsakmt_compat.h $(LIB)
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Itools/libuserptr $< -o $@ $(LIB) $(DRM_LIBS)

# on a real AMD GPU: scripts/hw-check runs it
$(BIN)/kfd_gpu_tests: tools/selftests/amdkfd/kfd_gpu_tests.c tools/selftests/amdkfd/kfd_render.h \
		     $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) -Itools/libuserptr -Itools/workloads -Iinclude/test -Itools/bench/gpusvm \
		$< tools/workloads/layout.c -o $@ $(LIB) $(DRM_LIBS)

# the GPU reading a batch (the render node's, taken over: kfd_render.h)
# back through the HSA runtime, on a real AMD GPU:
# scripts/hw-check runs it. ROCm's runtime in /opt/rocm when there is one,
# else Debian's (libhsa-runtime-dev, installed when missing).
ROCM ?= /opt/rocm
HSA_ROCM := $(wildcard $(ROCM)/include/hsa/hsa.h)
HSA_CFLAGS ?= $(if $(HSA_ROCM),-I$(ROCM)/include)
comma := ,
HSA_LIBS ?= $(if $(HSA_ROCM),-L$(ROCM)/lib -Wl$(comma)-rpath$(comma)$(ROCM)/lib) -lhsa-runtime64
hsa-deps:
	@$(if $(HSA_ROCM),true,scripts/deps hsa)
$(BIN)/kfd_gpu_readback: tools/selftests/amdkfd/kfd_gpu_readback.c tools/selftests/amdkfd/kfd_render.h \
			$(WL_COMMON) | hsa-deps
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) $(HSA_CFLAGS) -Itools/libuserptr -Itools/workloads \
		-Iinclude/test -Itools/bench/gpusvm $< tools/workloads/layout.c -o $@ $(LIB) $(DRM_LIBS) $(HSA_LIBS)

$(BIN)/userptr_lib_tests: tools/selftests/libuserptr/userptr_lib_tests.c $(WL_COMMON)
	@mkdir -p $(BIN)
	$(CC) $(SELFTEST_CFLAGS) $(DRM_CFLAGS) -Itools/libuserptr -Itools/workloads -Iinclude/test -Itools/bench/gpusvm \
		$< tools/workloads/layout.c -o $@ $(LIB) $(DRM_LIBS)

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

# the QEMU plugin of tools/bench/icount-profile.sh (a host tool)
$(BIN)/icount_plugin.so: tools/bench/icount_plugin.c
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -Wall -Wextra -Wno-unused-parameter -shared -fPIC $< -o $@ -lpthread

# Man pages, from the manuals in docs/ by pandoc (scripts/man-page)
MAN_PAGES := $(BUILD)/man/kfdtrace.8 $(BUILD)/man/libuserptr.3
man: $(MAN_PAGES)
$(BUILD)/man/kfdtrace.8: docs/kfdtrace.md scripts/man-page scripts/man-tables.lua
	@scripts/man-page $< kfdtrace 8 \
		"trace the userptr registrations of amdkfd and the emulated device" $@
$(BUILD)/man/libuserptr.3: docs/libuserptr.md scripts/man-page scripts/man-tables.lua
	@scripts/man-page $< libuserptr 3 "" $@

# make install / uninstall: PREFIX (/usr/local) and DESTDIR, as usual;
# kfdtrace in sbin (it needs CAP_BPF and CAP_PERFMON, man section 8, as
# bpftool); LIBDIR for a multiarch one (/usr/lib/x86_64-linux-gnu).
# ldconfig runs when root installs into the system (no DESTDIR); a
# package runs it from its triggers.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BPFTRACE_VIEWS := $(wildcard bpf/bpftrace/*.bt)
LIB_HEADERS := tools/libuserptr/userptr.h tools/libuserptr/hsakmt_compat.h
INSTALL ?= install
D := $(DESTDIR)

# The pkg-config file has the install's paths: written by install
# itself, straight into the destination, not into build/.
install: $(BIN)/kfdtrace libuserptr $(MAN_PAGES)
	$(INSTALL) -d $(D)$(SBINDIR) $(D)$(LIBDIR)/pkgconfig $(D)$(INCLUDEDIR)/libuserptr \
		$(D)$(DATADIR)/kfdtrace/bpftrace $(D)$(MANDIR)/man8 $(D)$(MANDIR)/man3
	$(INSTALL) -m 0755 $(BIN)/kfdtrace $(D)$(SBINDIR)/kfdtrace
	$(INSTALL) -m 0755 $(BPFTRACE_VIEWS) $(D)$(DATADIR)/kfdtrace/bpftrace/
	$(INSTALL) -m 0755 $(LIB_SO) $(D)$(LIBDIR)/
	ln -sfn libuserptr.so.$(LIB_VERSION) $(D)$(LIBDIR)/libuserptr.so.$(LIB_SOVER)
	ln -sfn libuserptr.so.$(LIB_SOVER) $(D)$(LIBDIR)/libuserptr.so
	$(INSTALL) -m 0644 $(LIB) $(D)$(LIBDIR)/
	$(INSTALL) -m 0644 $(LIB_HEADERS) $(D)$(INCLUDEDIR)/libuserptr/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(LIB_VERSION)|' \
	    tools/libuserptr/libuserptr.pc.in >$(D)$(LIBDIR)/pkgconfig/libuserptr.pc
	chmod 0644 $(D)$(LIBDIR)/pkgconfig/libuserptr.pc
	$(INSTALL) -m 0644 $(BUILD)/man/kfdtrace.8 $(D)$(MANDIR)/man8/
	$(INSTALL) -m 0644 $(BUILD)/man/libuserptr.3 $(D)$(MANDIR)/man3/
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

uninstall:
	rm -f $(D)$(SBINDIR)/kfdtrace \
	      $(addprefix $(D)$(DATADIR)/kfdtrace/bpftrace/,$(notdir $(BPFTRACE_VIEWS))) \
	      $(D)$(LIBDIR)/libuserptr.so.$(LIB_VERSION) $(D)$(LIBDIR)/libuserptr.so.$(LIB_SOVER) \
	      $(D)$(LIBDIR)/libuserptr.so $(D)$(LIBDIR)/libuserptr.a \
	      $(addprefix $(D)$(INCLUDEDIR)/libuserptr/,$(notdir $(LIB_HEADERS))) \
	      $(D)$(LIBDIR)/pkgconfig/libuserptr.pc \
	      $(D)$(MANDIR)/man8/kfdtrace.8 $(D)$(MANDIR)/man3/libuserptr.3
	for d in $(D)$(DATADIR)/kfdtrace/bpftrace $(D)$(DATADIR)/kfdtrace $(D)$(INCLUDEDIR)/libuserptr; do \
		[ ! -d $$d ] || rmdir --ignore-fail-on-non-empty $$d; done

# the tools' Debian packages, from debian/ with dpkg-buildpackage
deb:
	@scripts/deb

kernel-deb:
	@scripts/kernel-deb $(if $(KERNEL_CONFIG),--config "$(KERNEL_CONFIG)") \
		$(if $(KERNEL_DEB_OUT),--out "$(KERNEL_DEB_OUT)")

# V=1: the kernel build's output, not a line a minute
kernel:
	@scripts/kernel-build --flavour $(FLAVOUR) $(if $(filter 1,$(V)),--verbose)

modules:
	@scripts/module-build --flavour $(FLAVOUR) $(MODULES)

deps:
	@scripts/deps kernel vm user check bpf man deb hsa

check: deps
	@scripts/check $(SUITES)

demo: deps
	@scripts/demo

bench: deps
	@scripts/deps bench
	@scripts/bench $(REPS)

# the data-race run (scripts/kcsan): a kernel flavour of its own, so not
# in check
kcsan: deps
	@scripts/kcsan

clean:
	rm -rf $(BIN) $(BUILD)/check $(BUILD)/vm $(BUILD)/modules-* $(BUILD)/bpf $(BUILD)/lib \
		$(BUILD)/man

distclean:
	rm -rf $(BUILD)
