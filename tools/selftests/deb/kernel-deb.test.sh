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

# the files that matter, from the package's own list
files=$(dpkg-deb -c "$image" | awk '{ print $6 }')
missing=()
for f in ./boot/vmlinuz-$rel ./boot/config-$rel ./boot/System.map-$rel \
	./lib/modules/$rel/modules.dep \
	./lib/modules/$rel/kernel/drivers/gpu/drm/drm_userptr_batch.ko \
	./lib/modules/$rel/kernel/drivers/gpu/drm/tests/userptr_emu.ko \
	./lib/modules/$rel/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko; do
	grep -qxF "$f" <<<"$files" || missing+=("$f")
done
[ ${#missing[@]} -eq 0 ] && tap_ok "linux-image: the kernel, its config and map, and the series' modules" ||
	{ printf '%s\n' "${missing[@]}" | tap_diag; tap_fail "linux-image lacks files"; }
hfiles=$(dpkg-deb -c "$headers" | awk '{ print $6 }')
missing=()
for f in ./usr/src/linux-headers-$rel/Module.symvers \
	./usr/src/linux-headers-$rel/include/config/auto.conf \
	./usr/src/linux-headers-$rel/include/drm/drm_userptr_batch.h; do
	grep -qxF "$f" <<<"$hfiles" || missing+=("$f")
done
[ ${#missing[@]} -eq 0 ] &&
	tap_ok "linux-headers: what an out-of-tree module builds against, the helper's header included" ||
	{ printf '%s\n' "${missing[@]}" | tap_diag; tap_fail "linux-headers lacks files"; }

root=$out/root
dpkg-deb -x "$image" "$root"
missing=()
while read -r line; do
	case "$line" in CONFIG_*=*) grep -qxF "$line" "$root/boot/config-$rel" || missing+=("$line") ;; esac
done <kernel/config/deb.config
[ ${#missing[@]} -eq 0 ] && tap_ok "the packaged config has every option of kernel/config/deb.config" ||
	{ printf '%s\n' "${missing[@]}" | tap_diag; tap_fail "the packaged config lacks options"; }

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
