#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Turn the CSV files of paper-curves.sh into PNG plots with gnuplot:
#   tools/figures/plot-curves.sh DIR
# One PNG per CSV: each curve (spec and algorithm) a line, the failure
# ratio on x; y is what the paper plots for that figure, with its
# standard error over the draws as error bars.
set -euo pipefail
dir=${1:?usage: plot-curves.sh DIR}
command -v gnuplot >/dev/null || { echo "plot-curves: gnuplot is not installed (tools/install-deps.sh)" >&2; exit 1; }

# Columns of the CSV each figure plots (value:standard error), and
# their labels; the columns are dcn-topo sweep's.
ycol() {
	case $1 in
	novacube-fig12) echo "10:17 routed APL;11:18 shortest APL" ;;
	rrect-fig8a | rrect-fig8b) echo "11:18 APL (shortest available path)" ;;
	rrect-fig9) echo "19:20 lost servers (share of servers)" ;;
	totoro-fig*) echo "8:15 path failure ratio;21:22 SP path failure ratio (pairs disconnected)" ;;
	lascada-fig20) echo "8:15 connection failure rate" ;;
	*) echo "8:15 routed unreachable;21:22 disconnected pairs" ;;
	esac
}

for csv in "$dir"/*.csv; do
	[ -s "$csv" ] || continue
	name=$(basename "$csv" .csv)
	png="$dir/$name.png"
	plots=""
	IFS=';' read -ra cols <<<"$(ycol "$name")"
	# One data block per curve: spec, algorithm, kind, MaxLifeTime.
	keys=$(tail -n +2 "$csv" | awk -F, '!seen[$1","$2","$3","$4]++ {print $1","$2","$3","$4}')
	n=0
	while IFS=, read -r spec algo kind mlt; do
		[ -n "$spec" ] || continue
		n=$((n + 1))
		# Each curve to its own file, so gnuplot needs no filtering.
		awk -F, -v s="$spec" -v a="$algo" -v k="$kind" -v m="$mlt" \
			'$1==s && $2==a && $3==k && $4==m' "$csv" >"$dir/.$name.$n.dat"
		tag="$spec $algo $kind"
		[ "$mlt" = 0 ] || tag+=" MaxLifeTime $mlt"
		for c in "${cols[@]}"; do
			col=${c%% *}
			label=${c#* }
			plots+="'$dir/.$name.$n.dat' using 5:$col with yerrorlines title '$tag: $label',"
		done
	done <<<"$keys"
	gnuplot <<GP
set datafile separator ","
set terminal pngcairo size 900,700 noenhanced
set output "$png"
set title "$name"
set xlabel "failure ratio"
set key below
set format x "%.2f"
set grid
plot ${plots%,}
GP
	rm -f "$dir/.$name".*.dat
	echo "$png"
done
