#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A plan deployed as servers deploy it. dcn-plan writes a fabric no other
# test uses, novacube:k=5,n=1 (a ring of five with two jump links), its
# addresses in an operator's private network (--prefix 10.88.0.0/16).
# Each network namespace is one server: it gets only its own two files
# (HOST.ini, HOST.env) in its own /etc/dcnfwd, its cables are veth pairs
# named as the plan's cabling.csv says, and it runs what the installed
# unit runs: ExecStartPre, ExecStart, ExecStartPost, read from the built
# dcnfwd@.service, with HOST.env as systemd reads it. Then: every server
# pings every other across the fabric, iperf3 crosses it, and a relay
# killed with SIGKILL and started again by the unit's commands (as
# Restart= does, its runtime files left as a kill leaves them) has its
# fabric address, MTU and route back with nothing else run, and every
# pair pings again. A plan in public space is refused, naming the key.
# The relays run on 2 MB pages the test reserves (and gives back), as
# their net_af_xdp ports need: one started with --no-huge is refused,
# saying why.
# Usage: plan_servers.sh BUILD_DIR
set -u
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
UNIT=$BUILD/tools/systemd/dcnfwd@.service
TOPO=$BUILD/tools/dcn-topo/dcn-topo
SPEC=novacube:k=5,n=1
NET=10.88.0.0/16
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
[ -s "$UNIT" ] || { echo "SKIP: no built unit $UNIT"; exit 77; }
command -v iperf3 >/dev/null || { echo "SKIP: no iperf3 (tools/install-deps.sh)"; exit 77; }
NR=/proc/sys/vm/nr_hugepages
[ -w "$NR" ] || { echo "SKIP: cannot reserve hugepages"; exit 77; }
dir=$(mktemp -d)
tag=$$
servers=()
declare -A pid ns
old_pages=$(cat "$NR")
cleanup() {
	local s
	for s in "${servers[@]}"; do
		[ -n "${pid[$s]:-}" ] && kill -9 "${pid[$s]}" 2>/dev/null && wait "${pid[$s]}" 2>/dev/null
	done
	for s in "${servers[@]}"; do
		ip netns del "${ns[$s]}" 2>/dev/null
		rm -rf "/var/run/dpdk/dcnfwd-$s"
	done
	umount "$dir/huge" 2>/dev/null
	# Pages AF_XDP still pins become surplus, freed once released.
	echo "$old_pages" > "$NR"
	rm -rf "$dir"
}
trap cleanup EXIT
fail=0
check() { # what, command...
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}

# Public space: refused, in one line that names the key.
out=$(python3 "$ROOT/tools/dcn-plan" "$SPEC" --prefix paper --out "$dir/public" \
	--no-picture --dcn-topo "$TOPO" 2>&1)
check "a plan in public space is refused, naming --prefix: $out" \
	sh -c 'test ! -e "$1" && echo "$2" | grep -q -- "public address space.*--prefix"' _ "$dir/public" "$out"

# Five relays of 128 MB, and one more: a relay started again while the
# pages of the one it replaces come back late.
echo $((old_pages + 6 * 64)) > "$NR"
[ "$(cat "$NR")" -ge $((old_pages + 6 * 64)) ] ||
	{ echo "SKIP: the kernel gave fewer hugepages than asked"; exit 77; }
mkdir "$dir/huge"
mount -t hugetlbfs -o pagesize=2M nodev "$dir/huge" ||
	{ echo "SKIP: cannot mount hugetlbfs"; exit 77; }
cat > "$dir/inventory.ini" <<INV
[defaults]
hostname = srv-{tag}-$tag
port = net_af_xdp{port},iface=p{port}
eal = --huge-dir $dir/huge -m 128 --no-pci
idle_sleep_us = 1000
mtu = 1500
INV
python3 "$ROOT/tools/dcn-plan" "$SPEC" --prefix "$NET" --inventory "$dir/inventory.ini" \
	--out "$dir/plan" --no-picture --dcn-topo "$TOPO" --dcnfwd "$BUILD/app/dcnfwd/dcnfwd" || exit 1

