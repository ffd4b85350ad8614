#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Produce, as CSV, the failure curves the papers plot, one command each:
#   tools/figures/paper-curves.sh [-o DIR] [-s SOURCES] [-r DRAWS] FIGURE...
# FIGURE: novacube-fig12 totoro-fig2 totoro-fig3 totoro-fig4 totoro-fig5
#         rrect-fig8a rrect-fig8b rrect-fig9 lascada-fig20, or "all";
#         "points": the numbers the papers print beside ours (DIR/points.md).
# Each writes DIR/FIGURE.csv (rows of `dcn-topo sweep`, one block per
# curve; every point the mean of DRAWS failure draws, default 3, from
# SOURCES sources, default 32, with its standard error over the draws).
# tools/figures/plot-curves.sh DIR turns them into PNG plots.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
TOPO=${DCN_TOPO:-$here/../../build/tools/dcn-topo/dcn-topo}
out=figures
sources=32
draws=3

usage() {
	sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//'
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

# point FIGURE WHAT PAPER SCALE COLUMN SPEC ARGS...: one row of the
# points table: the number the paper prints, dcn-topo's mean of COLUMN
# (times SCALE, to the paper's unit) with its standard error over the
# draws, how far apart they are, and the command that gives it.
point() {
	local fig=$1 what=$2 paper=$3 scale=$4 col=$5 spec=$6
	shift 6
	"$TOPO" --sample "$sources" --repeat "$draws" "$@" sweep "$spec" |
		awk -F, -v fig="$fig" -v what="$what" -v paper="$paper" \
		    -v scale="$scale" -v col="$col" \
		    -v cmd="dcn-topo --sample $sources --repeat $draws $* sweep $spec" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{
			m = $h[col] * scale; se = $h[col "_se"] * scale
			gap = "-"
			if (paper ~ /^[0-9.]+$/ && paper != 0)
				gap = sprintf("%+.0f%%", (m - paper) / paper * 100)
			printf "| %s | %s | %s | %.4g ± %.2g | %s | `%s` (%s) |\n",
			       fig, what, paper, m, se, gap, cmd, col
		}'
}

# versus FIGURE WHAT CLAIM A B SPEC ARGS...: a row for a figure the paper
# draws without printing a number: its claim, and columns A and B of one
# sweep side by side (mean ± standard error).
versus() {
	local fig=$1 what=$2 claim=$3 ca=$4 cb=$5 spec=$6
	shift 6
	"$TOPO" --sample "$sources" --repeat "$draws" "$@" sweep "$spec" |
		awk -F, -v fig="$fig" -v what="$what" -v claim="$claim" \
		    -v ca="$ca" -v cb="$cb" \
		    -v cmd="dcn-topo --sample $sources --repeat $draws $* sweep $spec" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{
			printf "| %s | %s | %s | %.4g ± %.2g vs %.4g ± %.2g | - | `%s` (%s vs %s) |\n",
			       fig, what, claim, $h[ca], $h[ca "_se"], $h[cb],
			       $h[cb "_se"], cmd, ca, cb
		}'
}

points() {
	local md=$1
	{
	echo "| Figure | Point | Paper | dcn-topo (± SE over $draws draws) | Gap | Command (column) |"
	echo "| --- | --- | --- | --- | --- | --- |"
	# RRect §6: shortest available paths, as the paper measures them
	point "RRect 8a" "RRect(8,2,4) APL, 30% servers failed" 4.3754 1 shortest_apl \
		rrect:n=8,m=2,k=4 --no-routed --fail-servers 0.3:0.3:1
	point "RRect 8a" "BCube(8,4) APL, 30% servers failed" 4.3953 1 shortest_apl \
		bcube:n=8,k=4 --no-routed --fail-servers 0.3:0.3:1
	point "RRect 8b" "RRect(8,2,4) APL, 30% links failed" 4.4035 1 shortest_apl \
		rrect:n=8,m=2,k=4 --no-routed --fail-links 0.3:0.3:1
	point "RRect 8b" "BCube(8,4) APL, 30% links failed" 4.5859 1 shortest_apl \
		bcube:n=8,k=4 --no-routed --fail-links 0.3:0.3:1
	# Fig. 9 counts servers, not pairs
	point "RRect 9" "RRect(8,2,4) lost servers (%), 30% links" 0.25 100 lost_servers \
		rrect:n=8,m=2,k=4 --no-routed --fail-links 0.3:0.3:1
	point "RRect 9" "BCube(8,4) lost servers (%), 30% links" 0.25 100 lost_servers \
		bcube:n=8,k=4 --no-routed --fail-links 0.3:0.3:1
	# Totoro §4.1 prints four numbers of Fig. 3, Totoro_2 (16,16,2); SP
	# "always finds a path if it exists": the pairs the failures
	# disconnect, counted over every pair
	# A sampled source cut off makes all its pairs fail: the few such
	# sources make the sampled share noisy, so four times the sources,
	# for Totoro's Fig. 3 and NovaCube's Fig. 12 (walks are sampled too).
	local r sources=$((sources * 4))
	for r in 0.08:0.21:0.05 0.16:0.43:0.11; do
		local x=${r%%:*} rest=${r#*:}
		point "Totoro 3" "TFR as printed, path failure ratio, $x links" \
			"${rest%%:*}" 1 routed_unreachable totoro:N=16,n=16,K=2 \
			--algo tfr-literal --fail-links "$x:$x:1"
		point "Totoro 3" "TFR, path failure ratio, $x links" \
			"${rest%%:*}" 1 routed_unreachable totoro:N=16,n=16,K=2 \
			--algo tfr --fail-links "$x:$x:1"
		point "Totoro 3" "SP, path failure ratio, $x links" \
			"${rest#*:}" 1 disconnected_pairs totoro:N=16,n=16,K=2 \
			--no-routed --fail-links "$x:$x:1"
	done
	# NovaCube §8.4 draws Fig. 12 without numbers: APL rises with failures
	local nc
	for nc in "links 0" "links 0.2" "servers 0.2"; do
		set -- $nc
		versus "NovaCube 12" "PORA APL, $2 $1 failed" "rises with failures" \
			routed_apl shortest_apl novacube:k=8,n=3 --fail-$1 "$2:$2:1"
		versus "NovaCube 12" "torus DOR APL, $2 $1 failed" "rises, above NovaCube" \
			routed_apl shortest_apl torus:k=8,n=3 --fail-$1 "$2:$2:1"
	done
	sources=$((sources / 4))
	# Totoro Figs. 2, 4, 5 give claims, not numbers: TFR against SP
	versus "Totoro 2" "Totoro_2 (16,16,2), 10% servers: TFR vs SP" "TFR almost identical to SP" \
		routed_unreachable disconnected_pairs totoro:N=16,n=16,K=2 --algo tfr \
		--fail-servers 0.1:0.1:1
	versus "Totoro 4" "Totoro_1 (48,48,1), 10% switches: TFR vs SP" "TFR almost as well as SP" \
		routed_unreachable disconnected_pairs totoro:N=48,n=48,K=1 --algo tfr \
		--fail-switches 0.1:0.1:1
	versus "Totoro 4" "Totoro_2 (16,16,2), 10% switches: TFR vs SP" "gap grows with the ratio" \
		routed_unreachable disconnected_pairs totoro:N=16,n=16,K=2 --algo tfr \
		--fail-switches 0.1:0.1:1
	versus "Totoro 5" "Totoro_1 (48,48,1), 10% racks: TFR vs SP" "TFR very close to SP" \
		routed_unreachable disconnected_pairs totoro:N=48,n=48,K=1 --algo tfr \
		--fail-racks 0.1:0.1:1
	# LaScaDa §VI: connection failure rate, 2048 nodes, 24% links
	point "LaScaDa 20" "CFR (%), MaxLifeTime 6, 24% links" 10.41 100 routed_unreachable \
		lascada:n=8,k=2 --max-life 6 --fail-links 0.24:0.24:1
	point "LaScaDa 20" "CFR (%), MaxLifeTime 5, 24% links" 16.84 100 routed_unreachable \
		lascada:n=8,k=2 --max-life 5 --fail-links 0.24:0.24:1
	point "LaScaDa 20" "CFR (%), MaxLifeTime 6, no failure" 0 100 routed_unreachable \
		lascada:n=8,k=2 --max-life 6 --fail-links 0:0:1
	point "LaScaDa 20" "shortest paths (%), 24% links" 10.41 100 disconnected_pairs \
		lascada:n=8,k=2 --no-routed --fail-links 0.24:0.24:1
	} | tee "$md"
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
	points) # the numbers the papers print, beside ours
		rm -f "$csv"
		csv="$out/points.md"
		points "$csv" ;;
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
