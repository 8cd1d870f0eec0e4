# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The bpftrace views in the guest suites, and bpf/bpftrace/kfd_ioctl.bt
# against kfdtrace over one workload (guest/smoke on /dev/kfd,
# guest/kfdtrace on the emulated device). Sourced after tap.sh, never run.

# bt_run BPFTRACE-ARGS...: Debian's bpftrace with two settings that halved
# the views' start in the debug guest (80 s to 40 s, measured with
# kmemleak on): maps of 256 keys, not 4096 (bpftrace's per-CPU hash maps
# allocate every key at creation, each under the debug kernel's checkers;
# the views keep a few dozen), and no clang-14 in PATH, which bpftrace
# otherwise runs at every start only to list its include directories (the
# views include nothing; bpftrace then takes /usr/include)
bt_run() {
	local bpftrace

	bpftrace=$(command -v bpftrace) || { echo "no bpftrace" >&2; return 127; }
	BPFTRACE_MAP_KEYS_MAX=256 PATH=/nonexistent "$bpftrace" "$@"
}

# bt_ioctl_table: kfd_ioctl.bt's output on stdin as "CLASS CALLS ERRORS
# RANGES" lines, summed over processes, sorted by class
bt_ioctl_table() {
	awk -F'[][,:]+ *' '
		/^@(calls|errors|ranges)\[/ {
			sub(/^@/, "", $1)
			v[$3, $1] += $4
			seen[$3] = 1
		}
		END {
			for (c in seen)
				printf "%s %d %d %d\n", c, v[c, "calls"], v[c, "errors"], v[c, "ranges"]
		}' | LC_ALL=C sort
}

# kt_ioctl_table JSON: the same lines from a kfdtrace recording, for the
# classes that had calls
kt_ioctl_table() {
	jq -r '.ioctl | to_entries[]
		| select((.value | type) == "object" and (.value.calls? // 0) > 0)
		| "\(.key) \(.value.calls) \(.value.errors) \(.value.ranges)"' "$1" | LC_ALL=C sort
}

# bt_ioctl_same NAME JSON CMD: kfd_ioctl.bt run over CMD counts, class by
# class, the calls, errors and ranges that the kfdtrace recording JSON of
# the same CMD counted (at least one call). BT_IOCTL_SCRIPT runs another
# script instead: a trial of a broken one (docs/development.md).
bt_ioctl_same() {
	local name=$1 json=$2 cmd=$3 out got want

	out=$(bt_run "${BT_IOCTL_SCRIPT:-$top/bpf/bpftrace/kfd_ioctl.bt}" -c "$cmd" 2>&1)
	got=$(bt_ioctl_table <<<"$out")
	want=$(kt_ioctl_table "$json" 2>&1)
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		tap_ok "$name (${want//$'\n'/; })"
	else
		diff <(echo "$want") <(echo "$got") | tap_diag
		tap_diag_last 20 . <<<"$out"
		tap_fail "$name"
	fi
}
