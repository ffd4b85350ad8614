#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The server's own way into the fabric, as a server runs it: dcn-plan's
# files for one relay (HOST.ini, HOST.env), and the service unit's own
# commands (ExecStart, ExecStartPost of the built dcnfwd@.service, its
# paths pointed at this build) run in a network namespace with HOST.env
# as systemd reads it. After the start the TAP (dcn0) has the relay's
# fabric address, the MTU (the cables' less the fabric header) and the
# route to the fabric's prefix; after a kill -9 and the start again that
# Restart= makes, the TAP is a new one and has them again; and started
# while its hugepages are held, ExecStartPost waits for the late TAP.
# Usage: host_if_unit.sh BUILD_DIR
set -u
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
UNIT=$BUILD/tools/systemd/dcnfwd@.service
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
[ -s "$UNIT" ] || { echo "SKIP: no built unit $UNIT"; exit 77; }
dir=$(mktemp -d)
ns=dcn-hif-$$
pid=
holder= old_nr=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	rm -f "$dir/huge/held"
	umount "$dir/huge" 2>/dev/null
	[ -n "$old_nr" ] && echo "$old_nr" > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	ip netns del "$ns" 2>/dev/null
	rm -rf "$dir" "/var/run/dpdk/dcnfwd-relay-0-0-$$"
}
trap cleanup EXIT
fail=0
check() { # what, command...
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}

# One relay of novacube:k=4,n=2, its addresses in 10.77.0.0/16, with one
# memif cable port (its peer absent: partial) and its host port on a TAP,
# no hugepages.
cat > "$dir/inventory.ini" <<INV
[defaults]
hostname = relay-{tag}-$$
port = net_memif{port},role=server,socket=$dir/p{port}.sock
ports = 0
partial = yes
eal = --no-huge -m 512 --no-pci
mtu = 1500
INV
# The operator's private network for the fabric's addresses.
python3 "$ROOT/tools/dcn-plan" novacube:k=4,n=2 --prefix 10.77.0.0/16 \
	--inventory "$dir/inventory.ini" --out "$dir/etc/dcnfwd" --no-picture \
	--dcn-topo "$BUILD/tools/dcn-topo/dcn-topo" --dcnfwd "$BUILD/app/dcnfwd/dcnfwd" >/dev/null || exit 1
host=relay-0-0-$$
set -a; . "$dir/etc/dcnfwd/$host.env"; set +a
want_addr=$DCNFWD_HOST_ADDR want_prefix=$DCNFWD_FABRIC_PREFIX want_mtu=$DCNFWD_HOST_MTU
check "dcn-plan's $host.env names the host interface: $DCNFWD_HOST_IF $want_addr $want_prefix MTU $want_mtu" \
	test "$DCNFWD_HOST_IF" = dcn0 -a "$want_mtu" = 1480 -a "$want_addr" = 10.77.0.0 \
	-a "$want_prefix" = 10.77.0.0/28

# The unit's commands, with its paths (BINDIR, SYSCONFDIR) pointed here.
mkdir "$dir/bin"
ln -s "$BUILD/app/dcnfwd/dcnfwd" "$dir/bin/dcnfwd"
ln -s "$ROOT/tools/dcn-host-if" "$dir/bin/dcn-host-if"
bindir=$(sed -n 's|^ExecStart=\(.*\)/dcnfwd .*|\1|p' "$UNIT")
etc=$(sed -n 's|.*--config \(.*\)/dcnfwd/%i\.ini.*|\1|p' "$UNIT")
cmd() { # Exec key
	sed -n "s|^$1=||p" "$UNIT" | sed "s|$bindir/|$dir/bin/|g; s|$etc/|$dir/etc/|g; s|%i|$host|g"
}
start=$(cmd ExecStart) post=$(cmd ExecStartPost)
start=${start/--file-prefix=dcnfwd-$host/--file-prefix=dcnfwd-relay-0-0-$$}
check "the unit has an ExecStartPost that runs dcn-host-if" grep -q "dcn-host-if" <<<"$post"
ip netns add "$ns"

