#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dcn-gen on ports EAL made (--vdev): set up and started as those it
# probes itself, so a veth pair's two ends, one sending and one
# receiving, deliver every frame (it used to send on a port never
# started: a DPDK stack dump, every frame a tx failure, exit 0).
# Usage: gen_ports.sh DCN_GEN
set -u
GEN=$1
fail=0
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (veth pair)"; exit 77; }
a=dgp-a$$ b=dgp-b$$ prefix=dcn-gen-ports-$$
cleanup() { ip link del "$a" 2>/dev/null; rm -rf "/var/run/dpdk/$prefix"; }
trap cleanup EXIT
ip link add "$a" type veth peer name "$b" || { echo "SKIP: no veth"; exit 77; }
ip link set "$a" up && ip link set "$b" up
"$GEN" -l 0 --no-huge -m 256 --no-pci --log-level=4 --file-prefix="$prefix" \
	--vdev "net_af_packet0,iface=$a" --vdev "net_af_packet1,iface=$b" -- \
	--tx net_af_packet0 --rx net_af_packet1 --src 10.0.0.2 --dst 10.0.0.1 \
	--count 5000 --rate 5000 --duration 2 --json > "/tmp/$prefix.out" 2>&1 &
gen=$!
# A DPDK process with no /dcn/ commands (as dcnfwd before it is set up):
# dcn-telemetry says why its answer is null.
for _ in $(seq 50); do
	[ -S "/var/run/dpdk/$prefix/dpdk_telemetry.v2" ] && break
	sleep 0.1
done
tel=$(python3 "$(dirname "$0")/../../tools/dcn-telemetry" -p "$prefix" /dcn/stats 2>&1 >/dev/null)
trc=$?
if [ "$trc" -eq 1 ] && grep -q "/dcn/stats: no such command yet: the dcnfwd of --file-prefix=$prefix is still starting" <<<"$tel"; then
	echo "ok    dcn-telemetry before any /dcn/ command: $tel"
else
	echo "FAIL dcn-telemetry before any /dcn/ command: exit $trc: $tel"; fail=1
fi
wait "$gen"
rc=$?
out=$(cat "/tmp/$prefix.out"); rm -f "/tmp/$prefix.out"
json=$(grep '^{' <<<"$out" | tail -1)
python3 - "$rc" "$json" <<'PY' || { echo "$out" | tail -5; exit 1; }
import json, sys
rc, r = int(sys.argv[1]), json.loads(sys.argv[2] or "{}")
ok = rc == 0 and r.get("sent") == 5000 and r.get("tx_fail") == 0 and r.get("received") == 5000
print("%s  ports from --vdev: exit %d, sent %s, not taken %s, received %s" %
      ("ok  " if ok else "FAIL", rc, r.get("sent"), r.get("tx_fail"), r.get("received")))
sys.exit(0 if ok else 1)
PY
exit $fail
