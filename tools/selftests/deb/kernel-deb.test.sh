#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kernel-deb: linux-image and linux-headers packages of the base plus
# the series, built from a config the user gives (here the test kernel's,
# so that ccache has its objects), hold the kernel, its config with what
# the series needs, the series' modules and the helper's header; then the
# packaged kernel boots in the guest with the packaged modules, loads the
# test device from them and registers a batch on it. Bad arguments fail
# with a message before any build.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tools/selftests/lib/tap.sh
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
cd "$top"
out=$top/build/check/kernel-deb
rm -rf "$out"
mkdir -p "$out"

# what a user gets wrong first: each fails at once, naming the problem
bad() {
	local name=$1 want=$2 msg rc=0
	shift 2
	msg=$(scripts/kernel-deb "$@" 2>&1) || rc=$?
	if [ $rc -ne 0 ] && has_line "$want" <<<"$msg"; then
		tap_ok "kernel-deb $name: exit $rc, '$want'"
	else
		tap_diag_last 5 <<<"$msg"
		tap_fail "kernel-deb $name (exit $rc)"
	fi
}
bad "with no such config" "no kernel config at /nonexistent: give one with --config" \
	--config /nonexistent
bad "with a bad local version" "--localversion takes lower-case" \
	--config build/kernel-test/.config --localversion ' x'
bad "with an unknown option" "unknown option '--bogus'" --bogus

rc=0
t0=$SECONDS
make --no-print-directory kernel-deb KERNEL_CONFIG=build/kernel-test/.config \
	KERNEL_DEB_OUT="$out/pkgs" >"$out/build.log" 2>&1 || rc=$?
if [ $rc -ne 0 ]; then
	tap_diag_last 30 <"$out/build.log"
	tap_fail "make kernel-deb (exit $rc)"
	exit 1
fi
tap_ok "make kernel-deb from the test kernel's config ($((SECONDS - t0)) s)"

image=$(ls "$out"/pkgs/linux-image-*.deb)
headers=$(ls "$out"/pkgs/linux-headers-*.deb)
rel=$(dpkg-deb -f "$image" Package)
rel=${rel#linux-image-}
want_rel="$(make -s -C build/linux kernelversion)-kfd-batch"
if [ "$rel" = "$want_rel" ] && [ "$(dpkg-deb -f "$headers" Package)" = "linux-headers-$rel" ] &&
   [ "$(dpkg-deb -f "$image" Architecture)" = "$(dpkg --print-architecture)" ]; then
	tap_ok "linux-image-$rel and linux-headers-$rel, for $(dpkg --print-architecture)"
else
	tap_fail "the packages' names: $(basename "$image") $(basename "$headers"), expected release $want_rel"
fi
[ "$(ls "$out"/pkgs | wc -l)" -eq 2 ] && tap_ok "only those two: no debug symbols, no linux-libc-dev" ||
	{ ls "$out"/pkgs | tap_diag; tap_fail "only those two packages"; }

# has_all NAME LIST LINE...: one case, passing when LIST (a file) has each
# LINE, as a whole line; the missing ones are shown
has_all() {
	local name=$1 list=$2 l missing=()
	shift 2
	for l in "$@"; do
		grep -qxF -- "$l" "$list" || missing+=("$l")
	done
	[ ${#missing[@]} -eq 0 ] && tap_ok "$name" ||
		{ printf '%s\n' "${missing[@]}" | tap_diag; tap_fail "$name: missing above"; }
}

# the files that matter, from the packages' own lists
dpkg-deb -c "$image" | awk '{ print $6 }' >"$out/image.list"
dpkg-deb -c "$headers" | awk '{ print $6 }' >"$out/headers.list"
mods=./lib/modules/$rel
has_all "linux-image: the kernel, its config and map, and the series' modules" "$out/image.list" \
	./boot/vmlinuz-$rel ./boot/config-$rel ./boot/System.map-$rel $mods/modules.dep \
	$mods/kernel/drivers/gpu/drm/drm_userptr_batch.ko \
	$mods/kernel/drivers/gpu/drm/tests/userptr_emu.ko \
	$mods/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko
hdr=./usr/src/linux-headers-$rel
has_all "linux-headers: what an out-of-tree module builds against, the helper's header included" \
	"$out/headers.list" $hdr/Module.symvers $hdr/include/config/auto.conf \
	$hdr/include/drm/drm_userptr_batch.h

root=$out/root
dpkg-deb -x "$image" "$root"
mapfile -t want < <(grep -E '^CONFIG_[A-Z0-9_]+=' kernel/config/deb.config)
has_all "the packaged config has every option of kernel/config/deb.config" \
	"$root/boot/config-$rel" "${want[@]}"

# the packaged kernel and modules in the guest
rc=0
guest=$(scripts/vm-run --kernel "$root/boot/vmlinuz-$rel" --modroot "$root" --mem 1024 \
	--no-kmemleak --timeout 900 --out "$out/vm" -- \
	tools/selftests/deb/guest-kernel-deb.sh "$rel" "$root" 2>&1) || rc=$?
while IFS= read -r l; do
	case "$l" in
	"ok "*) tap_ok "guest: ${l#ok }" ;;
	"not ok "*) tap_fail "guest: ${l#not ok }" ;;
	esac
done <<<"$guest"
if [ $rc -ne 0 ]; then
	tap_diag_last 20 <<<"$guest"
	tap_fail "the packaged kernel's guest run (exit $rc)"
fi
[ "$TAP_FAILED" -eq 0 ]
