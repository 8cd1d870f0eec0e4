#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series' UAPI headers kept in include/uapi, which the tools are built
# with instead of a built kernel's: each is byte for byte what the pinned
# base plus kernel/patches installs (scripts/uapi-sync, as the kernel's
# tools/include/uapi is checked against include/uapi). A patch that
# changes kfd_ioctl.h without `scripts/uapi-sync` fails here, with the
# diff.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

want=$(mktemp -d)
trap 'rm -rf "$want"' EXIT
if ! out=$(INCLUDE_DEST=$want "$top/scripts/uapi-sync" 2>&1); then
	tap_diag <<<"$out"
	tap_fail "scripts/uapi-sync: base + series' UAPI headers made"
	exit 1
fi
for h in linux/kfd_ioctl.h drm/drm.h drm/drm_mode.h linux/bits.h linux/const.h \
	 drm/amdgpu_drm.h; do
	if cmp -s "$top/include/uapi/$h" "$want/uapi/$h"; then
		tap_ok "include/uapi/$h is base + series, as headers_install makes it"
	else
		diff -u "$top/include/uapi/$h" "$want/uapi/$h" 2>&1 | head -n 40 | tap_diag
		tap_fail "include/uapi/$h is base + series, as headers_install makes it (run scripts/uapi-sync)"
	fi
done
# the test device's uAPI, which the tools share with its selftests
h=test/userptr_emu_uapi.h
if cmp -s "$top/include/$h" "$want/$h"; then
	tap_ok "include/$h is the series' drivers/gpu/drm/tests/userptr_emu_uapi.h"
else
	diff -u "$top/include/$h" "$want/$h" 2>&1 | head -n 40 | tap_diag
	tap_fail "include/$h is the series' drivers/gpu/drm/tests/userptr_emu_uapi.h (run scripts/uapi-sync)"
fi

# the series' KFD in the copy the tools use (the host's linux-libc-dev has
# a kfd_ioctl.h of its own, which the copy must shadow): KFD 1.24, whose
# AMDKFD_IOC_IMPORT_DMABUF takes a GEM userptr handle and mapping flags in
# 32 bytes at its old number, and no batch ioctl of amdkfd's own
uapi_cc() {	# NAME C-SOURCE: the source compiles with the tools' headers
	local err
	if err=$(printf '#include <stddef.h>\n#include <linux/kfd_ioctl.h>\n%s\n' "$2" |
		 gcc -isystem "$top/include/uapi" -x c -c -o /dev/null - 2>&1); then
		tap_ok "$1"
	else
		tap_diag <<<"$err"
		tap_fail "$1"
	fi
}
uapi_cc "the tools' headers (-isystem include/uapi) are KFD 1.24" \
	'_Static_assert(KFD_IOCTL_MAJOR_VERSION == 1 && KFD_IOCTL_MINOR_VERSION == 24, "1.24");'
uapi_cc "the tools' headers: AMDKFD_IOC_IMPORT_DMABUF is 0x1D, 32 bytes, gem_handle at 24, flags at 28" \
	'_Static_assert(_IOC_NR(AMDKFD_IOC_IMPORT_DMABUF) == 0x1D, "nr");
_Static_assert(_IOC_SIZE(AMDKFD_IOC_IMPORT_DMABUF) == 32, "size");
_Static_assert(_IOC_DIR(AMDKFD_IOC_IMPORT_DMABUF) == (_IOC_READ | _IOC_WRITE), "dir");
_Static_assert(sizeof(struct kfd_ioctl_import_dmabuf_args) == 32, "sizeof");
_Static_assert(offsetof(struct kfd_ioctl_import_dmabuf_args, dmabuf_fd) == 20, "dmabuf_fd");
_Static_assert(offsetof(struct kfd_ioctl_import_dmabuf_args, gem_handle) == 24, "gem_handle");
_Static_assert(offsetof(struct kfd_ioctl_import_dmabuf_args, flags) == 28, "flags");
_Static_assert(KFD_INVALID_FD == 0xffffffffU, "KFD_INVALID_FD");'
uapi_cc "the tools' headers: no AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH, AMDKFD_COMMAND_END 0x29" \
	'#if defined(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH)
#error AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH
#endif
_Static_assert(AMDKFD_COMMAND_END == 0x29 && _IOC_NR(AMDKFD_IOC_PROFILER) == 0x28, "end");'
for t in kfd_ioctl_alloc_memory_of_gpu_batch_args kfd_ioctl_userptr_range; do
	if printf '#include <linux/kfd_ioctl.h>\nstruct %s x;\n' "$t" |
		gcc -isystem "$top/include/uapi" -x c -c -o /dev/null - 2>/dev/null; then
		tap_fail "the tools' headers have no struct $t (the batch ioctl's)"
	else
		tap_ok "the tools' headers have no struct $t (the batch ioctl's)"
	fi
done
# and the render node's GEM_USERPTR with ranges, for the tools that use it
if printf '#include <drm/amdgpu_drm.h>\nint x = AMDGPU_GEM_USERPTR_RANGES;\n' |
	gcc -isystem "$top/include/uapi" -x c -c -o /dev/null - 2>/dev/null; then
	tap_ok "the tools' headers (-isystem include/uapi) have AMDGPU_GEM_USERPTR_RANGES"
else
	tap_fail "the tools' headers (-isystem include/uapi) have AMDGPU_GEM_USERPTR_RANGES"
fi
[ "$TAP_FAILED" -eq 0 ]
