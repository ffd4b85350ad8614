#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The curve pipeline end to end on a small sample: CSV rows per ratio and a
# PNG per figure. Skips (77) without gnuplot.
set -u
TOPO=${1:?usage: curves.sh path/to/dcn-topo}
here=$(cd "$(dirname "$0")" && pwd)
command -v gnuplot >/dev/null || { echo "SKIP: gnuplot is not installed"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

DCN_TOPO=$TOPO "$here/../../tools/figures/paper-curves.sh" -o "$out" -s 2 -r 1 rrect-fig8a >/dev/null || exit 1
rows=$(tail -n +2 "$out/rrect-fig8a.csv" | wc -l)
# Two fabrics, ratios 0 to 0.3 by 0.05: 14 rows.
[ "$rows" -eq 14 ] || { echo "FAIL: $rows rows, expected 14"; exit 1; }
grep -q '^rrect:n=8 m=2 k=4,rrect,servers,0,0.3000,' "$out/rrect-fig8a.csv" || {
	echo "FAIL: no 30% row"; exit 1; }
# Fig. 9 counts lost servers: its column, with a standard error over draws.
DCN_TOPO=$TOPO "$here/../../tools/figures/paper-curves.sh" -o "$out" -s 2 -r 2 rrect-fig9 >/dev/null || exit 1
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i
		  ok = h["lost_servers"] && h["lost_servers_se"] && h["disconnected_pairs"]; next }
	 $5 == "0.3000" && $h["lost_servers"] > 0 && $h["lost_servers"] < 0.01 { hit = 1 }
	 END { exit !(ok && hit) }' "$out/rrect-fig9.csv" || {
	echo "FAIL: rrect-fig9.csv has no lost-server share in (0, 1%) at 30%"; exit 1; }
"$here/../../tools/figures/plot-curves.sh" "$out" >/dev/null || exit 1
[ -s "$out/rrect-fig8a.png" ] || { echo "FAIL: no plot"; exit 1; }
file "$out/rrect-fig8a.png" 2>/dev/null | grep -q PNG || head -c 8 "$out/rrect-fig8a.png" | grep -q PNG || {
	echo "FAIL: not a PNG"; exit 1; }
echo "curves: CSV and PNG produced"
