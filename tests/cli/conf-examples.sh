#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every example in conf/ loads and matches its node's place; a broken copy
# is refused with file, line and key; the relay examples' addresses are
# in private space; the pktgen command files of tools/pktgen are what
# dcn-pktgen writes for those relays today.
# Usage: conf-examples.sh DCNFWD CONF_DIR [DCN_TOPO PKTGEN_DIR]
set -u
DCNFWD=$1
CONF=$2
DCN_TOPO=${3:-}
PKTGEN_DIR=${4:-}
fail=0
n=0
for f in "$CONF"/*.ini; do
	n=$((n + 1))
	if ! out=$("$DCNFWD" --check-config "$f" 2>&1); then
		echo "FAIL: $f: $out"; fail=1
	elif ! grep -q "addresses in .* (private)" <<<"$out"; then
		# Copied onto a server, an example must not route public space.
		echo "FAIL: $f: not in private address space: $(grep -m1 addresses <<<"$out")"; fail=1
	fi
done
[ "$n" -ge 6 ] || { echo "FAIL: only $n examples"; fail=1; }
for role in novacube-relay diamond-edge diamond-core rrect-relay lascada-relay totoro-relay; do
	[ -f "$CONF/$role.ini" ] || { echo "FAIL: no $role.ini"; fail=1; }
done
for role in novacube-relay diamond-edge diamond-core rrect-relay lascada-relay totoro-relay; do
	out=$("$DCNFWD" --check-config "$CONF/$role.ini" 2>&1)
	grep -q "addresses in .* (private)" <<< "$out" ||
		{ echo "FAIL: $role.ini's addresses are not in private space: $out"; fail=1; }
done
# input_queue left to the ports: 1024 slots on cables (NovaCube, Diamond),
# 256 behind L2 switches (RRect, LaScaDa, Totoro), the credit batch (256)
# cut to a quarter of the grant; a size asked for is kept.
for role in novacube-relay:1024:819:204 diamond-edge:1024:819:204 diamond-core:1024:819:204 \
	    rrect-relay:256:204:51 lascada-relay:256:204:51 totoro-relay:256:204:51; do
	IFS=: read -r name slots grant batch <<< "$role"
	out=$("$DCNFWD" --check-config "$CONF/$name.ini" 2>&1)
	grep -q "flow control: input queues of $slots slots a port ([A-Za-z0-9 ]*), $grant granted over its links and VCs, a credit frame each $batch freed" <<< "$out" ||
		{ echo "FAIL: $name.ini: not $slots slots, $grant granted, a batch of $batch: $out"; fail=1; }
done
# Behind a switch each link grants its share of the port's queue and
# frees a batch of at most a quarter of it: RRect(4,2,1)'s level-0 port
# has 7 neighbours, 256 / 7 = 36 slots each, 28 granted, a batch of 7.
out=$("$DCNFWD" --check-config "$CONF/rrect-relay.ini" 2>&1)
grep -q "flow control: port level0 behind a switch, 7 links: each granted 28, a credit frame each 7 freed" <<< "$out" ||
	{ echo "FAIL: rrect-relay.ini: no per-link grant and batch for level0: $out"; fail=1; }
tmp=$(mktemp)
sed 's/^input_queue = 0 .*/input_queue = 512/' "$CONF/novacube-relay.ini" > "$tmp"
out=$("$DCNFWD" --check-config "$tmp" 2>&1)
grep -q "flow control: input queues of 512 slots a port, 409 granted over its links and VCs, a credit frame each 102 freed" <<< "$out" ||
	{ echo "FAIL: input_queue = 512 not kept: $out"; fail=1; }
# The pool against what the relay may hold at once (flow control's
# queues full, the descriptors, the pool caches): the share a pool
# covers, and a pool of exactly the need is enough, one less is not.
out=$("$DCNFWD" --check-config "$CONF/novacube-relay.ini" 2>&1)
need=$(sed -n 's/.*mbufs: 65535, [0-9.]*% of the \([0-9]*\) that flow control.*/\1/p' <<< "$out")
if [ -z "$need" ]; then
	echo "FAIL: no share of what the queues hold: $out"; fail=1
