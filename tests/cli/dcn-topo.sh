#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dcn-topo as a user runs it: exit codes, clear errors, stable JSON fields.
set -u
BIN=${1:?usage: dcn-topo.sh path/to/dcn-topo}
fails=0

check() { # description, command...
	local what=$1
	shift
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what"
		fails=$((fails + 1))
	fi
}

# expect_fail CODE PATTERN ARGS...: exits CODE, stderr matches PATTERN.
expect_fail() {
	local code=$1 pat=$2 err rc
	shift 2
	err=$("$BIN" "$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq "$code" ] && grep -q -- "$pat" <<<"$err" || {
		echo "     got exit $rc: $err"
		return 1
	}
}

# says PATTERN ARGS...: exits 0, and says PATTERN on stderr.
says() {
	local pat=$1 err rc
	shift
	err=$("$BIN" "$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" -eq 0 ] && grep -q -- "$pat" <<<"$err" || {
		echo "     got exit $rc: $err"
		return 1
	}
}

has_fields() { # json, fields...
	local json=$1 f
	shift
	for f in "$@"; do
		grep -q "\"$f\":" <<<"$json" || { echo "     missing $f"; return 1; }
	done
}

check "unknown topology" expect_fail 2 "unknown topology 'hypercube'" stats hypercube:k=4
check "missing parameter" expect_fail 2 "missing parameter 'm'" stats rrect:n=4,k=1
check "diamond k not multiple of 4" expect_fail 2 "multiple of 4" stats diamond:k=10
check "out of range" expect_fail 2 "out of range" info novacube:k=40,n=2
check "bad node" expect_fail 2 "out of range" route rrect:n=4,m=2,k=1 00 99
check "node not in fabric" expect_fail 2 "not in" route lascada:n=4,k=2 10.9.9.9 "(1,1)"
check "paths on non-RRect" expect_fail 2 "is not RRect" paths diamond:k=4 10.1.1.2 10.2.1.2
check "switch has no table" expect_fail 2 "does not route" table rrect:n=4,m=2,k=1 '#32'
check "unknown command" expect_fail 2 "unknown command" frobnicate novacube:k=4,n=2
check "bad option value" expect_fail 2 "whole number" --sample x stats novacube:k=4,n=2
quiet() { "$@" >/dev/null; }
check "help" quiet "$BIN" --help

json=$("$BIN" --json stats rrect:n=4,m=2,k=2)
check "stats --json fields" has_fields "$json" servers switches links diameter apl \
	routed_apl routed_max unreachable histogram
check "stats path measures have three units" \
	grep -q '"apl": {"links": [0-9.]*, "server_hops": [0-9.]*, "switches": [0-9.]*}' <<<"$json"
check "stats counts" grep -q '"servers": 128,' <<<"$json"
# Diamond's routes cross no server between the ends: no server-hop figure.
json=$("$BIN" --json stats diamond:k=4)
check "diamond stats have no server hops" \
	grep -q '"apl": {"links": [0-9.]*, "server_hops": null, "switches": [0-9.]*}' <<<"$json"
# Graph figures of any Totoro, though TRA needs N a multiple of 2^K.
check "totoro graph figures without routing" quiet "$BIN" --no-routed stats totoro:N=6,n=6,K=2
check "totoro routing refuses N not a multiple of 2^K" expect_fail 1 "multiple of 2^K" stats totoro:N=6,n=6,K=2
# RRect's redundancy modes serve more address pairs than none, at 10%
# server failures: the mirror or woken standby answers, and relays.
served_share() { # mode
	"$BIN" --json --seed 3 --fail-servers 10% ${1:+--rrect-mode $1} \
		stats rrect:n=4,m=2,k=2 | sed -n 's/.*"served":.*"share": \([0-9.]*\).*/\1/p'
}
more_served() { # mode
	local none=$(served_share) with=$(served_share "$1")
	awk -v a="$none" -v b="$with" 'BEGIN { exit !(b > a + 0.05) }' || {
		echo "     none $none, $1 $with"; return 1; }
}
check "mirror mode serves a larger share than none" more_served mirror
check "standby mode serves a larger share than none" more_served standby
# TRA has no failure rule: refused with TFR named.
out=$("$BIN" --algo tra --fail-links '[0,1]:0' route totoro:N=4,n=4,K=1 '[0,0]' '[0,1]' 2>&1)
check "tra refuses failures, naming tfr" grep -q "give tfr" <<<"$out"

out=$("$BIN" route rrect:n=4,m=2,k=1 00 37)
check "route prints hops with ports" grep -q "port 0 .*switch" <<<"$out"
check "route length" grep -q "length: 4 links, 2 server hops, 2 switches" <<<"$out"

out=$("$BIN" paths rrect:n=4,m=2,k=2 000 025)
check "paths: Alg. 2 example" grep -q "000 -> 100 -> 120 -> 125 -> 025" <<<"$out"

out=$("$BIN" table diamond:k=4 E11)
check "FAR BRT in the paper's format" grep -q "10.0.3.0/255.0.255.0.*10.1.3.1" <<<"$out"
check "FAR BRT size" grep -q "(9 entries)" <<<"$out"
# Under failures the BRT in force: entries over a dead cable removed.
out=$("$BIN" --fail-links 'E1.2~E1.3;E1.2~E1.4' table diamond:k=4 E1.2)
check "FAR BRT under failures: 8 entries removed, the core's kept" \
	test "$(grep -c 'removed: cable down' <<<"$out")" -eq 8 -a \
	"$(grep -c '10.0.0.0/255.0.0.0	10.0.2.1	1$' <<<"$out")" -eq 1
