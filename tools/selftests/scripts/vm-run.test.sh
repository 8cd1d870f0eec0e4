#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/vm-run: exit status, argument passing, working directory, module
# loading, and that a kernel warning, a leak, a crash or a hang fails the
# run even when the command succeeds; the guest's clock and timers keep
# real time, or count instructions with --icount; a tree below /tmp
# works; --mem sizes the guest; q35 boots too; a TCG plugin loads and
# counts; a booted guest is saved, restored (twice), and booted past when
# it does not start. Four boots (q35, --icount with the plugin and two in
# a snapshot cache of their own), the rest from
# saved guests; all but the clean run and the leak test run with kmemleak
# off.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

# 512 MiB: kmemleak's scans before poweroff grow with the guest's memory
# (measured: 10 s each at 512 MiB, 17 s at the default 2 GiB)
vm() { "$vm_run" --out "$vm_out" --mem 512 "$@"; }
vm_run=$top/scripts/vm-run vm_out=$top/build/check/vm-run.test
out=

# run_vm WANT CMD...: run vm-run, keep its output in $out, check the status
run_vm() {
	local want=$1 rc=0
	shift
	out=$(vm "$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] && return 0
	printf '%s\n' "$out" | tail -n 30 | tap_diag
	echo "vm-run exited $rc, expected $want" | tap_diag
	return 1
}

# one clean boot: arguments, directory, user, exit status, boot time. The
# tree (linked), the results and the working directory are all below
# /tmp, on which the guest mounts a tmpfs of its own: a clone made by
# mktemp -d must still run its tests.
t=$(mktemp -d)
mkdir "$t/tree" "$t/cwd"
for f in "$top"/*; do ln -s "$f" "$t/tree/"; done
echo seen >"$t/cwd/marker"
dir=$t/cwd vm_run=$t/tree/scripts/vm-run vm_out=$t/out
start=$(date +%s)
# (not in a subshell: run_vm leaves the output in $out)
cd "$dir"
# the clock: a 10 s timer (read -t on a FIFO no one writes) by the
# kernel's clock, and the same span by the RTC, which QEMU keeps on the
# host's clock; both count whole seconds. A clock or timer off by a fifth
# shows here (the broken set-ups tried ran timers five times slow).
# Builtins only between the two clocks' reads: the exec of sleep(1) once
# took 6 s on a busy host, which a timer's check must not count.
clock='rtc=/sys/class/rtc/rtc0/since_epoch; mkfifo /tmp/clock; exec 3<>/tmp/clock; read -r r0 <$rtc; t0=$EPOCHSECONDS; read -r -t 10 -u 3; t1=$EPOCHSECONDS; read -r r1 <$rtc; echo "$((t1 - t0)) $((r1 - r0))"'
# the guest's memory in KiB (builtins only: an exec costs a second or two)
memtotal='while read -r k v _; do [ "$k" = MemTotal: ] && echo "$v"; done </proc/meminfo'
if run_vm 3 -- bash -c 'printf "<%s>" "$@"; echo; pwd; id -u; '"$clock"'; cat marker; touch /tmp/w && echo >"$1"; '"$memtotal"'; exit 3' \
	_ "$vm_out/written" 'a b' '$c' "d'e"; then
	tap_ok "the command's exit status comes back (3), no splat on a clean boot"
	[ "$(printf '%s\n' "$out" | sed -n 1p)" = "<$vm_out/written><a b><\$c><d'e>" ] &&
		tap_ok "arguments reach the command unchanged" ||
		{ printf '%s\n' "$out" | tap_diag; tap_fail "arguments reach the command unchanged"; }
	[ "$(printf '%s\n' "$out" | sed -n 2p)" = "$dir" ] && [ "$(printf '%s\n' "$out" | sed -n 3p)" = 0 ] &&
		tap_ok "the command runs as root in the caller's directory" ||
		tap_fail "the command runs as root in the caller's directory"
	read -r kern rtc < <(printf '%s\n' "$out" | sed -n 4p)
	echo "a 10 s timer took $kern s by the kernel's clock, $rtc s by the RTC" | tap_diag
	[ "${kern:-0}" -ge 10 ] && [ "$kern" -le 12 ] && [ $((kern - rtc)) -le 2 ] &&
		[ $((rtc - kern)) -le 2 ] &&
		tap_ok "the guest's clock and timers keep real time" ||
		tap_fail "the guest's clock and timers keep real time"
	[ "$(printf '%s\n' "$out" | sed -n 5p)" = seen ] && [ -f "$vm_out/written" ] &&
		tap_ok "a tree, working and results directory below /tmp work, /tmp is writable" ||
		tap_fail "a tree, working and results directory below /tmp work, /tmp is writable"
	# KASAN's shadow (an eighth) and the kernel come off the 512 MiB
	mem=$(printf '%s\n' "$out" | sed -n 6p)
	echo "MemTotal: ${mem:-?} KiB" | tap_diag
	[ "${mem:-0}" -gt $((256 << 10)) ] && [ "$mem" -le $((512 << 10)) ] &&
		tap_ok "--mem 512 gives the guest 512 MiB" ||
		tap_fail "--mem 512 gives the guest 512 MiB"
else
	tap_fail "the command's exit status comes back (3), no splat on a clean boot"
fi
cd "$top"
echo "start ($(cat "$vm_out/boot" 2>/dev/null)), command and shutdown took $(($(date +%s) - start)) s" |
	tap_diag
rm -rf "$t"
vm_run=$top/scripts/vm-run vm_out=$top/build/check/vm-run.test

# --icount: the guest's clock counts instructions. Idle time is skipped,
# so a 600 s timer passes in less than 600 s of the host's (the whole run,
# boot included: 22-44 s here), and the same loop of builtins takes the
# same guest time run after run, within 1%, however busy the host is.
# With --qemu-plugin, as tools/bench/icount-profile.sh runs it: QEMU loads
# tools/bench/icount_plugin.c, which counts each kernel instruction's
# runs: the syscall entry ran, as often as the command's syscalls at
# least, and nothing below the kernel's text was counted.
icount='mkfifo /tmp/clock; exec 3<>/tmp/clock; t0=$EPOCHSECONDS; read -r -t 600 -u 3; echo "$((EPOCHSECONDS - t0))"; for r in 1 2 3; do s=${EPOCHREALTIME/./}; for ((i = 0; i < 20000; i++)); do :; done; echo $((${EPOCHREALTIME/./} - s)); done; echo 0 >/proc/sys/kernel/kptr_restrict; echo "entry $(grep -m 1 " [tT] do_syscall_64$" /proc/kallsyms | cut -d " " -f 1)"'
make -s -C "$top" build/bin/icount_plugin.so >/dev/null
counts=$vm_out/plugin.counts
rm -f "$counts"
start=$(date +%s)
if run_vm 0 --icount --no-kmemleak --qemu-plugin "$top/build/bin/icount_plugin.so,out=$counts" \
	-- bash -c "$icount"; then
	host=$(($(date +%s) - start))
	timer=$(printf '%s\n' "$out" | sed -n 1p)
	echo "a 600 s guest timer: $timer s by the guest's clock, the run $host s of the host's" | tap_diag
	# whole seconds read on either side: 600 or 601
	[ "${timer:-0}" -ge 600 ] && [ "$timer" -le 601 ] && [ "$host" -lt 600 ] &&
		tap_ok "--icount: idle time is skipped" ||
		tap_fail "--icount: idle time is skipped"
	loops=$(printf '%s\n' "$out" | sed -n 2,4p | sort -n | tr '\n' ' ')
	echo "the same loop, three times: $loops(guest us)" | tap_diag
	read -r lo _ hi <<<"$loops"
	[ "${lo:-0}" -gt 0 ] && [ $((hi - lo)) -le $((lo / 100)) ] &&
		tap_ok "--icount: the same loop takes the same guest time, within 1%" ||
		tap_fail "--icount: the same loop takes the same guest time, within 1%"
	entry=$(printf '%s\n' "$out" | sed -n 's/^entry \([0-9a-f]\{16\}\)$/\1/p' | head -n 1)
	runs=$(awk -v a="$entry" '$1 == a { print $2 }' "$counts" 2>/dev/null)
	low=$(awk '$1 < "ffffffff80000000"' "$counts" 2>/dev/null | wc -l)
	echo "do_syscall_64 at ${entry:-?}: ${runs:-no} runs counted; $low lines below the kernel's text" | tap_diag
	[ -n "$entry" ] && [ "${runs:-0}" -ge 10 ] && [ "$low" -eq 0 ] &&
		tap_ok "--qemu-plugin: the icount plugin counts the kernel's instructions" ||
		tap_fail "--qemu-plugin: the icount plugin counts the kernel's instructions"
else
	tap_fail "--icount: a guest runs"
fi

out=$("$vm_run" --qemu-plugin /nonexistent.so -- true 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && [[ $out == *"--qemu-plugin: no /nonexistent.so"* ]] &&
	tap_ok "--qemu-plugin of a missing file is refused" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "--qemu-plugin of a missing file is refused"; }

# --smp 2 --tcg-threads single: two vCPUs in turn on one host thread, on
# which the kernel's live code patching is safe (scripts/vm-run, "More than
# one vCPU"): 20 s of tracepoints switched on and off while both CPUs
# schedule, no oops. (On one thread per vCPU the same run dies within
# seconds: docs/development.md.)
if run_vm 0 --smp 2 --tcg-threads single --no-kmemleak -- \
	"$top/tools/selftests/scripts/smp-text-poke.sh" 20; then
	printf '%s\n' "$out" | grep -E '^(CPUs|flips):' | tap_diag
	has_line '^CPUs: 2$' <<<"$out" && has_line '^flips: [1-9]' <<<"$out" &&
		tap_ok "--smp 2 --tcg-threads single: 2 CPUs, live code patching on both lives" ||
		tap_fail "--smp 2 --tcg-threads single: 2 CPUs, live code patching on both lives"
else
	tap_fail "--smp 2 --tcg-threads single: 2 CPUs, live code patching on both lives"
fi
out=$("$vm_run" --tcg-threads many -- true 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && [[ $out == *"--tcg-threads takes multi or single"* ]] &&
	tap_ok "--tcg-threads many is refused" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "--tcg-threads many is refused"; }

# --numa 2: two nodes of the guest's memory (numa=fake=2), for the movers'
# NUMA migration; refused on a kernel without CONFIG_NUMA_EMU
if run_vm 0 --numa 2 --no-kmemleak -- sh -c 'for n in /sys/devices/system/node/node[0-9]*; do echo $n; done'; then
	has_line 'node0$' <<<"$out" && has_line 'node1$' <<<"$out" && ! has_line 'node2$' <<<"$out" &&
		tap_ok "--numa 2: the guest has nodes 0 and 1" ||
		{ printf '%s\n' "$out" | tap_diag; tap_fail "--numa 2: the guest has nodes 0 and 1"; }
else
	tap_fail "--numa 2: the guest has nodes 0 and 1"
fi
out=$("$vm_run" --numa 2 --flavour bench -- true 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && [[ $out == *"--numa needs CONFIG_NUMA_EMU"* ]] &&
	tap_ok "--numa on the bench kernel is refused" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "--numa on the bench kernel is refused"; }
# --kernel and --modroot go together (guest/kernel-deb boots with both)
out=$("$vm_run" --kernel "$top/build/kernel-test/arch/x86/boot/bzImage" -- true 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && [[ $out == *"--kernel needs --modroot DIR"* ]] &&
	tap_ok "--kernel without --modroot is refused" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "--kernel without --modroot is refused"; }
out=$("$vm_run" --kernel "$top/build/kernel-test/arch/x86/boot/bzImage" --modroot /nonexistent -- true 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && [[ $out == *"--modroot: no /nonexistent"* ]] &&
	tap_ok "--modroot of no directory is refused" ||
	{ printf '%s\n' "$out" | tap_diag; tap_fail "--modroot of no directory is refused"; }

# Saved guests, in a cache of their own: the first run boots and saves,
# the next starts from it with its own clock and random numbers, and a
# saved guest QEMU does not take is booted past and replaced.
snaps=$(mktemp -d)
now='echo "$EPOCHSECONDS $(</proc/sys/kernel/random/uuid)"'
# boot_is PATTERN: this run's start, as $vm_out/boot says, matches
boot_is() {
	local b
	b=$(cat "$vm_out/boot" 2>/dev/null)
	[[ "$b" =~ $1 ]] && return 0
	echo "the run started as \"$b\", not /$1/" | tap_diag
	return 1
}
# (--accel tcg: where KVM works, nothing is saved)
snapvm() { VM_SNAP_CACHE=$snaps run_vm "$@"; }
snapvm 0 --accel tcg --no-kmemleak -- bash -c "$now" && boot_is "^booted, saved $snaps/" &&
	snap=$(echo "$snaps"/*.snap) && [ -f "$snap" ] &&
	tap_ok "a first run boots and saves the booted guest" ||
	tap_fail "a first run boots and saves the booted guest"
start=$(date +%s)
snapvm 0 --accel tcg --no-kmemleak -- bash -c "$now" && boot_is "^restored $snaps/" &&
	tap_ok "the next run starts from it" ||
	tap_fail "the next run starts from it"
read -r t1 u1 <<<"$out"
echo "a run from the saved guest took $(($(date +%s) - start)) s" | tap_diag
# the guest's clock against the host's when the command ran, to the
# second the RTC gives: guest-init sets the clock from the RTC only when
# it is more than a second off, and to the RTC's whole second, so the guest
# may read up to a second behind the host (seen: 1795740109 against a
# start at 1795740110)
[ -n "${t1:-}" ] && [ "$t1" -ge $((start - 1)) ] && [ "$t1" -le "$(date +%s)" ] &&
	tap_ok "a restored guest's clock is the host's" ||
	{ echo "guest: ${t1:-?}, host: $start to $(date +%s)" | tap_diag
	  tap_fail "a restored guest's clock is the host's"; }
# two runs from one saved guest: the same random state but for the reseed
u2=
snapvm 0 --accel tcg --no-kmemleak -- bash -c "$now" && boot_is "^restored $snaps/" &&
	grep -q "vm-run: random generator reseeded" "$vm_out/dmesg" &&
	read -r t2 u2 <<<"$out" && [ -n "${u1:-}" ] && [ -n "$u2" ] && [ "$u1" != "$u2" ] &&
	tap_ok "a restored guest's random numbers are its own" ||
	{ echo "restored: ${u1:-?}, restored again: ${u2:-?}" | tap_diag
	  tap_fail "a restored guest's random numbers are its own"; }
[ -f "${snap:-}" ] && head -c 1000000 "$snap" >"$snap.cut" && mv "$snap.cut" "$snap"
snapvm 0 --accel tcg --no-kmemleak -- true && boot_is "^booted, saved $snaps/" &&
	printf '%s' "$out" | grep -q "did not start; booting" &&
	[ "$(stat -c %s "$snap")" -gt 1000000 ] &&
	tap_ok "a saved guest that does not start is booted past and saved anew" ||
	tap_fail "a saved guest that does not start is booted past and saved anew"
rm -rf "$snaps"

# The runs below test vm-run, not the kernel's memory: kmemleak off
# spares each the scans at the end (10 s each at 512 MiB).
# The clean boot above and the leak test run with it.
run_vm 0 --no-kmemleak --machine q35 -- test -c /dev/hvc0 &&
	tap_ok "the q35 machine (PCI, full ACPI) boots and runs the command" ||
	tap_fail "the q35 machine (PCI, full ACPI) boots and runs the command"
grep -q "kmemleak: Kernel memory leak detector disabled" "$vm_out/dmesg" &&
	grep -q "vm-run: kmemleak is off: no leak scan" "$vm_out/dmesg" &&
	! grep -q "vm-run: kmemleak second scan" "$vm_out/dmesg" &&
	tap_ok "--no-kmemleak boots with kmemleak off and skips the scans" ||
	tap_fail "--no-kmemleak boots with kmemleak off and skips the scans"

run_vm 126 --no-kmemleak --load splat_test -- true && printf '%s' "$out" | grep -q "WARNING:" &&
	tap_ok "a WARN_ON in the guest fails the run and is printed" ||
	tap_fail "a WARN_ON in the guest fails the run and is printed"

# a WARN() whose message the run names is let through, and said so; any
# other still fails it
run_vm 0 --no-kmemleak --known-warning "a warning the run knows" \
	-- modprobe splat_test kind=known &&
	printf '%s' "$out" | grep -q "1 known warning(s) let through: a warning the run knows" &&
	tap_ok "--known-warning: that WARN() passes the run, counted" ||
	tap_fail "--known-warning: that WARN() passes the run, counted"
run_vm 126 --no-kmemleak --known-warning "some other warning" \
	-- modprobe splat_test kind=known && printf '%s' "$out" | grep -q "WARNING:" &&
	tap_ok "--known-warning: a WARN() with another message still fails the run" ||
	tap_fail "--known-warning: a WARN() with another message still fails the run"

# the leak is lost in the command; only the scan before poweroff finds it
run_vm 126 -- modprobe splat_test kind=leak &&
	printf '%s' "$out" | grep -q "new suspected memory leak" &&
	tap_ok "a kmemleak report fails the run and is printed" ||
	tap_fail "a kmemleak report fails the run and is printed"

run_vm 125 --no-kmemleak -- sh -c 'echo c >/proc/sysrq-trigger' && printf '%s' "$out" | grep -q "Kernel panic" &&
	tap_ok "a guest crash fails the run and shows the console" ||
	tap_fail "a guest crash fails the run and shows the console"

# whatever the guest does, the limit holds: the run ends within its 10 s,
# QEMU's 5 s to die after the signal and vm-run's own end
start=$(date +%s)
run_vm 124 --no-kmemleak --timeout 10 -- sleep 600 && [ $(($(date +%s) - start)) -le 25 ] &&
	tap_ok "a guest past --timeout is stopped (124)" ||
	tap_fail "a guest past --timeout is stopped (124)"

# the guest's /dev is its own: a results directory there is refused
o=$("$top/scripts/vm-run" --out /dev/shm/vm-run.test -- true 2>&1) && rc=0 || rc=$?
[ $rc -eq 1 ] && printf '%s' "$o" | grep -q "/dev/shm/vm-run.test is below /dev" &&
	tap_ok "a results directory under /dev is refused, naming it" ||
	{ printf '%s\n' "$o" | tap_diag; tap_fail "a results directory under /dev is refused, naming it"; }

# --reserve takes SIZE@ADDR; anything else is refused before a boot
# (guest/smoke boots with a good one: its device-coherent tests need it)
o=$("$top/scripts/vm-run" --reserve 512M -- true 2>&1) && rc=0 || rc=$?
[ $rc -eq 1 ] && printf '%s' "$o" | grep -q -- "--reserve takes SIZE@ADDR" &&
	tap_ok "a --reserve without @ADDR is refused, saying the form" ||
	{ printf '%s\n' "$o" | tap_diag; tap_fail "a --reserve without @ADDR is refused, saying the form"; }

[ $TAP_FAILED -eq 0 ]
