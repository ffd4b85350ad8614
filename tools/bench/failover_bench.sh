#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Outage by detection path, and fabric-wide convergence, for each
# topology: one flow at 20000 frames/s in an emulated fabric, the cable it
# uses pulled (a link event: both ends lose carrier; or silently: the
# frames stop, carrier stays, hellos find it) or a transit node killed.
# Prints a table and, with -o FILE, a CSV. Figures only: nothing is
# asserted. Targets: a link event under 1 ms where a local alternate
# exists; convergence under 10 ms fabric-wide.
# Usage: failover_bench.sh DCNFWD [-o FILE] [-s SPECS] [-d SECONDS]
#   SPECS: space-separated fabrics (default: one of each topology);
#   SECONDS: each run's length, the cable pulled a third of the way in
#   (default 6).
set -u
DCNFWD=$1
shift
OUT= DURATION=6
SPECS="novacube:k=4,n=2 diamond:k=4 rrect:n=2,m=2,k=1 lascada:n=2,k=2 totoro:N=4,n=4,K=1"
while [ $# -gt 0 ]; do
	case "$1" in
	-o) OUT=$2; shift 2 ;;
	-s) SPECS=$2; shift 2 ;;
	-d) DURATION=$2; shift 2 ;;
	*) echo "failover_bench.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
EAL="-l 0-1 --no-huge -m 1024 --no-pci --log-level=5"
csv="topology,path,pulled,lost,link_pps,outage_ms,detect_ms,converge_ms,restore_ms"
printf "%-22s %-8s %-16s %10s %10s %11s %10s\n" topology path pulled \
	"outage ms" "detect ms" "converge ms" "back ms"
for spec in $SPECS; do
	for mode in carrier silent kill; do
		prefix="dcn-fob-$$-$mode"
		line=$("$DCNFWD" $EAL --file-prefix="$prefix" -- --emulate "$spec" \
			--duration "$DURATION" --rate 20000 --senders 1 --pattern permutation \
			--unplug busiest --unplug-mode "$mode" --stats 0 --json \
			2>/dev/null | grep '"failover"')
		rm -rf "/var/run/dpdk/$prefix"
		[ -n "$line" ] || continue
		row=$(python3 -c '
import json, sys
f = json.loads(sys.argv[1])["failover"]
path = {"carrier": "link", "silent": "hello", "kill": "killed"}[f["mode"]]
# Specs and vertex names hold commas: ";" in the CSV.
print(",".join([sys.argv[2].replace(",", ";"), path, f["what"].replace(",", ";"),
    str(f["lost"]),
    "%.0f" % f["link_pps_before"], "%.3f" % f["outage_ms"], "%.3f" % f["detect_ms"],
    "%.3f" % f["converge_ms"], "%.1f" % f["restore_ms"]]))' "$line" "$spec")
		csv="$csv
$row"
		IFS=, read -r t p w _ _ o de c r <<< "$row"
		printf "%-22s %-8s %-16s %10s %10s %11s %10s\n" "$t" "$p" "$w" "$o" \
			"$de" "$c" "$r"
	done
done
[ -n "$OUT" ] && echo "$csv" > "$OUT"
exit 0
