#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/deps with stand-ins for apt-get and dpkg-query (first on PATH):
# nothing to install runs no apt-get; two set-ups at once (make check
# started while make demo installs) take turns, the second waiting for the
# first and then installing only what is still missing, instead of failing
# on dpkg's lock; apt-get install is told to wait for dpkg's locks itself.
# Host only, a few seconds.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/tools/selftests/lib/tap.sh"
echo "TAP version 13"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fake=$tmp/bin db=$tmp/installed log=$tmp/apt.log
mkdir -p "$fake" "$db"
# dpkg-query -W -f=FORMAT PKG: installed when the stand-in installed it
cat >"$fake/dpkg-query" <<EOF
#!/bin/bash
p=\${!#}
[ -e "$db/\$p" ] && printf installed || printf not-installed
EOF
# apt-get install PKG...: takes a second, logs its start, end and options
cat >"$fake/apt-get" <<EOF
#!/bin/bash
case " \$* " in
*" update "*) exit 0 ;;
esac
echo "start \$\$ \$*" >>"$log"
sleep 1
for a in "\$@"; do case "\$a" in -*|install|DPkg::*) ;; *) : >"$db/\$a" ;; esac; done
echo "end \$\$" >>"$log"
EOF
chmod +x "$fake/dpkg-query" "$fake/apt-get"
deps() { PATH=$fake:$PATH TMPDIR=$tmp "$top/scripts/deps" "$@"; }

for p in build-essential pkg-config libdrm-dev; do : >"$db/$p"; done
out=$(deps user 2>&1) && rc=0 || rc=$?
[ $rc -eq 0 ] && [ ! -e "$log" ] && tap_ok "nothing missing: no apt-get" ||
	{ tap_diag <<<"$out"; tap_fail "nothing missing: no apt-get"; }

rm -f "$db"/*
deps user >"$tmp/one" 2>&1 &
one=$!
sleep 0.3
deps user >"$tmp/two" 2>&1 &
two=$!
wait $one && rc1=0 || rc1=$?
wait $two && rc2=0 || rc2=$?
installs=$(grep -c '^start' "$log" 2>/dev/null || true)
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ "$installs" = 1 ] &&
	grep -q "another set-up is installing packages: waiting" "$tmp/two" &&
	tap_ok "two at once: the second waits for the first and installs nothing more" ||
	{ cat "$tmp/one" "$tmp/two" "$log" 2>/dev/null | tap_diag
	  tap_fail "two at once: the second waits for the first and installs nothing more"; }

# the second asks for one more package: installed after the first ended
rm -f "$db"/* "$log"
deps user >"$tmp/one" 2>&1 &
one=$!
sleep 0.3
deps user man >"$tmp/two" 2>&1 &
two=$!
wait $one && rc1=0 || rc1=$?
wait $two && rc2=0 || rc2=$?
order=$(awk '{print $1}' "$log" | xargs)
second=$(sed -n '3p' "$log")
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ "$order" = "start end start end" ] &&
	[[ $second == *" pandoc"* ]] && [[ $second != *" pkg-config"* ]] &&
	tap_ok "two at once: the second installs only what the first did not, after it" ||
	{ cat "$tmp/two" "$log" | tap_diag
	  tap_fail "two at once: the second installs only what the first did not, after it"; }

grep -q 'DPkg::Lock::Timeout=' "$log" &&
	tap_ok "apt-get install waits for dpkg's locks held by others (DPkg::Lock::Timeout)" ||
	tap_fail "apt-get install waits for dpkg's locks held by others (DPkg::Lock::Timeout)"

[ $TAP_FAILED -eq 0 ]
