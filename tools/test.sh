#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install, build and run the whole test suite from a clean clone:
#   tools/test.sh            all suites (unit, integration, bench), then
#                            the unit suite under ASan and UBSan
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

# The unit suite again under AddressSanitizer and UndefinedBehaviorSanitizer,
# in a build of its own (SANITIZE=0: skip); any report fails its test.
SAN_BUILD=${SAN_BUILD:-$BUILD-sanitize}
logs="$BUILD/meson-logs/testlog.json"
if [ "${SANITIZE:-1}" = 1 ]; then
	san="-Dtests=enabled -Db_sanitize=address,undefined -Db_lundef=false"
	if [ -d "$SAN_BUILD" ]; then
		meson setup --reconfigure "$SAN_BUILD" $san >/dev/null
	else
		meson setup "$SAN_BUILD" $san >/dev/null
	fi
	ninja -C "$SAN_BUILD"
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C "$SAN_BUILD" --print-errorlogs --suite unit || status=$?
	logs="$logs $SAN_BUILD/meson-logs/testlog.json"
fi

# One closing line from meson's logs, counted per test.
# shellcheck disable=SC2086
ok=$(cat $logs | grep -c '"result": "OK"' || true)
# shellcheck disable=SC2086
fail=$(cat $logs | grep -c -E '"result": "(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)"' || true)
# shellcheck disable=SC2086
skip=$(cat $logs | grep -c '"result": "SKIP"' || true)
echo "$ok passed, $fail failed, $skip skipped"
exit "$status"
