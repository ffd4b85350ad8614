#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build a fuzz target with clang (libFuzzer, ASan, UBSan) and run it for a
# bounded time from its seed corpus. Skips (77) without clang's libFuzzer.
#   tests/fuzz/run.sh TARGET SECONDS [BUILD_DIR]
set -u
target=${1:?usage: run.sh TARGET SECONDS}
secs=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v clang >/dev/null || { echo "SKIP: clang is not installed"; exit 77; }
srcs=("$root"/lib/topo/*.c "$root"/lib/route/*.c "$root"/lib/fabric/*.c)
incs=(-I"$root/lib/topo" -I"$root/lib/route" -I"$root/lib/fabric")
libs=()
if [ "$target" = conf ]; then
	# The loader reads its file with DPDK's rte_cfgfile.
	pkg-config --exists libdpdk || { echo "SKIP: libdpdk-dev is not installed"; exit 77; }
	# ... and the fabric key with libsodium.
	srcs+=("$root"/lib/conf/*.c "$root"/lib/auth/*.c)
	incs+=(-I"$root/lib/conf" -I"$root/lib/auth" $(pkg-config --cflags libdpdk libsodium))
	libs+=($(pkg-config --libs libdpdk libsodium))
fi
if ! clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined "${incs[@]}" "${srcs[@]}" \
	"$here/fuzz_$target.c" "${libs[@]}" -lm -o "$work/fuzz" 2>"$work/cc.log"; then
	if grep -q -e "fuzzer" -e "libclang_rt" "$work/cc.log"; then
		echo "SKIP: clang's libFuzzer runtime is missing"
		exit 77
	fi
	cat "$work/cc.log"
	exit 1
fi
mkdir "$work/corpus"
cp "$here/corpus/$target/"* "$work/corpus/" 2>/dev/null
"$work/fuzz" -max_total_time="$secs" -print_final_stats=1 -detect_leaks=1 \
	-artifact_prefix="$work/" "$work/corpus" >"$work/run.log" 2>&1
rc=$?
grep -E "^stat::number_of_executed_units|^Done" "$work/run.log"
if [ $rc -ne 0 ]; then
	tail -40 "$work/run.log"
	for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -e "$a" ] && { echo "reproducer:"; od -A x -t x1z "$a" | head -20; }
	done
	exit 1
fi
echo "fuzz $target: no crash in ${secs}s"
