#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# --check-config on a made-up two-socket server (its sysfs in a scratch
# folder, DCNFWD_SYSFS): ports on both NUMA nodes get a pool on each, and
# a worker whose lcore is on node 0 polling a port of node 1 is warned
# about, by name; the same relay with that worker on the port's node
# draws no warning.
# Usage: numa_check.sh DCNFWD
set -u
DCNFWD=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
s=$dir/sys
for c in 0 1; do mkdir -p "$s/devices/system/cpu/cpu$c/node0"; done
for c in 2 3; do mkdir -p "$s/devices/system/cpu/cpu$c/node1"; done
for f in 0 1; do
	mkdir -p "$s/bus/pci/devices/0000:3b:00.$f" "$s/bus/pci/devices/0000:af:00.$f"
	echo 0 > "$s/bus/pci/devices/0000:3b:00.$f/numa_node"
	echo 1 > "$s/bus/pci/devices/0000:af:00.$f/numa_node"
done
conf() { # file lcore-of-worker-1
	cat > "$1" <<CONF
[fabric]
topology = novacube:k=4,n=2,prefix=10.0.0.0/8
node = (0,0)
partial = yes
[port.a]
dev = 0000:3b:00.0
fabric_port = 0
[port.b]
dev = 0000:af:00.0
fabric_port = 1
[worker.0]
lcore = 1
rx = a:0
[worker.1]
lcore = $2
rx = b:0
CONF
}
conf "$dir/cross.ini" 0
conf "$dir/near.ini" 2
out=$(DCNFWD_SYSFS=$s "$DCNFWD" --check-config "$dir/cross.ini" 2>&1)
rc=$?
echo "$out" | sed 's/^/     /'
if [ $rc -ne 0 ]; then
	echo "FAIL: --check-config exits $rc"; fail=1
fi
echo "$out" | grep -q "ports on 2 NUMA nodes: a pool of mbufs on each (0, 1)" ||
	{ echo "FAIL: no word of a pool on each node"; fail=1; }
echo "$out" | grep -q "warning: the worker on lcore 0 (NUMA node 0) polls port b, of node 1" ||
	{ echo "FAIL: the worker polling across sockets is not warned about"; fail=1; }
out=$(DCNFWD_SYSFS=$s "$DCNFWD" --check-config "$dir/near.ini" 2>&1)
if echo "$out" | grep -q "warning:"; then
	echo "FAIL: a warning with every worker on its ports' node:"; echo "$out"; fail=1
fi
[ $fail -eq 0 ] && echo "ok   the crossing warned about, by worker and port; none when the lcores are the ports'"
exit $fail
