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

# the series adds the batch ioctl to the copy the tools use (the host's
# linux-libc-dev has kfd_ioctl.h without it, which the copy must shadow)
if printf '#include <linux/kfd_ioctl.h>\nint x = AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH;\n' |
	gcc -isystem "$top/include/uapi" -x c -c -o /dev/null - 2>/dev/null; then
	tap_ok "the tools' headers (-isystem include/uapi) have AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH"
else
	tap_fail "the tools' headers (-isystem include/uapi) have AMDKFD_IOC_ALLOC_MEMORY_OF_GPU_BATCH"
fi
# and the render node's GEM_USERPTR with ranges, for the tools that use it
if printf '#include <drm/amdgpu_drm.h>\nint x = AMDGPU_GEM_USERPTR_RANGES;\n' |
	gcc -isystem "$top/include/uapi" -x c -c -o /dev/null - 2>/dev/null; then
	tap_ok "the tools' headers (-isystem include/uapi) have AMDGPU_GEM_USERPTR_RANGES"
else
	tap_fail "the tools' headers (-isystem include/uapi) have AMDGPU_GEM_USERPTR_RANGES"
fi
[ "$TAP_FAILED" -eq 0 ]
