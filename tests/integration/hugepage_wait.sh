#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A relay started again while the process it replaces still holds its
# hugepages (a unit's Restart=, dcn-fabric start) waits for them, saying
# so, and runs; one that asks more than is reserved fails at once with
# the figures (free, reserved, asked). Reserves 2 MB pages of its own for
# the test and gives back exactly those; free pages the machine already
# had are held for the test's length.
# Usage: hugepage_wait.sh DCNFWD
set -u
DCNFWD=$1
NR=/proc/sys/vm/nr_hugepages
[ -w "$NR" ] || { echo "SKIP: cannot reserve hugepages (not root?)"; exit 77; }
old=$(cat "$NR")
want=$((old + 150))   # 300 MB: room for one relay of -m 200, not for two
echo "$want" > "$NR"
if [ "$(cat "$NR")" -lt "$want" ]; then
	echo "$old" > "$NR"
	echo "SKIP: the kernel gave fewer hugepages than asked"; exit 77
fi
dir=$(mktemp -d)
pa=hpw-a-$$ pb=hpw-b-$$ pc=hpw-c-$$
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	umount "$dir/huge" 2>/dev/null
	for h in "$dir"/hold-*; do
		[ -d "$h" ] || continue
		rm -f "$h/held"; umount "$h" 2>/dev/null
	done
	echo "$old" > "$NR"
	rm -rf "$dir"
	for p in "$pa" "$pb" "$pc"; do rm -rf "/var/run/dpdk/$p"; done
}
trap cleanup EXIT
# A hugetlbfs of the test's own, as dcn-fabric mounts one per fabric.
mkdir "$dir/huge"
mount -t hugetlbfs -o pagesize=2M nodev "$dir/huge" ||
	{ echo "SKIP: cannot mount hugetlbfs"; exit 77; }
# Free pages the machine already had are held by files of the test's
# own (given back at the end), so that the 300 MB are all that is free.
for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
	kb=${d##*hugepages-}; kb=${kb%kB}
	hold=$(cat "$d/free_hugepages")
	[ "$kb" = 2048 ] && hold=$((hold - 150))
	[ "$hold" -gt 0 ] || continue
	mkdir "$dir/hold-$kb"
	mount -t hugetlbfs -o pagesize="${kb}K" nodev "$dir/hold-$kb" &&
		fallocate -l "$((hold * kb))K" "$dir/hold-$kb/held" ||
		{ echo "SKIP: cannot hold the machine's free ${kb} kB pages"; exit 77; }
	echo "     holding $hold free pages of $kb kB the machine had"
done
fail=0
run() { # prefix mb seconds
	"$DCNFWD" -l 0-1 --huge-dir "$dir/huge" -m "$2" --no-pci --log-level=4 --file-prefix="$1" -- \
		--emulate novacube:k=4,n=1 --duration "$3" --rate 100 \
		--flow-control no --json
}
# The first holds 200 MB for 3 s; the second, started once the first
# holds them (at most 10 s on: a busy machine may take a while to map
# them), needs them.
run "$pa" 200 3 > "$dir/a.out" 2> "$dir/a.err" &
pid=$!
free2m=/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages
for _ in $(seq 100); do
	[ "$(cat "$free2m")" -le 50 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
# Its prefix again, while it runs: EAL stops on the runtime directory's
# lock with no errno; dcnfwd names the process that holds it.
run "$pa" 20 1 > /dev/null 2> "$dir/dup.err"
named=$(grep -o "another DPDK primary process (pid [0-9]*) runs with --file-prefix=$pa" \
	"$dir/dup.err" | grep -o '[0-9]*' | head -1)
# The relay the first run started (a child of the shell that runs it).
if [ -n "$named" ] && [ "$(ps -o ppid= -p "$named" | tr -d ' ')" = "$pid" ]; then
	echo "ok   the same prefix again: $(grep 'EAL init failed' "$dir/dup.err")"
else
	echo "FAIL: the same prefix again:"; tail -3 "$dir/dup.err"; fail=1
fi
DCNFWD_HUGEPAGE_WAIT_MS=15000 run "$pb" 200 1 > "$dir/b.out" 2> "$dir/b.err"
rc=$?
wait "$pid"; rca=$?; pid=
if [ $rca -ne 0 ]; then
	echo "FAIL: the first relay exits $rca:"; tail -3 "$dir/a.err"; fail=1
elif [ $rc -ne 0 ]; then
	echo "FAIL: the relay started again exits $rc:"; tail -5 "$dir/b.err"; fail=1
elif ! grep -q "waiting up to 15000 ms for 200 MB of free hugepages" "$dir/b.err"; then
	echo "FAIL: no word of the wait:"; tail -5 "$dir/b.err"; fail=1
else
	echo "ok   started again while the pages were held: it waited, said so, and ran"
	grep "dcnfwd:.*hugepages" "$dir/b.err" | sed 's/^/     /'
fi
# More than is reserved, of every page size (a machine may hold free
# pages of its own): no wait, the figures in the error.
reserved=0
for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
	kb=${d##*hugepages-}; kb=${kb%kB}
	reserved=$((reserved + $(cat "$d/nr_hugepages") * kb / 1024))
done
big=$((reserved + 512))
run "$pc" "$big" 1 > /dev/null 2> "$dir/c.err"
rc=$?
if [ $rc -eq 0 ]; then
	echo "FAIL: $big MB asked of $reserved MB reserved, and it ran"; fail=1
elif ! grep -q "hugepages: [0-9]* MB free of [0-9]* MB reserved, -m asked $big MB" "$dir/c.err"; then
	echo "FAIL: the error does not give the figures:"; tail -3 "$dir/c.err"; fail=1
else
	echo "ok   asked more than reserved: $(grep 'EAL init failed' "$dir/c.err")"
fi
exit $fail
