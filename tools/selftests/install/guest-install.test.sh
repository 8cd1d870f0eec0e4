#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The installed tools on the emulated device: make install into a
# DESTDIR, upr_example built with pkg-config against it (host), then in
# the guest (guest-install.sh) the program registers scattered pages on
# /dev/userptr_emu through the installed libuserptr.so.1, under the
# installed kfdtrace, which counts one batch ioctl for them.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
out=${GUEST_INSTALL_OUT:-$top/build/check/guest-install}
d=$out/destdir
p=/usr/local
rm -rf "$out"
mkdir -p "$out"
cd "$top" || exit 1
echo "TAP version 13"
pc() { PKG_CONFIG_PATH=$d$p/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d pkg-config "$@"; }
# shellcheck disable=SC2046
if ! { make --no-print-directory install DESTDIR="$d" &&
       gcc -Wall -Werror tools/selftests/install/upr_example.c \
	   $(pc --cflags --libs libuserptr) -o "$out/upr_example"; } >"$out/build.log" 2>&1; then
	tap_diag_last 20 <"$out/build.log"
	tap_fail "make install DESTDIR=..., upr_example built with pkg-config"
	exit 1
fi
tap_ok "make install DESTDIR=..., upr_example built with pkg-config"
exec scripts/vm-run --mem 1024 --no-kmemleak --out "$out" -- \
	tools/selftests/install/guest-install.sh "$d$p" "$out/upr_example"
