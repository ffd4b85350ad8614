#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A 512-node fabric emulates in one process: its rings (about 7,700, a
# cable direction and a port each) do not run into DPDK's memzone limit,
# traffic crosses it, nothing is dropped inside, nothing leaks; with too
# little memory the error says what to give, in dcnfwd's words.
# Its one worker is saturated (20,000 frames/s from each of 512 hosts,
# more than it can step): no link is declared down for all that, every
# control frame is made and sent (hellos and credits have their own
# mbufs), and a worker's long loop is not a neighbour's silence.
# Usage: emulate_large.sh DCNFWD
set -u
DCNFWD=$1
SPEC=novacube:k=8,n=3
prefix=dcn-large-$$
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"; rm -rf "/var/run/dpdk/$prefix" "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix"' EXIT
fail=0
run() {
	"$DCNFWD" -l 0-1 --no-huge -m "$1" --no-pci --log-level=4 \
		--file-prefix="$prefix" -- --emulate "$SPEC" --duration 1 \
		--rate 20000 --json > "$out" 2> "$err"
}

run 2560
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: $SPEC exits $rc:"; tail -5 "$err"; fail=1
else
	python3 - "$out" <<'PY' || fail=1
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
rep = next(l for l in lines if "topology" in l)
ex = next(l["exit"] for l in lines if "exit" in l)
# Delivery, not its completeness: one worker steps 512 nodes, and on a
# loaded machine the end of the run may come before the last frames do
# (the emulated-fabric tests hold zero loss on fabrics one core can run).
ok = (rep["received"] > rep["sent"] // 2 and rep["fabric_drops"] == 0
      and rep["link_downs"] == 0 and rep["control_unsent"] == 0
      and ex["mbufs_leaked"] == 0 and ex["memzones_left"] == 0)
print("%s 512 nodes: sent %d received %d lost %d fabric drops %d %s, links "
      "down %d (heard after %d), control frames unsent %d, credit frames "
      "lost %d, mbufs leaked %d, memzones left %d" % (
      "ok  " if ok else "FAIL", rep["sent"], rep["received"], rep["lost"],
      rep["fabric_drops"], rep["fabric_drops_by_reason"], rep["link_downs"],
      rep["silence_heard"], rep["control_unsent"], rep["credit_frames_lost"],
      ex["mbufs_leaked"], ex["memzones_left"]))
sys.exit(0 if ok else 1)
PY
fi

run 1024
rc=$?
if [ $rc -eq 0 ]; then
	echo "FAIL: $SPEC ran in 1024 MB (the test expects it not to fit)"; fail=1
elif ! grep -q "give EAL more memory" "$err" || grep -q "RTE_MAX_MEMZONE\|memzone_reserve" "$err"; then
	echo "FAIL: too little memory is not said in dcnfwd's words:"; tail -5 "$err"; fail=1
else
	echo "ok   in 1024 MB: $(grep 'give EAL more memory' "$err" | head -1)"
fi
exit $fail
