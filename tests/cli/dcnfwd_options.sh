#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dcnfwd's run options that cannot go together, or times a run cannot
# keep: each refused with exit 2 and a message that names it, before any
# frame is sent; a worker lcore missing from -l refused by name; and no
# start-up noise from DPDK's telemetry.
set -u
BIN=${1:?usage: dcnfwd_options.sh path/to/dcnfwd}
prefix=dcn-opts-$$
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT
fails=0

# refused PATTERN RUN-ARGS...: exit 2, stderr says PATTERN.
refused() {
	local pat=$1 err rc
	shift
	err=$("$BIN" -l 0-1 --no-huge -m 256 --no-pci --log-level=3 \
		--file-prefix="$prefix" -- --emulate rrect:n=2,m=2,k=1 "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "$pat" <<<"$err"; then
		echo "ok   $*: $(grep -- "$pat" <<<"$err" | head -1)"
	else
		echo "FAIL $*: exit $rc: $err"
		fails=$((fails + 1))
	fi
}

refused "--unplug-at 12 is not before the end of the run (--duration 10)" \
	--unplug busiest --unplug-at 12
refused "--unplug-at 4 is not before the end of the run (--duration 4)" \
	--duration 4 --unplug busiest --unplug-at 4
refused "--replug-at 2 is not between the unplug (3 s)" \
	--unplug busiest --unplug-at 3 --replug-at 2
refused "--replug-at 11 is not between" --unplug busiest --replug-at 11
refused "--pairs traces the fabric as it stands, with no --unplug" \
	--unplug busiest --pairs 1
refused "--flaps and --replug-at need --unplug" --replug-at 5
# No noise at start: DPDK's telemetry line about its legacy socket
# (at warning level, every start) is not in a relay's log.
out=$("$BIN" -l 0-1 --no-huge -m 1024 --no-pci --file-prefix="$prefix" -- \
	--emulate rrect:n=2,m=2,k=1 --duration 0.3 --stats 0 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && ! grep -q "^TELEMETRY:" <<<"$out"; then
	echo "ok   a start says nothing of telemetry's legacy socket"
else
	echo "FAIL a start's log: exit $rc: $(grep TELEMETRY <<<"$out")"
	fails=$((fails + 1))
fi
rm -rf "/var/run/dpdk/$prefix"

# A configuration's worker on an lcore EAL was not given (-l): refused,
# the lcore named, before any port starts.
dir=$(mktemp -d)
sed -e 's/^lcore = 1/lcore = 3/' -e "s|socket=/tmp/|socket=$dir/|" \
	"$(dirname "$0")/../../conf/pktgen-relay.ini" > "$dir/relay.ini"
err=$("$BIN" -l 0-1 --no-huge -m 256 --no-pci --log-level=3 --file-prefix="$prefix" -- \
	--config "$dir/relay.ini" 2>&1 >/dev/null)
rc=$?
if [ "$rc" -ne 0 ] && grep -q "relay.ini: \[worker\] lcore 3 is not in EAL's lcore list (-l)" <<<"$err" &&
   ! ls "$dir"/*.sock >/dev/null 2>&1; then
	echo "ok   worker on lcore 3 with -l 0-1: $(grep -m1 'lcore 3' <<<"$err")"
else
	echo "FAIL worker on lcore 3 with -l 0-1: exit $rc: $err"
	fails=$((fails + 1))
fi
rm -rf "$dir"
exit $((fails > 0))
