#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install into a DESTDIR, as a packager or an operator runs it: the
# files and only those, libuserptr's soname and links, the symbols it
# exports, its pkg-config file (a program outside the tree built with
# `pkg-config --cflags --libs libuserptr`, shared and static, and run),
# the installed kfdtrace run (--version; feature -j unprivileged, exit 0
# and JSON), the man pages, the bpftrace views; make uninstall removes
# every file.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"
out=$top/build/check/install
d=$out/destdir
p=/usr/local
rm -rf "$out"
mkdir -p "$out"
cd "$top" || exit 1

# `make && sudo make install`: make builds what install needs, so that
# install, as root, writes nothing into build/ (files the user could not
# remove then)
if ! make --no-print-directory all >"$out/all.log" 2>&1; then
	tap_diag_last 20 <"$out/all.log"
	tap_fail "make all"
	exit 1
fi
touch "$out/after-all"
if ! make --no-print-directory install DESTDIR="$d" >"$out/install.log" 2>&1; then
	tap_diag_last 20 <"$out/install.log"
	tap_fail "make install DESTDIR=..."
	exit 1
fi
tap_ok "make install DESTDIR=... (PREFIX $p)"
# (build/check: this test's files, and the log scripts/check writes)
written=$(find "$top/build" -newer "$out/after-all" ! -path "$top/build/check" \
	! -path "$top/build/check/*" 2>&1)
if [ -z "$written" ]; then
	tap_ok "make install after make all writes nothing into build/"
else
	tap_diag <<<"$written"
	tap_fail "make install after make all writes nothing into build/"
fi

want="$p/include/libuserptr/hsakmt_compat.h
$p/include/libuserptr/userptr.h
$p/lib/libuserptr.a
$p/lib/libuserptr.so
$p/lib/libuserptr.so.1
$p/lib/libuserptr.so.1.0.0
$p/lib/pkgconfig/libuserptr.pc
$p/sbin/kfdtrace
$p/share/kfdtrace/bpftrace/hmm_fault.bt
$p/share/kfdtrace/bpftrace/kfd_ioctl.bt
$p/share/kfdtrace/bpftrace/userptr_inval.bt
$p/share/kfdtrace/bpftrace/userptr_restore.bt
$p/share/man/man3/libuserptr.3
$p/share/man/man8/kfdtrace.8"
got=$(cd "$d" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort)
if [ "$got" = "$want" ]; then
	tap_ok "the installed files, and only those"
else
	diff <(echo "$want") <(echo "$got") | tap_diag
	tap_fail "the installed files, and only those"
fi

# the soname, the links a linker and the loader follow, the exports
lib=$d$p/lib
soname=$(readelf -d "$lib/libuserptr.so.1.0.0" 2>&1 | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = libuserptr.so.1 ] &&
   [ "$(readlink "$lib/libuserptr.so.1")" = libuserptr.so.1.0.0 ] &&
   [ "$(readlink "$lib/libuserptr.so")" = libuserptr.so.1 ]; then
	tap_ok "libuserptr.so.1.0.0: soname libuserptr.so.1; libuserptr.so -> .so.1 -> .so.1.0.0"
else
	tap_fail "libuserptr.so.1.0.0: soname libuserptr.so.1 (got '$soname') and its links"
fi
syms=$(nm -D --defined-only "$lib/libuserptr.so.1.0.0" | awk '$2 == "T" { print $3 }')
if [ -n "$syms" ] && ! grep -qv '^upr_.*@@LIBUSERPTR_1.0$' <<<"$syms" &&
   [ "$(grep -c . <<<"$syms")" = "$(nm "$lib/libuserptr.a" | grep -c ' T upr_')" ]; then
	tap_ok "libuserptr.so exports the upr_* functions of libuserptr.a alone, at version LIBUSERPTR_1.0"
else
	grep -v '^upr_.*@@LIBUSERPTR_1.0$' <<<"$syms" | tap_diag
	tap_fail "libuserptr.so exports the upr_* functions of libuserptr.a alone, at version LIBUSERPTR_1.0"
fi

# a program outside the tree, as its developer builds it: the .pc file
# names /usr/local, the sysroot puts DESTDIR in front
pc() { PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d pkg-config "$@"; }
flags=$(pc --cflags --libs libuserptr 2>&1)
flags=${flags% }
if [ "$flags" = "-I$d$p/include/libuserptr -L$lib -luserptr" ] &&
   [ "$(pc --modversion libuserptr)" = 1.0.0 ]; then
	tap_ok "pkg-config --cflags --libs libuserptr: $p's include and lib directories, -luserptr"
else
	tap_fail "pkg-config --cflags --libs libuserptr (got: $flags)"
fi
ex=$top/tools/selftests/install/upr_example.c
# shellcheck disable=SC2046
if gcc -Wall -Werror "$ex" $(pc --cflags --libs libuserptr) -o "$out/upr_example" 2>&1 | tap_diag &&
   readelf -d "$out/upr_example" | grep -q 'NEEDED.*\[libuserptr.so.1\]' &&
   o=$(LD_LIBRARY_PATH=$lib "$out/upr_example" 2>&1) && [ "$o" = "libuserptr: pure parts ok" ]; then
	tap_ok "a program built with pkg-config's flags needs libuserptr.so.1 and runs on it"
