#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every example in conf/ loads and matches its node's place; a broken copy
# is refused with file, line and key.
# Usage: conf-examples.sh DCNFWD CONF_DIR
set -u
DCNFWD=$1
CONF=$2
fail=0
n=0
for f in "$CONF"/*.ini; do
	n=$((n + 1))
	if ! out=$("$DCNFWD" --check-config "$f" 2>&1); then
		echo "FAIL: $f: $out"; fail=1
	fi
done
[ "$n" -ge 6 ] || { echo "FAIL: only $n examples"; fail=1; }
for role in novacube-relay diamond-edge diamond-core rrect-relay lascada-relay totoro-relay; do
	[ -f "$CONF/$role.ini" ] || { echo "FAIL: no $role.ini"; fail=1; }
done
# A cable on the wrong port: refused, naming the file, line and key.
tmp=$(mktemp)
sed 's/^fabric_port = 4 .*/fabric_port = 7/' "$CONF/novacube-relay.ini" > "$tmp"
line=$(grep -n '^fabric_port = 7' "$tmp" | cut -d: -f1)
if out=$("$DCNFWD" --check-config "$tmp" 2>&1); then
	echo "FAIL: fabric_port 7 accepted"; fail=1
elif ! grep -q "$tmp:$line: \[port.jump\] fabric_port" <<< "$out"; then
	echo "FAIL: error does not name $tmp:$line [port.jump] fabric_port: $out"
	fail=1
fi
rm -f "$tmp"
[ $fail -eq 0 ] && echo "$n examples load; a wrong port is refused with its line"
exit $fail
