#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One function of an icount-profile.sh run, instruction by instruction:
# its disassembly (objdump -dl of the bench kernel's vmlinux, or of the
# module that holds it) with, before each instruction, how many times it
# ran in one registration and teardown (the guest of 11 repetitions less
# the guest of 1, over 10). A count that equals the runs of the blob's
# iovecs is a per-run cost, one that equals the page-table pages walked a
# per-table cost: this is how the loops' spills and reloads were found
# (docs/results/analysis.md, "Fewer, wider walks").
#
#   tools/bench/icount-annotate.sh OUTDIR FUNCTION
#
# OUTDIR is icount-profile.sh's, of the kernel as built now (the
# addresses are matched by offset into the function, each guest's own
# kallsyms giving its start: the two guests load modules at different
# addresses). Instructions that never ran are left out; the last line is
# the function's total, which is icount-profile.sh's "per reg".
# Example (2026-11-28, batch, 2 GiB; 2959 runs, 979 page-table pages):
#
#      979 ffffffff8136870c:	call   ffffffff812fa0c0 <__pte_offset_map>
#     2958 ffffffff813687ae:	call   ffffffff81367bf0 <hmm_vma_walk_ptes>
#   total 180666
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: ${0##*/} OUTDIR FUNCTION" >&2; exit 2; }
out=$1 fn=$2
kb=$top/build/kernel-bench
for f in "$out/r1/kallsyms" "$out/r11/kallsyms" "$out/r1/counts" "$out/r11/counts"; do
	[ -s "$f" ] || { echo "${0##*/}: $f: missing (run icount-profile.sh first)" >&2; exit 1; }
done

# "ADDRESS SIZE" of FUNCTION in an object, or nothing (awk reads all of
# nm's output: exiting early would kill nm with SIGPIPE under pipefail)
sym() {
	nm -S "$1" 2>/dev/null |
		awk -v f="$fn" '!n && ($3 == "t" || $3 == "T") && $4 == f { print $1, $2; n = 1 }'
}

# the object that defines FUNCTION: vmlinux, else a module of the bench kernel
obj=$kb/vmlinux
at=$(sym "$obj")
if [ -z "$at" ]; then
	while IFS= read -r -d '' obj; do
		at=$(sym "$obj")
		[ -z "$at" ] || break
	done < <(find "$kb/modroot" -name '*.ko' -print0)
fi
[ -n "$at" ] || { echo "${0##*/}: $fn: in neither vmlinux nor a module of $kb" >&2; exit 1; }
read -r base size <<<"$at"

# counts of another build match other instructions: say so
if [ "$obj" -nt "$out/r11/counts" ]; then
	echo "${0##*/}: warning: $obj was built after $out was counted" >&2
fi
objdump -d --no-show-raw-insn -l --start-address="0x$base" \
	--stop-address="$(printf '0x%x' $((0x$base + 0x$size)))" "$obj" |
	perl -e '
	my ($fn, $base, $dir) = @ARGV[0 .. 2];
	my (%start, %c);
	for my $r ("r1", "r11") {
		open(my $k, "<", "$dir/$r/kallsyms") or die "$dir/$r/kallsyms: $!";
		while (<$k>) {
			my ($a, $n) = split;
			if ($n eq $fn) { $start{$r} = hex($a); last; }
		}
		die "$fn: not in $dir/$r/kallsyms\n" unless defined $start{$r};
		open(my $f, "<", "$dir/$r/counts") or die "$dir/$r/counts: $!";
		while (<$f>) {
			my ($a, $n) = split;
			$c{$r}{hex($a) - $start{$r}} = $n;
		}
	}
	my $total = 0;
	while (<STDIN>) {
		if (/^\s*([0-9a-f]+):/) {
			my $off = hex($1) - hex($base);
			my $n = (($c{r11}{$off} // 0) - ($c{r1}{$off} // 0)) / 10;
			$total += $n;
			printf "%8.0f %s", $n, $_ if $n >= 0.5;
		} elsif (/^\S.*\(\):$/) {
			print "         $_";	# the inlined function the lines are from
		}
	}
	printf "total %.0f\n", $total;
	' "$fn" "$base" "$out"
