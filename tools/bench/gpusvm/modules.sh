# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts/bench (host side, after scripts/lib.sh): the
# bench-only module userptr_gpusvm and drm_gpusvm's helper module, built
# out of the kernel tree against the bench kernel.
#
# 7.3 builds drm_gpusvm (drm_gpusvm_helper.ko) only for a driver that
# selects DRM_GPUSVM, a symbol without a prompt, and the bench kernel
# builds no such driver (Xe would add some 300 files to every cold build).
# So the kernel tree's own drm_gpusvm.c and drm_pagemap*.c are built here
# as that module, unchanged, as drivers/gpu/drm/Makefile builds them.

# gpusvm_build O DIR: drm_gpusvm_helper.ko (unless the kernel in O has
# DRM_GPUSVM) and userptr_gpusvm.ko in DIR, against the kernel built in O
gpusvm_build() {
	local o=$1 d=$2 f objs=userptr_gpusvm.o
	rm -rf "$d"
	mkdir -p "$d"
	cp "$TOP/tools/bench/gpusvm/userptr_gpusvm.c" \
		"$TOP/tools/bench/gpusvm/userptr_gpusvm_uapi.h" "$d/"
	if ! grep -q '^CONFIG_DRM_GPUSVM=' "$o/.config"; then
		for f in drm_gpusvm.c drm_pagemap.c drm_pagemap_util.c; do
			cp "$KSRC/drivers/gpu/drm/$f" "$d/" ||
				die "no drivers/gpu/drm/$f in $KSRC: the base has no drm_gpusvm"
		done
		objs="drm_gpusvm_helper.o $objs"
		echo 'drm_gpusvm_helper-y := drm_gpusvm.o drm_pagemap.o drm_pagemap_util.o' >"$d/Kbuild"
	fi
	echo "obj-m += $objs" >>"$d/Kbuild"
	kmake "$o" -s M="$d" modules
}
