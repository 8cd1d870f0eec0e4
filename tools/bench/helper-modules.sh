# SPDX-License-Identifier: GPL-2.0
# Sourced by ab-helper.sh and registration-floor.sh: the helper module and
# the emulated device built out of the kernel tree, from the series at a
# project revision, against the bench kernel (helper_tree, helper_build:
# host side, after scripts/lib.sh), and loaded in the guest in place of
# the kernel's (helper_load).

# the helper's files, which the series adds (patches 6-10)
helper_c=drivers/gpu/drm/drm_userptr_batch.c
helper_trace=drivers/gpu/drm/drm_userptr_batch_trace.h
helper_header=include/drm/drm_userptr_batch.h

# helper_tree REV DIR: the helper's files and the test device's, as base +
# the series at project revision REV (the working tree when REV is empty)
# has them, in DIR: every file is new in the series, so the series' hunks
# for them apply to an empty tree. A revision from before the device
# joined the series (patch 11, drivers/gpu/drm/tests) has it in
# kernel/userptr-emu.
helper_tree() {
	local rev=$1 dir=$2 p
	rm -rf "$dir"
	mkdir -p "$dir/emu"
	git -C "$dir" init -q
	for p in $(if [ -n "$rev" ]; then
			git -C "$TOP" show "$rev:kernel/patches/series"
		else
			cat "$TOP/kernel/patches/series"
		fi | grep -v '^#'); do
		if [ -n "$rev" ]; then
			git -C "$TOP" show "$rev:kernel/patches/$p"
		else
			cat "$TOP/kernel/patches/$p"
		fi | git -C "$dir" apply --include="$helper_c" --include="$helper_trace" \
			--include="$helper_header" --include='drivers/gpu/drm/tests/userptr_emu*' - ||
			die "kernel/patches/$p at ${rev:-the working tree} does not apply"
	done
	rm -rf "$dir/.git"
	[ -s "$dir/$helper_c" ] || die "no $helper_c in the series at ${rev:-the working tree}"
	if [ -f "$dir/drivers/gpu/drm/tests/userptr_emu.c" ]; then
		mv "$dir"/drivers/gpu/drm/tests/userptr_emu* "$dir/emu/"
		printf 'obj-m += userptr_emu.o\nCFLAGS_userptr_emu.o := -I$(src)\n' >"$dir/emu/Kbuild"
	elif [ -n "$rev" ]; then
		git -C "$TOP" archive "$rev" kernel/userptr-emu | tar -x -C "$dir/emu" --strip-components=2
	fi
	[ -s "$dir/emu/userptr_emu.c" ] || die "no test device at ${rev:-the working tree}"
}

# helper_build O DIR: drm_userptr_batch.ko in DIR and userptr_emu.ko in
# DIR/emu, from DIR's files (helper_tree), against the kernel built in O;
# DIR's include/drm/drm_userptr_batch.h (helper_header) goes before the
# kernel's on the include path, so that a change of the helper's structs
# builds too
helper_build() {
	local o=$1 d=$2
	cp "$d/$helper_c" "$d/$helper_trace" "$d/"
	# NOSTDINC_FLAGS comes before the kernel's include directories
	printf 'obj-m := drm_userptr_batch.o\nccflags-y := -I$(src)\nNOSTDINC_FLAGS += -I$(src)/include\n' >"$d/Kbuild"
	kmake "$o" -s M="$d" modules
	# the device of the same revision: it calls what that helper exports
	echo 'NOSTDINC_FLAGS += -I$(src)/../include' >>"$d/emu/Kbuild"
	kmake "$o" -s M="$d/emu" modules
}

# helper_load DIR: in the guest, the pair helper_build made in DIR
# instead of whatever helper and device are loaded
helper_load() {
	modprobe -r userptr_emu 2>/dev/null || true
	rmmod drm_userptr_batch 2>/dev/null || true
	insmod "$1/drm_userptr_batch.ko"
	insmod "$1/emu/userptr_emu.ko"
}
