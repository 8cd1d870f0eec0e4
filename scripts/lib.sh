# SPDX-License-Identifier: GPL-2.0
# Common settings for the project's scripts. Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
KSRC=$BUILD/linux			# the kernel git tree (base + series)
# kernel/BASE (KBASE: for the scripts' tests): the Debian package whose
# tarball is the base, the suite that serves it, and the pins (tarball
# sha256, base commit) of the package version on its "pinned" line
_kbase=${KBASE:-$TOP/kernel/BASE}
KPKG=$(sed -n 's/^package \([^ ]*\) .*/\1/p' "$_kbase")		# linux-source-7.3
KPKG_VER=$(sed -n 's/^package [^ ]* //p' "$_kbase")		# 7.3.4-1~bpo13+1
KSUITE=$(sed -n 's/^suite //p' "$_kbase")
# what the series is based on: the "version" line (the scripts' tests), else
# the package's upstream version
KVER_PINNED=$(sed -n 's/^version //p' "$_kbase")
[ -n "$KVER_PINNED" ] || { KVER_PINNED=${KPKG_VER%-*}; KVER_PINNED=${KVER_PINNED#*:}; }
# kbase_pin FIELD: a pin of kernel/BASE ("tarball-sha256", "commit"), empty
# when the pins are of another package version than the "package" line's
kbase_pin() {
	local pinned
	pinned=$(sed -n 's/^pinned //p' "$_kbase")
	[ -z "$pinned" ] || [ "$pinned" = "$KPKG_VER" ] || return 0
	sed -n "s/^$1 //p" "$_kbase"
}
# The base commit, kept once per machine as ccache keeps objects: a fresh
# clone checks it out instead of unpacking and committing the tarball again.
# Empty: no cache (also without HOME).
_cache_home=${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}
KBASE_CACHE=${KBASE_CACHE-${_cache_home:+$_cache_home/kfd-batch-userptr/linux-base.git}}
# Booted guests saved by scripts/vm-run, per kernel, memory and command
# line: later runs start from them. Empty: every run boots.
VM_SNAP_CACHE=${VM_SNAP_CACHE-${_cache_home:+$_cache_home/kfd-batch-userptr/vm-snap}}
# Debian's kernel source packages, fetched once per machine by
# scripts/kernel-source: their tarballs, one per package version
KSRC_CACHE=${KSRC_CACHE-${_cache_home:+$_cache_home/kfd-batch-userptr/linux-source}}
# the base's tarball (KTARBALL: for the scripts' tests)
KTARBALL=${KTARBALL:-${KSRC_CACHE:-$BUILD/linux-source}/${KPKG}_$KPKG_VER.tar.xz}
PATCHES=${KPATCHES:-$TOP/kernel/patches}	# KPATCHES: for the scripts' tests
STAMP=$KSRC/.git/kfdbatch-applied	# "<series fingerprint> <HEAD after am>"
JOBS=${JOBS:-$(($(nproc) + 1))}

# Same build inputs give the same objects, wherever the clone lives: this is
# what lets ccache hit across clones (CI builds in a fresh clone each time).
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=kfdbatch KBUILD_BUILD_HOST=build
# kbuild's -fmacro-prefix-map names the tree's absolute path but maps it to
# nothing, so it cannot change an object: keep it out of ccache's hash.
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=true CCACHE_IGNOREOPTIONS='-fmacro-prefix-map=*'
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-25G}
# A hit hashes every header the object was made with; the inode cache
# keeps each file's hash for all the compiles after the first, where 4.7
# does not by default (a fresh clone's compile step: 35-49 s without, 31 s
# with it).
export CCACHE_INODECACHE=${CCACHE_INODECACHE:-true}

# script_help: the running script's header comment, from its third line
# to `set -`, without the comment marks (its -h and --help)
script_help() { sed -n '3,/^set -/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }

# no_args "$@": for a script that takes no argument: -h and --help print
# its header and exit 0, anything else exits 2, before the script does
# any work
no_args() {
	case "${1:-}" in
	"") ;;
	-h|--help) script_help; exit 0 ;;
	*) echo "${0##*/}: takes no argument, not '$1' (see --help)" >&2; exit 2 ;;
	esac
}

# kmake OBJDIR MAKE-ARGS...: make in the kernel tree for one object
# directory, always with the same compiler and version settings (kbuild
# rebuilds whatever was built with a different command line). LOCALVERSION
# is set, empty: no "+" for a tree that is not at a release tag.
kmake() {
	local o=$1
	shift
	make -C "$KSRC" O="$o" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= "$@"
}

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# config_unmet CONFIG FRAGMENT...: Kconfig silently drops what it cannot
# satisfy; name each line of the fragments that CONFIG does not have as
# written (a "# CONFIG_X is not set" line: X unset), and fail if any
config_unmet() {
	local config=$1 f line sym want got bad=0
	shift
	for f in "$@"; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*) want=$line; sym=${line%%=*} ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want="" ;;
			*) continue ;;
			esac
			got=$(grep -E "^$sym=" "$config" || true)
			if [ "$got" != "$want" ]; then
				echo "  $(basename "$f"): wanted '${want:-$sym unset}', Kconfig gave '${got:-unset}'" >&2
				bad=1
			fi
		done <"$f"
	done
	return $bad
}

# kobj FLAVOUR: the kernel object directory of a flavour (test, bench or
# kcsan)
kobj() {
	case "$1" in
	test|bench|kcsan) echo "$BUILD/kernel-$1" ;;
	*) die "unknown kernel flavour '$1' (test, bench or kcsan)" ;;
	esac
}

# series_patches DIR: the patch files DIR/series names, in order
series_patches() {
	[ -f "$1/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$1/series" | grep -v '^$' || true
}

# series_fingerprint DIR: changes whenever the series or a patch in it does
series_fingerprint() {
	{ cat "$1/series" 2>/dev/null || true
	  series_patches "$1" | while read -r p; do cat "$1/$p"; done; } |
		sha256sum | cut -d' ' -f1
}

# apt_own DIR LINE: apt-get and apt-cache options (in APT_OWN) that read
# only the sources list LINE, with package lists and caches in DIR: a
# suite that is not the machine's, the machine's apt sources untouched
apt_own() {
	mkdir -p "$1/lists/partial" "$1/cache/archives/partial"
	printf '%s\n' "$2" >"$1/sources.list"
	APT_OWN=(-o Dir::Etc::sourcelist="$1/sources.list" -o Dir::Etc::sourceparts=-
		 -o Dir::State::Lists="$1/lists" -o Dir::Cache="$1/cache"
		 -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
}
