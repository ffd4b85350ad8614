#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Produce, as CSV, the failure curves the papers plot, one command each:
#   tools/figures/paper-curves.sh [-o DIR] [-s SOURCES] [-r DRAWS] FIGURE...
# FIGURE: novacube-fig12 totoro-fig2 totoro-fig3 totoro-fig4 totoro-fig5
#         rrect-fig8a rrect-fig8b rrect-fig9 lascada-fig20, or "all".
# Each writes DIR/FIGURE.csv (rows of `dcn-topo sweep`, one block per
# curve; every point the mean of DRAWS failure draws, default 3, from
# SOURCES sources, default 32). tools/figures/plot-curves.sh DIR turns
# them into PNG plots.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
TOPO=${DCN_TOPO:-$here/../../build/tools/dcn-topo/dcn-topo}
out=figures
sources=32
draws=3

usage() {
	sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-2}"
}

while getopts "o:s:r:h" o; do
	case $o in
	o) out=$OPTARG ;;
	s) sources=$OPTARG ;;
	r) draws=$OPTARG ;;
	h) usage 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
[ -x "$TOPO" ] || { echo "paper-curves: build dcn-topo first ($TOPO)" >&2; exit 1; }
mkdir -p "$out"

# sweep OUT SPEC ARGS...: append one curve (no header after the first).
sweep() {
	local csv=$1 spec=$2
	shift 2
	if [ -s "$csv" ]; then
		"$TOPO" --sample "$sources" --repeat "$draws" "$@" sweep "$spec" |
			tail -n +2 >>"$csv"
	else
		"$TOPO" --sample "$sources" --repeat "$draws" "$@" sweep "$spec" >"$csv"
	fi
}

figure() {
	local f=$1 csv="$out/$1.csv"
	: >"$csv"
	case $f in
	novacube-fig12) # APL under link and node failures: PORA vs torus DOR, 512 nodes
		for s in novacube:k=8,n=3 torus:k=8,n=3; do
			sweep "$csv" "$s" --fail-links 0:0.2:0.04
			sweep "$csv" "$s" --fail-servers 0:0.2:0.04
		done ;;
	totoro-fig2 | totoro-fig3 | totoro-fig4 | totoro-fig5) # path failure ratio, TFR vs SP
		local kind
		case $f in
		totoro-fig2) kind=servers ;;
		totoro-fig3) kind=links ;;
		totoro-fig4) kind=switches ;;
		totoro-fig5) kind=racks ;;
		esac
		for s in totoro:N=48,n=48,K=1 totoro:N=16,n=16,K=2; do
			sweep "$csv" "$s" --algo tfr "--fail-$kind" 0.02:0.2:0.02
			sweep "$csv" "$s" --algo tfr-literal "--fail-$kind" 0.02:0.2:0.02
		done ;;
	rrect-fig8a) # APL under server failures, shortest available paths (§6)
		for s in rrect:n=8,m=2,k=4 bcube:n=8,k=4; do
			sweep "$csv" "$s" --no-routed --fail-servers 0:0.3:0.05
		done ;;
	rrect-fig8b | rrect-fig9) # APL, and lost servers, under link failures
		for s in rrect:n=8,m=2,k=4 bcube:n=8,k=4; do
			sweep "$csv" "$s" --no-routed --fail-links 0:0.3:0.05
		done ;;
	lascada-fig20) # connection failure rate, 2048 nodes, MaxLifeTime 6 and 5
		for m in 6 5; do
			sweep "$csv" lascada:n=8,k=2 --max-life "$m" --fail-links 0.04:0.24:0.04
		done ;;
	*)
		echo "paper-curves: unknown figure '$f'" >&2
		exit 2 ;;
	esac
	echo "$csv"
}

if [ "$1" = all ]; then
	set -- novacube-fig12 totoro-fig2 totoro-fig3 totoro-fig4 totoro-fig5 \
		rrect-fig8a rrect-fig8b rrect-fig9 lascada-fig20
fi
for f in "$@"; do
	figure "$f"
done