json=$("$BIN" --json --fail-links 10% stats rrect:n=4,m=2,k=1)
check "exact stats have no standard error" \
	test "$(grep -cE '"exact": true,|"routed_apl_se": 0,' <<<"$json")" -eq 2
check "--vcs above the rule is said" says "the VC rule of rrect takes 3" \
	--vcs 20 cdg rrect:n=4,m=2,k=1
check "a VC rule past the header is said" says "asks 18 VCs" \
	--algo dor --sample 2 cdg novacube:k=4,n=6

json=$("$BIN" --json --limit 3 table totoro:N=4,n=4,K=1 '[0,1]')
check "table --json" has_fields "$json" form bytes sets entries

out=$("$BIN" dot lascada:n=2,k=2)
check "dot" grep -q -- "-- " <<<"$out"
check "dot refuses big fabrics" expect_fail 2 "up to 2000" dot bcube:n=8,k=4

# cables: every link once, with both ports; every vertex with its role.
for spec in diamond:k=4 totoro:N=4,n=4,K=1; do
	out=$("$BIN" cables $spec)
	links=$("$BIN" --json info $spec | sed -n 's/.*"links": \([0-9]*\).*/\1/p')
	check "cables: $spec has $links" test "$(grep -c '^cable ' <<<"$out")" = "$links"
done
out=$("$BIN" cables diamond:k=4)
check "cables: edge switch routes" grep -q '^vertex 16 E1.1 edge 1 10.1.1.1$' <<<"$out"
check "cables: server to its edge" grep -q '^cable 0 0 16 3$' <<<"$out"

json=$("$BIN" --json info lascada:n=4,k=2)
check "info: LCM row" grep -q '"l1": \[1, 2, 4, 8\]' <<<"$json"

# The address plan: its network, whether private, the covering route.
info=$("$BIN" info novacube:k=8,n=2)
check "info: NovaCube's own plan is public space" \
	grep -q "^prefix     128.0.0.0/2 (public space: prefix= in the spec moves it)" <<<"$info"
json=$("$BIN" --json info novacube:k=8,n=2,prefix=10.77.0.0/16)
check "info: a moved plan, private, routed by its /26" grep -q \
	'"prefix": "10.77.0.0/16",.*"prefix_private": true,.*"route": "10.77.0.0/26"' <<<"$(tr -d '\n' <<<"$json")"
check "a prefix too small names the bits" expect_fail 2 "needs 6 address bits" \
	info novacube:k=8,n=2,prefix=10.0.0.0/27
check "a node by its moved address" grep -q "(1,2)" \
	<<<"$("$BIN" route novacube:k=8,n=2,prefix=10.77.0.0/16 "(0,0)" 10.77.0.10)"

# Failures.
out=$("$BIN" --fail-links 'C11~E41' route diamond:k=4 10.1.1.2 10.4.3.2)
check "FAR worked example detours via E1.3" grep -q "E1.1 .*-> E1.3" <<<"$out"
out=$("$BIN" --fail-links 'C11~E41' table diamond:k=4 E11)
check "NRT printed" grep -q "10.4.0.0/255.255.0.0.10.0.1.1" <<<"$out"
json=$("$BIN" --json --fail-links 10% --sample 4 stats rrect:n=4,m=2,k=2)
check "stats --json with failures" has_fields "$json" failed pairs unreachable
check "unreachable shares" grep -q '"unreachable": {"routed": [0-9.e-]*, "shortest": [0-9.e-]*}' <<<"$json"
check "bad failure list" expect_fail 2 "not neighbours" --fail-links '00~37' stats rrect:n=4,m=2,k=1
check "bad failure ratio" expect_fail 2 "range is for sweep" --fail-links 0:0.2:0.1 stats rrect:n=4,m=2,k=1
check "no racks in NovaCube" expect_fail 2 "has none to fail" --fail-racks 10% stats novacube:k=4,n=2
out=$("$BIN" --rrect-mode mirror --fail-servers 01 route rrect:n=4,m=2,k=1 03 01)
check "mirror takes over" grep -q "05 answers for it" <<<"$out"
csv=$("$BIN" --sample 2 --fail-links 0:0.2:0.1 sweep rrect:n=4,m=2,k=1)
check "sweep CSV" grep -q '^rrect:n=4 m=2 k=1,rrect,links,0,0.2000,' <<<"$csv"
check "sweep needs a range" expect_fail 2 "sweep needs" sweep rrect:n=4,m=2,k=1
check "sweep refuses NaN" expect_fail 2 "sweep needs" --fail-links nan:1:0.1 sweep rrect:n=4,m=2,k=1
check "sweep refuses a step that never ends" expect_fail 2 "1000000001 ratios, more than 1000" \
	--fail-links 0:1:1e-9 sweep rrect:n=4,m=2,k=1
check "sweep refuses an infinite step" expect_fail 2 "sweep needs" --fail-links 0:1:inf sweep rrect:n=4,m=2,k=1
check "a NaN ratio is refused" expect_fail 2 "" --fail-links nan% stats rrect:n=4,m=2,k=1

if [ "$fails" -ne 0 ]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "all dcn-topo checks passed"