else
	tap_fail "a program built with pkg-config's flags needs libuserptr.so.1 and runs on it (${o:-})"
fi
# shellcheck disable=SC2046
# (--static: libuserptr.a needs libdrm, Libs.private)
if gcc -Wall -Werror -static "$ex" $(pc --cflags --libs --static libuserptr) \
	-o "$out/upr_example_static" 2>&1 | tap_diag &&
   ! readelf -d "$out/upr_example_static" 2>/dev/null | grep -q NEEDED &&
   o=$("$out/upr_example_static" 2>&1) && [ "$o" = "libuserptr: pure parts ok" ]; then
	tap_ok "the same program linked with libuserptr.a, static, runs"
else
	tap_fail "the same program linked with libuserptr.a, static, runs (${o:-})"
fi

# the installed kfdtrace: its version, and feature -j without privileges
kt=$d$p/sbin/kfdtrace
o=$("$kt" --version 2>&1)
# the packages' version (debian/changelog), as libuserptr's
want=$(sed -n '1s/^[^ ]* (\([^)-]*\).*/\1/p' "$top/debian/changelog")
if [ -n "$want" ] && [ "$o" = "kfdtrace $want" ]; then
	tap_ok "installed kfdtrace --version: $o"
else
	tap_fail "installed kfdtrace --version: kfdtrace $want (got: $o)"
fi
unpriv=()
[ "$(id -u)" -ne 0 ] || unpriv=(setpriv --reuid=65534 --regid=65534 --clear-groups)
rc=0
"${unpriv[@]}" "$kt" feature -j >"$out/feature.json" 2>"$out/feature.err" || rc=$?
if [ $rc -eq 0 ] && jq -e '.features | length > 0' "$out/feature.json" >/dev/null 2>&1; then
	tap_ok "installed kfdtrace feature -j, unprivileged: exit 0, JSON"
else
	tap_diag <"$out/feature.err"
	tap_fail "installed kfdtrace feature -j, unprivileged (exit $rc)"
fi

# the man pages: what man shows, from docs/
man8=$(MANWIDTH=80 man -l "$d$p/share/man/man8/kfdtrace.8" 2>/dev/null)
man3=$(MANWIDTH=80 man -l "$d$p/share/man/man3/libuserptr.3" 2>/dev/null)
if has_line '^kfdtrace\(8\) ' <<<"$man8" && has_line '^NAME$' <<<"$man8" &&
   has_line "^ +kfdtrace +- " <<<"$man8" && has_line 'kfdtrace feature \[-a\] \[-j\]' <<<"$man8" &&
   has_line '^libuserptr\(3\) ' <<<"$man3" && has_line '^SYNOPSIS$' <<<"$man3" &&
   has_line 'upr_register\(struct upr_dev' <<<"$man3"; then
	tap_ok "man kfdtrace(8) and libuserptr(3): NAME, the synopses of docs/"
else
	tap_fail "man kfdtrace(8) and libuserptr(3): NAME, the synopses of docs/"
fi
# groff's warnings (lintian's groff-message): the manuals' tables were
# wider than a terminal, each cell a warning, until they became lists
# (scripts/man-tables.lua)
warn=$(for f in "$d$p/share/man/man8/kfdtrace.8" "$d$p/share/man/man3/libuserptr.3"; do
	MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null
done)
if [ -z "$warn" ]; then
	tap_ok "the man pages render in 80 columns without a groff warning"
else
	tap_diag_last 10 <<<"$warn"
	tap_fail "the man pages render in 80 columns without a groff warning"
fi

bad=0
for f in bpf/bpftrace/*.bt; do
	i=$d$p/share/kfdtrace/bpftrace/${f##*/}
	cmp -s "$f" "$i" && [ -x "$i" ] || { echo "$i"; bad=1; }
done | tap_diag
if [ "${PIPESTATUS[0]}" -eq 0 ] && [ $bad -eq 0 ]; then
	tap_ok "the bpftrace views, executable, in share/kfdtrace/bpftrace"
else
	tap_fail "the bpftrace views, executable, in share/kfdtrace/bpftrace"
fi

make --no-print-directory uninstall DESTDIR="$d" >"$out/uninstall.log" 2>&1
left=$(cd "$d" && find . \( -type f -o -type l \) | sort)
if [ -z "$left" ] && [ ! -e "$d$p/share/kfdtrace" ] && [ ! -e "$d$p/include/libuserptr" ]; then
	tap_ok "make uninstall DESTDIR=... removes every file and the project's directories"
else
	tap_diag <<<"$left"
	tap_fail "make uninstall DESTDIR=... removes every file and the project's directories"
fi
[ "$TAP_FAILED" -eq 0 ]