# The unit's commands, its paths pointed at a server's own folders.
bindir=$(sed -n 's|^ExecStart=\(.*\)/dcnfwd .*|\1|p' "$UNIT")
etc=$(sed -n 's|.*--config \(.*\)/dcnfwd/%i\.ini.*|\1|p' "$UNIT")
unit_cmd() { # key server
	sed -n "s|^$1=||p" "$UNIT" |
		sed "s|$bindir/|$dir/bin/|g; s|$etc/|$dir/$2/etc/|g; s|%i|$2|g"
}
mkdir "$dir/bin"
ln -s "$BUILD/app/dcnfwd/dcnfwd" "$dir/bin/dcnfwd"
ln -s "$ROOT/tools/dcn-host-if" "$dir/bin/dcn-host-if"

# Each server: a namespace and only its own files.
for f in "$dir"/plan/srv-*.ini; do
	s=$(basename "$f" .ini)
	servers+=("$s")
	ns[$s]=dcn-$s
	mkdir -p "$dir/$s/etc/dcnfwd"
	cp "$dir/plan/$s.ini" "$dir/plan/$s.env" "$dir/$s/etc/dcnfwd/"
	ip netns add "${ns[$s]}" || exit 1
	ip -n "${ns[$s]}" link set lo up
done
check "five servers planned" test "${#servers[@]}" -eq 5
# The cables, as cabling.csv names them: server, NIC's interface.
python3 - "$dir/plan/cabling.csv" > "$dir/cables" <<'EOF' || exit 1
import csv, re, sys
for r in csv.DictReader(open(sys.argv[1])):
    ia = re.search(r"iface=(\w+)", r["a_nic"])[1]
    ib = re.search(r"iface=(\w+)", r["b_nic"])[1]
    print(r["a"], ia, r["b"], ib)
EOF
n=0
while read -r a ia b ib; do
	n=$((n + 1))
	ip link add "ca$n-$tag" netns "${ns[$a]}" type veth peer name "cb$n-$tag" netns "${ns[$b]}" || exit 1
	ip -n "${ns[$a]}" link set "ca$n-$tag" name "$ia"
	ip -n "${ns[$b]}" link set "cb$n-$tag" name "$ib"
	for e in "$a $ia" "$b $ib"; do
		set -- $e
		ip netns exec "${ns[$1]}" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
		ip -n "${ns[$1]}" link set "$2" mtu 1500 up
	done
done < "$dir/cables"
check "seven cables, as cabling.csv says" test "$n" -eq 7

# net_af_xdp on 4 KB pages would go deaf after a few thousand frames:
# refused at start, saying why, before it touches an interface.
s=${servers[0]}
out=$(ip netns exec "${ns[$s]}" "$BUILD/app/dcnfwd/dcnfwd" -l 0-1 --no-huge -m 256 --no-pci \
	--file-prefix="nohuge-$tag" -- --config "$dir/$s/etc/dcnfwd/$s.ini" 2>&1)
rc=$?
rm -rf "/var/run/dpdk/nohuge-$tag"
check "a relay with net_af_xdp ports on --no-huge is refused (exit $rc): $(grep -m1 'needs hugepages' <<< "$out")" \
	sh -c 'test "$1" -ne 0 && echo "$2" | grep -q "net_af_xdp.* needs hugepages, and EAL runs with --no-huge (on 4 KB pages"' _ "$rc" "$out"

start() { # server: ExecStartPre, ExecStart (background), ExecStartPost
	local s=$1 pre st post env
	env="set -a; . '$dir/$s/etc/dcnfwd/$s.env'; set +a"
	pre=$(unit_cmd ExecStartPre "$s") st=$(unit_cmd ExecStart "$s") post=$(unit_cmd ExecStartPost "$s")
	ip netns exec "${ns[$s]}" sh -c "$env; $pre" > "$dir/$s.pre" 2>&1 ||
		{ echo "FAIL $s: ExecStartPre: $(tail -3 "$dir/$s.pre")"; fail=1; return 1; }
	ip netns exec "${ns[$s]}" sh -c "$env; exec $st" >> "$dir/$s.log" 2>&1 &
	pid[$s]=$!
	ip netns exec "${ns[$s]}" sh -c "$env; $post" > "$dir/$s.post" 2>&1 ||
		{ echo "FAIL $s: ExecStartPost: $(tail -3 "$dir/$s.post")"; fail=1; return 1; }
}
t0=$SECONDS
for s in "${servers[@]}"; do start "$s"; done
echo "five relays started by the unit's commands in $((SECONDS - t0)) s"

