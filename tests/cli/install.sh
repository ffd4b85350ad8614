#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# meson install into a scratch root puts every file where the README says
# (programs, the XDP program, example configurations, the service unit),
# the installed dcnfwd runs and accepts an installed example, and
# systemd-analyze verify accepts an instance of the unit, and every
# program has a manual page that man shows.
#   install.sh BUILD_DIR PREFIX BINDIR DATADIR SYSCONFDIR XDP(0|1) MANDIR
set -u
build=$1 prefix=$2 bindir=$3 datadir=$4 sysconfdir=$5 xdp=$6 mandir=$7
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail=0
check() { # what, command...
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
abs() { case $1 in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }
bin=$root$(abs "$bindir") share=$root$(abs "$datadir")/dcnfwd
units=$root$prefix/lib/systemd/system

if ! meson install -C "$build" --destdir "$root" --no-rebuild --quiet >"$root.log" 2>&1; then
	cat "$root.log"; rm -f "$root.log"
	echo "FAIL meson install --destdir"
	exit 1
fi
rm -f "$root.log"
for p in dcnfwd dcn-topo dcn-gen dcn-fcview dcn-fabric dcn-plan dcn-exporter dcn-telemetry dcn-pktgen dcn-host-if pktgen-relay; do
	check "$bin/$p installed, executable" test -x "$bin/$p"
done
man1=$root$(abs "$mandir")/man1
for p in dcnfwd dcn-topo dcn-gen dcn-fcview dcn-fabric dcn-plan dcn-exporter dcn-telemetry dcn-pktgen dcn-host-if pktgen-relay; do
	check "manual page $p.1 in $man1" test -s "$man1/$p.1"
done
if command -v man >/dev/null; then
	# What man shows is the program's own --help.
	page=$(MANWIDTH=100 man -l "$man1/dcnfwd.1" 2>&1)
	check "man shows dcnfwd(1): its name, its options" \
		sh -c 'echo "$1" | grep -q "dcnfwd - one node of a data-center fabric" &&
		       echo "$1" | grep -q -- "--check-config FILE"' _ "$page"
	page=$(MANWIDTH=100 man -l "$man1/dcn-plan.1" 2>&1)
	check "man shows dcn-plan(1) with its --prefix" \
		sh -c 'echo "$1" | grep -q -- "--prefix NET/LEN"' _ "$page"
fi
if [ "$xdp" = 1 ]; then
	check "XDP program in $share" test -s "$share/dcn_xdp_prog.bpf"
fi
n=$(ls "$share/conf/"*.ini 2>/dev/null | wc -l)
check "example configurations in $share/conf ($n)" test "$n" -ge 8
check "service unit in $units" test -s "$units/dcnfwd@.service"
check "Wireshark dissector in $share/wireshark" test -s "$share/wireshark/dcnfwd.lua"
check "Grafana dashboard in $share/grafana" test -s "$share/grafana/dcnfwd.json"
check "Prometheus alerts in $share/prometheus" test -s "$share/prometheus/dcnfwd-alerts.yml"
docs=$root$(abs "$datadir")/doc/dcnfwd
n=$(ls "$docs/doc/"*.md 2>/dev/null | wc -l)
check "the guides in $docs/doc ($n), where README.md links them" test "$n" -ge 8
# Every relative link of the installed docs finds its file.
links=$(python3 - "$docs" <<'PY'
import os, re, sys
root, n, bad = sys.argv[1], 0, []
for d, _, files in os.walk(root):
    for f in (f for f in files if f.endswith(".md")):
        p = os.path.join(d, f)
        with open(p) as fh:
            text = re.sub(r"```.*?```", "", fh.read(), flags=re.S)
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            t = m.group(1)
            if re.match(r"^[a-z]+:", t) or t.startswith("#"):
                continue
            n += 1
            if not os.path.exists(os.path.join(d, t.split("#")[0])):
                bad.append("%s: %s" % (os.path.relpath(p, root), t))
print("%d relative links, %d broken%s" % (n, len(bad), "".join("; " + b for b in bad[:5])))
PY
)
check "installed docs: $links" sh -c 'echo "$1" | grep -q "[1-9][0-9]* relative links, 0 broken"' _ "$links"
if [ "$xdp" = 1 ]; then
	# An installed dcnfwd loads the installed XDP program, never the
	# build tree's (which may be gone, or of another version).
	help=$("$bin/dcnfwd" --help)
	check "installed dcnfwd's XDP program is the installed one" \
		sh -c "echo \"\$1\" | grep -q 'XDP program of net_af_xdp ports (--xdp-prog): $(abs "$datadir")/dcnfwd/dcn_xdp_prog.bpf' &&
		       ! echo \"\$1\" | grep -q '$(cd "$build" && pwd)'" _ "$help"
fi
check "installed dcn-pktgen finds the installed dcn-gen and dcn-topo" \
	sh -c "'$bin/dcn-pktgen' pkt novacube:k=4,n=2 '(1,0)' --out '$root/x.pkt' >/dev/null 2>&1 && test -s '$root/x.pkt'"
check "exporter unit in $units" test -s "$units/dcn-exporter.service"
# pktgen-relay installed knows where install put its pieces: the copy in
# the scratch root, its paths moved there, finds every one.
relay=$root/pktgen-relay
sed "s|'$prefix/|'$root$prefix/|g" "$bin/pktgen-relay" > "$relay"
out=$(bash "$relay" --check 2>&1)
check "installed pktgen-relay finds its pieces: $out" \
	sh -c 'echo "$1" | grep -q "$2/share/dcnfwd/pktgen/rate-steps.lua" &&
	       ! echo "$1" | grep -q "$3"' _ "$out" "$root$prefix" "$(cd "$build" && pwd)"
check "installed dcnfwd --help" sh -c "'$bin/dcnfwd' --help >/dev/null"
check "installed dcnfwd accepts an installed example" \
	sh -c "'$bin/dcnfwd' --check-config '$share/conf/novacube-relay.ini' >/dev/null"
check "installed dcn-plan writes a fabric's configurations with the installed dcn-topo" \
	sh -c "'$bin/dcn-plan' rrect:n=2,m=2,k=1 --out '$root/plan' --no-picture >/dev/null &&
	       '$bin/dcnfwd' --check-config '$root/plan/relay-00.ini' >/dev/null"
etc=$(abs "$sysconfdir")
check "the unit runs $bindir/dcnfwd on $etc/dcnfwd/%i.ini" \
	grep -q "^ExecStart=$(abs "$bindir")/dcnfwd .*--config $etc/dcnfwd/%i.ini" "$units/dcnfwd@.service"
if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: systemd-analyze is not installed (the unit was not verified)"
	exit 77
fi
# An instance of the template, its programs where they were installed.
inst=$root/dcnfwd@relay0.service
sed "s|$(abs "$bindir")/|$bin/|g" "$units/dcnfwd@.service" >"$inst"
out=$(systemd-analyze verify --man=no "$inst" 2>&1)
check "systemd-analyze verify accepts it${out:+: $out}" test -z "$out"
inst=$root/dcn-exporter.service
sed "s|$(abs "$bindir")/|$bin/|g" "$units/dcn-exporter.service" >"$inst"
out=$(systemd-analyze verify --man=no "$inst" 2>&1)
check "systemd-analyze verify accepts the exporter's unit${out:+: $out}" test -z "$out"
exit $fail
