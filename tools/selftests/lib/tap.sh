# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the project's shell test suites. Sourced, never run.
#
# Each suite prints one result line per test case at column 0, "ok N name"
# or "not ok N name" ("# SKIP reason" for a skip); programs with their own
# TAP output (kselftest_harness) print theirs in between. scripts/check
# counts those lines, so numbering need not be continuous.

TAP_N=0
TAP_FAILED=0

tap_ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N $*"; }
tap_fail() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N $*"; }
tap_skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N $1 # SKIP $2"; }
# tap_diag: stdin as diagnostics. Builtins only: in a debug guest under
# TCG every exec costs about a second, and this runs after most cases.
tap_diag() {
	local lines
	mapfile -t lines
	[ ${#lines[@]} -eq 0 ] || printf '# %s\n' "${lines[@]}"
}

# tap_diag_last N [ERE]: the last N lines of stdin (of those matching ERE,
# when given) as diagnostics; builtins only, as tap_diag
tap_diag_last() {
	local n=$1 re=${2:-} l lines kept=()
	mapfile -t lines
	if [ -z "$re" ]; then
		kept=("${lines[@]}")
	else
		for l in "${lines[@]}"; do
			[[ $l =~ $re ]] && kept+=("$l")
		done
	fi
	[ ${#kept[@]} -le "$n" ] || kept=("${kept[@]: -$n}")
	[ ${#kept[@]} -eq 0 ] || printf '# %s\n' "${kept[@]}"
}

# has_line ERE: true when a line of stdin matches ERE (grep -Eq without
# its exec)
has_line() {
	local l lines
	mapfile -t lines
	for l in "${lines[@]}"; do
		[[ $l =~ $1 ]] && return 0
	done
	return 1
}

# tap_run NAME CMD...: one case that passes when CMD exits 0; CMD's
# output is shown as diagnostics.
tap_run() {
	local name=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	[ -n "$out" ] && tap_diag <<<"$out"
	if [ $rc -eq 0 ]; then tap_ok "$name"; else tap_fail "$name (exit $rc)"; fi
	return $rc
}

# tap_expect_status NAME WANT CMD...: passes when CMD exits with WANT.
tap_expect_status() {
	local name=$1 want=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | tail -n 40 | tap_diag
	if [ "$rc" = "$want" ]; then
		tap_ok "$name"
	else
		tap_fail "$name (exit $rc, expected $want)"
	fi
}

# tap_kunit MODULE [ARGS...]: load a KUnit test module and report each of
# its cases, read back from debugfs, as one result line.
tap_kunit() {
	local mod=$1 suite d suites=()
	local -A before=()
	shift
	# the suites the module adds (globs, not ls and comm: execs are slow
	# in the guest)
	for d in /sys/kernel/debug/kunit/*; do before[$d]=1; done
	if ! modprobe "$mod" "$@"; then
		tap_fail "kunit: modprobe $mod"
		return 1
	fi
	for d in /sys/kernel/debug/kunit/*; do
		[ -n "${before[$d]:-}" ] || [ ! -e "$d" ] || suites+=("${d##*/}")
	done
	if [ ${#suites[@]} -eq 0 ]; then
		tap_fail "kunit: $mod registered no suite"
		modprobe -r "$mod"
		return 1
	fi
	for suite in "${suites[@]}"; do
		tap_ktap_cases "kunit:$suite" <"/sys/kernel/debug/kunit/$suite/results"
	done
	modprobe -r "$mod"
}

# tap_ktap_cases PREFIX: the cases of one KUnit suite's KTAP results on
# stdin (its debugfs results, or a kernel log holding them and nothing
# else indented so) as result lines PREFIX.NAME. Cases are the lines one
# level in ("    ok 3 name"); deeper levels are the parameters of a
# parameterised case, summed up by it.
tap_ktap_cases() {
	local prefix=$1 line verdict rest
	while IFS= read -r line; do
		case "$line" in
		"    ok "*|"    not ok "*)
			line=${line#    }
			verdict=${line%% [0-9]*} rest=${line#* [0-9]* }
			if [ "$verdict" = ok ]; then
				case "$rest" in
				*"# SKIP"*) tap_skip "$prefix.${rest%% #*}" "${rest#*# SKIP}" ;;
				*) tap_ok "$prefix.$rest" ;;
				esac
			else
				tap_fail "$prefix.$rest"
			fi
			;;
		esac
	done
}