addr() { sed -n 's/^DCNFWD_HOST_ADDR="\(.*\)"/\1/p' "$dir/$1/etc/dcnfwd/$1.env"; }
pings() { # servers whose pairs must ping: every pair with one of them
	local a b bad=0
	for a in "${servers[@]}"; do
		for b in "${servers[@]}"; do
			[ "$a" = "$b" ] && continue
			case " $* " in *" $a "*|*" $b "*) ;; *) continue ;; esac
			ip netns exec "${ns[$a]}" ping -q -c 1 -W 1 "$(addr "$b")" >/dev/null 2>&1 || bad=$((bad + 1))
		done
	done
	return $bad
}
# Links come up within a few hellos: up to 30 rounds, a second apart.
pings_soon() { # servers: as pings, once a round passes
	local _
	for _ in $(seq 30); do
		pings "$@" && return 0
		sleep 1
	done
	return 1
}
pings_soon "${servers[@]}"; ok=$?
check "every server pings every other across the fabric (20 pairs), $((SECONDS - t0)) s after the first start" test $ok = 0

look() { # what server
	local s=$2 a m r want_prefix want_mtu
	want_prefix=$(sed -n 's/^DCNFWD_FABRIC_PREFIX="\(.*\)"/\1/p' "$dir/$s/etc/dcnfwd/$s.env")
	want_mtu=$(sed -n 's/^DCNFWD_HOST_MTU="\(.*\)"/\1/p' "$dir/$s/etc/dcnfwd/$s.env")
	a=$(ip -n "${ns[$s]}" -4 -o addr show dev dcn0 2>/dev/null | awk '{print $4}')
	m=$(ip -n "${ns[$s]}" -o link show dev dcn0 2>/dev/null | grep -o 'mtu [0-9]*' | cut -d' ' -f2)
	r=$(ip -n "${ns[$s]}" route show "$want_prefix" 2>/dev/null | grep -c "dev dcn0")
	check "$1: $s's dcn0 has $a (want $(addr "$s")/32 in $NET), MTU $m (want $want_mtu), route $want_prefix ($r)" \
		test "$a" = "$(addr "$s")/32" -a "$m" = "$want_mtu" -a "$r" = 1 -a "${want_prefix%.*}" = 10.88.0
}
for s in "${servers[@]}"; do look "after the start" "$s"; done

# iperf3 across the fabric: (0) to (3), two hops or more.
a=${servers[0]} b=${servers[3]}
ip netns exec "${ns[$b]}" iperf3 -s -1 -B "$(addr "$b")" > "$dir/iperf-server" 2>&1 &
ipsrv=$!
sleep 0.5
ip netns exec "${ns[$a]}" iperf3 -c "$(addr "$b")" -B "$(addr "$a")" -t 2 -J > "$dir/iperf.json" 2>&1
bytes=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"]))' \
	"$dir/iperf.json" 2>/dev/null || echo 0)
check "iperf3 from $a to $b across the fabric: $bytes bytes received" test "$bytes" -gt 100000
kill "$ipsrv" 2>/dev/null; wait "$ipsrv" 2>/dev/null

# SIGKILL, and the unit's commands again, as Restart=on-failure runs them.
v=${servers[1]}
idx1=$(ip -n "${ns[$v]}" -o link show dev dcn0 | cut -d: -f1)
kill -9 "${pid[$v]}"; wait "${pid[$v]}" 2>/dev/null; pid[$v]=
for _ in $(seq 50); do ip -n "${ns[$v]}" link show dev dcn0 >/dev/null 2>&1 || break; sleep 0.1; done
check "$v killed: its TAP went with it" sh -c "! ip -n '${ns[$v]}' link show dev dcn0 >/dev/null 2>&1"
start "$v"
idx2=$(ip -n "${ns[$v]}" -o link show dev dcn0 2>/dev/null | cut -d: -f1)
look "after the restart (a new TAP: ifindex $idx1, then $idx2)" "$v"
check "after the restart, $v pings every server and every server pings it" pings_soon "$v"
if [ $fail -ne 0 ]; then
	for s in "${servers[@]}"; do echo "--- $s"; tail -5 "$dir/$s.log"; done
fi
exit $fail
