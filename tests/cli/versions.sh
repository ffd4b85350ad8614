#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every program says its release with --version, the project's (meson's),
# exit 0, without starting EAL or needing root.
# Usage: versions.sh VERSION PROGRAM...
set -u
want=${1:?usage: versions.sh VERSION PROGRAM...}
shift
fails=0
for prog in "$@"; do
	name=$(basename "$prog")
	out=$("$prog" --version 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(head -1 <<<"$out" | cut -d' ' -f1-2)" = "$name $want" ]; then
		echo "ok   $out"
	else
		echo "FAIL $name --version: exit $rc: $out"
		fails=$((fails + 1))
	fi
done
exit $((fails > 0))