env_file=$dir/etc/dcnfwd/$host.env
run_unit() { # what: ExecStart in the background, then ExecStartPost
	ip netns exec "$ns" sh -c "set -a; . '$env_file'; set +a; exec $start" \
		> "$dir/dcnfwd.log" 2>&1 &
	pid=$!
	ip netns exec "$ns" sh -c "set -a; . '$env_file'; set +a; $post" \
		> "$dir/post.log" 2>&1
	local rc=$?
	check "$1: ExecStartPost exits 0 ($(tail -1 "$dir/post.log"))" test $rc -eq 0
}
look() { # what
	local a m r
	a=$(ip -n "$ns" -4 -o addr show dev dcn0 2>/dev/null | awk '{print $4}')
	m=$(ip -n "$ns" -o link show dev dcn0 2>/dev/null | grep -o 'mtu [0-9]*' | cut -d' ' -f2)
	r=$(ip -n "$ns" route show "$want_prefix" 2>/dev/null | grep -c "dev dcn0")
	check "$1: dcn0 has $a (want $want_addr/32), MTU $m (want $want_mtu), route $want_prefix via it ($r)" \
		test "$a" = "$want_addr/32" -a "$m" = "$want_mtu" -a "$r" = 1
}
run_unit "start"
look "after the start"
# The TAP's PMD, which sets up a multiq qdisc for rte_flow (not used),
# says nothing of a kernel without sch_multiq; nor does telemetry speak.
check "no start-up noise in the relay's log ($(grep -c 'multiq\|^TELEMETRY' "$dir/dcnfwd.log") lines)" \
	sh -c '! grep -q "multiq\|^TELEMETRY" "$1"' _ "$dir/dcnfwd.log"
idx1=$(ip -n "$ns" -o link show dev dcn0 | cut -d: -f1)
# Killed, and started again as Restart=on-failure does.
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
for i in $(seq 50); do ip -n "$ns" link show dev dcn0 >/dev/null 2>&1 || break; sleep 0.1; done
rm -rf "/var/run/dpdk/dcnfwd-relay-0-0-$$"
run_unit "restart"
idx2=$(ip -n "$ns" -o link show dev dcn0 | cut -d: -f1)
look "after the restart (a new TAP: ifindex $idx1 then $idx2)"
check "the TAP after the restart is a new one" test "$idx1" != "$idx2"
kill "$pid"; wait "$pid" 2>/dev/null; pid=
rm -rf "/var/run/dpdk/dcnfwd-relay-0-0-$$"

# Started while its hugepages are still held (the process it replaces
# giving them back): dcnfwd waits for them (DCNFWD_HUGEPAGE_WAIT_MS, from
# the environment file as the unit reads it), its TAP comes late, and
# ExecStartPost waits as long. The pages are held 17 s: longer than a
# fixed wait of 15 s, within the hugepage wait and 30 s.
NR=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
FREE=/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages
other=$(cat /sys/kernel/mm/hugepages/hugepages-*/free_hugepages | awk '{s += $1} END {print s + 0}')
other=$((other - $(cat "$FREE" 2>/dev/null || echo 0)))
if [ ! -w "$NR" ] || [ "$other" -gt 0 ]; then
	echo "SKIP (part): no 2 MB hugepages to reserve, or free pages of another size"
	exit $fail
fi
old_nr=$(cat "$NR")
[ "$(cat "$FREE")" -lt 40 ] && echo $((old_nr + 40 - $(cat "$FREE"))) > "$NR"
mkdir "$dir/huge"
mount -t hugetlbfs -o pagesize=2M nodev "$dir/huge" || { echo "FAIL: cannot mount hugetlbfs"; exit 1; }
# Every free 2 MB page held by a file, given back 17 s on.
fallocate -l $(( $(cat "$FREE") * 2 ))M "$dir/huge/held"
(sleep 17; rm -f "$dir/huge/held") &
holder=$!
cp "$env_file" "$dir/huge.env"
printf 'DCNFWD_EAL_ARGS="-m 64 --no-pci --huge-dir %s"\nDCNFWD_HUGEPAGE_WAIT_MS=40000\n' \
	"$dir/huge" >> "$dir/huge.env"
env_file=$dir/huge.env
t0=$SECONDS
run_unit "start with the hugepages held"
check "dcnfwd waited for its hugepages, saying so ($(grep -o 'waiting up to [0-9]* ms' "$dir/dcnfwd.log"))" \
	grep -q "waiting up to 40000 ms for 64 MB of free hugepages" "$dir/dcnfwd.log"
check "ExecStartPost waited for the late TAP ($((SECONDS - t0)) s, more than 15)" \
	test $((SECONDS - t0)) -gt 15
look "after the late start"
kill "$pid"; wait "$pid" 2>/dev/null; pid=
wait "$holder"; holder=
exit $fail
