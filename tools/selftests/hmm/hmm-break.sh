#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Show that each of hmm-tests' read_* cases fails against a read of
# present PTEs that mishandles its kind of page-table entry, and passes
# against the series' reads: the proof of the series' mm/hmm patches
# ("read a present, normal PTE without the per-page handler", and
# hmm_range_read_many(), whose pfns hmm-tests compares with
# hmm_range_fault()'s and whose write check the batch's copy-on-write
# selftest proves). Not part of make check: it builds a kernel of its own.
#
#   tools/selftests/hmm/hmm-break.sh [OUTDIR]
#
# applies break-read-present.patch to build/linux, builds the test kernel
# (mm/hmm.o and the link: a few minutes once the test kernel is built;
# the test kernel, for its userfaultfd), keeps its bzImage in OUTDIR
# (default build/hmm-break) and its modules, reverts the patch and builds
# the test kernel again, then boots the kept image with the kept modules
# and runs guest-hmm-break.sh: one TAP line a kind. Needs
# make tests' build/bin/hmm-tests and userptr_emu_tests. The guest reserves 512 MiB for
# test_hmm's device-coherent memory, as guest/smoke; a broken read may
# warn (test_hmm's dmirror_do_fault() does on a page it cannot write), so
# a splat does not fail the run.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$top/build/hmm-break}
patch=$top/tools/selftests/hmm/break-read-present.patch
ksrc=$top/build/linux
mkdir -p "$out"

for t in hmm-tests userptr_emu_tests; do
	[ -x "$top/build/bin/$t" ] || { echo "hmm-break: make tests first" >&2; exit 1; }
done
git -C "$ksrc" diff --quiet -- mm/hmm.c ||
	{ echo "hmm-break: build/linux has changes to mm/hmm.c" >&2; exit 1; }
revert() { git -C "$ksrc" checkout -q -- mm/hmm.c; }
trap revert EXIT
patch -s -p1 -d "$ksrc" <"$patch"
"$top/scripts/kernel-build" --flavour test
cp "$top/build/kernel-test/arch/x86/boot/bzImage" "$out/bzImage"
# its modules too: their BTF is split from this vmlinux's, which the
# patch changed (a module whose BTF does not match fails to load)
rm -rf "$out/modroot"
cp -a "$top/build/kernel-test/modroot" "$out/modroot"
revert
trap - EXIT
"$top/scripts/kernel-build" --flavour test

"$top/scripts/vm-run" --flavour test --kernel "$out/bzImage" \
	--modroot "$out/modroot" --mem 1536 --allow-splat \
	--reserve 512M@0x40000000 --timeout 1800 --out "$out/vm" -- \
	tools/selftests/hmm/guest-hmm-break.sh | tee "$out/tap.txt"
