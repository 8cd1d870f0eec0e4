#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The helper's KUnit suite as a DRM maintainer runs the DRM tests, from
# the kernel tree with the series (build/linux): kunit.py on UML with
# drivers/gpu/drm/tests/.kunitconfig, which the series extends, and the
# two UML options DRM needs for HAS_IOMEM (Documentation/gpu/
# drm-internals.rst), filtered to drm_userptr_batch. Its objects are in
# build/kunit-uml (about 200-260 s cold on 2 cores, seconds warm). One
# result line per case, a parameterised case failing when one of its
# parameters does; the case that needs x86-64's whole 128 TiB of user
# address space skips on UML, whose 4-level page tables (7.x) give it the
# host's top less its stub, just below that, and one line checks that
# exactly that case does (guest/userptr runs it on x86-64).
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/scripts/lib.sh"
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

out=$BUILD/kunit-uml
mkdir -p "$BUILD/check"
rm -f "$out/test.log"
rc=0
(cd "$KSRC" && python3 tools/testing/kunit/kunit.py run --build_dir="$out" \
	--kunitconfig=drivers/gpu/drm/tests \
	--kconfig_add CONFIG_VIRTIO_UML=y --kconfig_add CONFIG_UML_PCI_OVER_VIRTIO=y \
	--make_options "CC=ccache gcc" --jobs "$JOBS" 'drm_userptr_batch*') \
	>"$BUILD/check/kunit-uml.txt" 2>&1 || rc=$?

# the cases, from the kernel's log of the run (KTAP), as guest/userptr
# reads them from debugfs; but the cases that skip, which are checked to be
# exactly those that need more user address space than UML has (make
# check adds no skipped test: guest/userptr runs them on x86-64)
want_skips="drm_userptr_batch_test_huge_sizes"
n=$TAP_N
[ ! -f "$out/test.log" ] ||
	tap_ktap_cases "kunit-uml:drm_userptr_batch" < <(grep -v '^    ok [0-9]* [^ ]* # SKIP ' "$out/test.log")
if [ $TAP_N -eq $n ]; then
	tap_diag_last 30 <"$BUILD/check/kunit-uml.txt"
	tap_fail "kunit.py run on UML: no case of the drm_userptr_batch suite ran (exit $rc)"
	exit 1
fi
skips=$(sed -n -e 's/^    ok [0-9]* \([^ ]*\) # SKIP .*/\1/p' \
	-e 's/^    # drm_userptr_batch_test_sort: .* skip:\([1-9][0-9]*\) .*/sort:\1/p' "$out/test.log" |
	LC_ALL=C sort | xargs)
if [ "$skips" = "$want_skips" ]; then
	tap_ok "kunit-uml: huge_sizes skips for UML's user address space below 128 TiB, and nothing else"
else
	grep ' # SKIP ' "$out/test.log" | tap_diag
	tap_fail "kunit-uml: the skips are those UML's address space implies (skipped: ${skips:-none}; want: $want_skips)"
fi
# kunit.py's own verdict, over the whole run
if [ $rc -eq 0 ]; then
	tap_ok "kunit.py run on UML: $(grep -o 'Ran [0-9]* tests.*' "$BUILD/check/kunit-uml.txt" | tail -n 1)"
else
	tap_diag_last 30 <"$BUILD/check/kunit-uml.txt"
	tap_fail "kunit.py run on UML (exit $rc)"
fi
[ "$TAP_FAILED" -eq 0 ]
