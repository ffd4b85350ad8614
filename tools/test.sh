#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install, build and run the whole test suite from a clean clone:
#   tools/test.sh            all suites (unit, bench)
#   tools/test.sh --suite unit
# Warnings are errors. Ends with one summary line "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
BUILD=${BUILD:-build}
if [ -d "$BUILD" ]; then
	meson setup --reconfigure "$BUILD" -Dwerror=true -Dtests=enabled >/dev/null
else
	meson setup "$BUILD" -Dwerror=true -Dtests=enabled >/dev/null
fi
ninja -C "$BUILD"

status=0
meson test -C "$BUILD" --print-errorlogs "$@" || status=$?

# One closing line from meson's log, counted per test.
log="$BUILD/meson-logs/testlog.json"
ok=$(grep -c '"result": "OK"' "$log" || true)
fail=$(grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' "$log" || true)
skip=$(grep -c '"result": "SKIP"' "$log" || true)
echo "$ok passed, $fail failed, $skip skipped"
exit "$status"
