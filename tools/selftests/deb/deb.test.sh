#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the kfdtrace, libuserptr1 and libuserptr-dev packages are
# built (dpkg-buildpackage from debian/), each holds the files make
# install puts there under /usr (dpkg-deb -c), libuserptr1 carries its
# symbols file and the shlibs of its soname, and lintian reports no
# error or warning on them.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=tools/selftests/lib/tap.sh
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
out=$top/build/deb
cd "$top"

rc=0
make --no-print-directory deb >"$top/build/deb.log" 2>&1 || rc=$?
if [ $rc -ne 0 ]; then
	tap_diag_last 30 <"$top/build/deb.log"
	tap_fail "make deb (exit $rc)"
	exit 1
fi
tap_ok "make deb"

ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
declare -A want=(
	[kfdtrace]="./usr/sbin/kfdtrace
./usr/share/doc/kfdtrace/changelog.gz
./usr/share/doc/kfdtrace/copyright
./usr/share/kfdtrace/bpftrace/hmm_fault.bt
./usr/share/kfdtrace/bpftrace/kfd_ioctl.bt
./usr/share/kfdtrace/bpftrace/userptr_inval.bt
./usr/share/kfdtrace/bpftrace/userptr_restore.bt
./usr/share/lintian/overrides/kfdtrace
./usr/share/man/man8/kfdtrace.8.gz"
	[libuserptr1]="./usr/lib/$ma/libuserptr.so.1 -> libuserptr.so.1.0.0
./usr/lib/$ma/libuserptr.so.1.0.0
./usr/share/doc/libuserptr1/changelog.gz
./usr/share/doc/libuserptr1/copyright"
	[libuserptr-dev]="./usr/include/libuserptr/hsakmt_compat.h
./usr/include/libuserptr/userptr.h
./usr/lib/$ma/libuserptr.a
./usr/lib/$ma/libuserptr.so -> libuserptr.so.1
./usr/lib/$ma/pkgconfig/libuserptr.pc
./usr/share/doc/libuserptr-dev/changelog.gz
./usr/share/doc/libuserptr-dev/copyright
./usr/share/man/man3/libuserptr.3.gz"
)
for p in kfdtrace libuserptr1 libuserptr-dev; do
	deb=$out/${p}_${ver}_$arch.deb
	if [ ! -f "$deb" ]; then
		tap_fail "$p: ${deb#"$top"/} built"
		continue
	fi
	# the files and links, not the directories
	got=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' | sort)
	if [ "$got" = "$(sort <<<"${want[$p]}")" ]; then
		tap_ok "$p: ${deb#"$top"/}, with the files make install puts under /usr, and only those"
	else
		diff <(sort <<<"${want[$p]}") <(echo "$got") | tap_diag || true
		tap_fail "$p: ${deb#"$top"/}, with the files make install puts under /usr, and only those"
	fi
done

deb1=$out/libuserptr1_${ver}_$arch.deb
ctl=$(mktemp -d)
trap 'rm -rf "$ctl"' EXIT
if [ -f "$deb1" ] && dpkg-deb -e "$deb1" "$ctl" &&
   grep -qx 'libuserptr 1 libuserptr1 (>= 1.0.0)' "$ctl/shlibs" &&
   grep -qx 'libuserptr.so.1 libuserptr1 #MINVER#' "$ctl/symbols" &&
   grep -q '^ upr_hsakmt_register_ranges@LIBUSERPTR_1.0 1.0.0$' "$ctl/symbols"; then
	tap_ok "libuserptr1: shlibs for libuserptr.so.1 and a symbols file of its upr_* at LIBUSERPTR_1.0"
else
	tap_diag <"$ctl/shlibs" 2>/dev/null || true
	tap_fail "libuserptr1: shlibs for libuserptr.so.1 and a symbols file of its upr_* at LIBUSERPTR_1.0"
fi
# (debian/kfdtrace.lintian-overrides says why the views' interpreter is
# not a warning; an override that matches nothing is one: mismatched-override)
if [ -f "$out/lintian.txt" ] && ! grep -q '^[EW]: ' "$out/lintian.txt"; then
	tap_ok "lintian: no error and no warning"
else
	grep '^[EW]: ' "$out/lintian.txt" 2>/dev/null | tap_diag
	tap_fail "lintian: no error and no warning"
fi
[ "$TAP_FAILED" -eq 0 ]