else
	sed "s/^mbufs = .*/mbufs = $need/" "$CONF/novacube-relay.ini" > "$tmp"
	grep -q "mbufs: $need, enough for flow control's queues full" \
		<<< "$("$DCNFWD" --check-config "$tmp" 2>&1)" ||
		{ echo "FAIL: mbufs = $need is not enough"; fail=1; }
	sed "s/^mbufs = .*/mbufs = $((need - 1))/" "$CONF/novacube-relay.ini" > "$tmp"
	grep -q "mbufs: $((need - 1)), [0-9.]*% of the $need that" \
		<<< "$("$DCNFWD" --check-config "$tmp" 2>&1)" ||
		{ echo "FAIL: mbufs = $((need - 1)) is not short of $need"; fail=1; }
fi
rm -f "$tmp"
# Queues linear in a relay's channels (lib/fc/README.md, "Memory"): the
# NovaCube and Totoro examples hold at most a quarter of what an output
# queue a (channel, input) pair held (393,216 and 2,497,806 frames).
for role in novacube-relay:98304 totoro-relay:624451; do
	IFS=: read -r name most <<< "$role"
	out=$("$DCNFWD" --check-config "$CONF/$name.ini" 2>&1)
	full=$(sed -n 's/.*queues full (\([0-9]*\) frames.*/\1/p' <<< "$out")
	[ -n "$full" ] && [ "$full" -le "$most" ] ||
		{ echo "FAIL: $name.ini: queues full hold ${full:-?} frames, over $most"; fail=1; }
done
if [ -n "$PKTGEN_DIR" ]; then
	for role in novacube-relay diamond-edge rrect-relay lascada-relay totoro-relay; do
		f=$CONF/$role.ini
		spec=$(sed -n 's/^topology = \([^ ;]*\).*/\1/p' "$f")
		node=$(sed -n 's/^node = \([^ ;]*\).*/\1/p' "$f")
		pkt=$PKTGEN_DIR/${role%%-*}-host.pkt
		tmp=$(mktemp)
		python3 "$PKTGEN_DIR/dcn-pktgen" --dcn-topo "$DCN_TOPO" pkt "$spec" "$node" \
			--out "$tmp" >/dev/null
		cmp -s "$tmp" "$pkt" ||
			{ echo "FAIL: $pkt is not dcn-pktgen's for $spec $node: $(diff "$pkt" "$tmp" | head -4)"; fail=1; }
		rm -f "$tmp"
	done
fi
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
# --check-config says whether a fabric key is in force, and from where.
out=$("$DCNFWD" --check-config "$CONF/novacube-relay.ini" 2>&1)
grep -q "no fabric key" <<< "$out" || { echo "FAIL: no word of the key: $out"; fail=1; }
kdir=$(mktemp -d)
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$kdir/fabric.key"
chmod 600 "$kdir/fabric.key"
sed 's/^; key_file = fabric.key /key_file = fabric.key /' "$CONF/novacube-relay.ini" > "$kdir/relay.ini"
if ! out=$("$DCNFWD" --check-config "$kdir/relay.ini" 2>&1) ||
   ! grep -q "fabric key from $kdir/fabric.key" <<< "$out"; then
	echo "FAIL: a keyed configuration does not say its key: $out"; fail=1
fi
# A key others can read is refused, with the mode to set.
chmod 644 "$kdir/fabric.key"
if out=$("$DCNFWD" --check-config "$kdir/relay.ini" 2>&1) ||
   ! grep -q "chmod 600" <<< "$out"; then
	echo "FAIL: a key file of mode 0644 taken: $out"; fail=1
fi
rm -rf "$kdir"
[ $fail -eq 0 ] && echo "$n examples load; a wrong port is refused with its line"
exit $fail
