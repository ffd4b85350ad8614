#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install, build and run the whole test suite from a clean clone:
#   tools/test.sh            all suites (unit, integration, bench), then
#                            the unit suite under ASan and UBSan
#   tools/test.sh --fast     the unit tests (but the larger "nosan" ones)
#                            and the five emulated fabrics ("smoke"), no
#                            sanitizer build: a few minutes
#   tools/test.sh --suite unit   one suite (and the sanitizer build)
# Any other arguments go to meson test.
# Warnings are errors. Ends with the ten slowest tests, each suite's time,
# and one summary line "N passed, N failed, N skipped".
# PKTGEN=/path/to/pktgen runs pktgen-relay with that Pktgen; without it,
# a Pktgen at ../shared/pktgen/pktgen beside the project (built for the
# machine; the project does not ship one) or on PATH, else pktgen-relay
# skips. SANITIZE=0 skips the sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
if [ "${1:-}" = --fast ]; then
	shift
	set -- --suite unit --suite smoke --no-suite nosan "$@"
	SANITIZE=0
fi
if [ -z "${PKTGEN:-}" ] && [ -x ../shared/pktgen/pktgen ]; then
	PKTGEN=$(cd ../shared/pktgen && pwd)/pktgen
	export PKTGEN
fi

tools/install-deps.sh
BUILD=${BUILD:-build}
if [ -d "$BUILD" ]; then
	meson setup --reconfigure "$BUILD" -Dwerror=true -Dtests=enabled >/dev/null
else
	meson setup "$BUILD" -Dwerror=true -Dtests=enabled >/dev/null
fi
ninja -C "$BUILD"
built=$SECONDS

status=0
meson test -C "$BUILD" --print-errorlogs "$@" || status=$?

# The unit suite again under AddressSanitizer and UndefinedBehaviorSanitizer,
# in a build of its own (SANITIZE=0: skip); any report fails its test.
# meson test builds only what the tests it runs need. Not run again: the
# "nosan" tests (the fuzzers build their own sanitized binaries; install
# and structure run no code the others do not; figures computes what
# route and fault do, on larger instances; sim-single-failures runs
# dcn-sim's code as sim does, under more failures). A sanitized build runs
# two to four times slower: the timeouts are scaled.
SAN_BUILD=${SAN_BUILD:-$BUILD-sanitize}
logs="$BUILD/meson-logs/testlog.json"
if [ "${SANITIZE:-1}" = 1 ]; then
	san="-Dtests=enabled -Db_sanitize=address,undefined -Db_lundef=false"
	if [ -d "$SAN_BUILD" ]; then
		meson setup --reconfigure "$SAN_BUILD" $san >/dev/null
	else
		meson setup "$SAN_BUILD" $san >/dev/null
	fi
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C "$SAN_BUILD" --print-errorlogs --suite unit \
		--no-suite nosan --timeout-multiplier 4 || status=$?
	logs="$logs $SAN_BUILD/meson-logs/testlog.json"
fi

# Where the time went, then one closing line, counted per test.
# shellcheck disable=SC2086
python3 - "$((built - start))" "$((SECONDS - built))" $logs <<'EOF'
import json, sys

setup, tests, logs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rows, suites = [], {}
for path in logs:
    build = path.split("/")[-3]
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            name = r["name"].split(" / ", 1)[-1]
            suite = r["name"].split(" / ", 1)[0].split(":")[-1]
            rows.append((r["duration"], name, suite, build, r["result"]))
            key = "%s (%s)" % (suite, build)
            suites[key] = suites.get(key, 0) + r["duration"]
print("\nslowest tests:")
for d, name, suite, build, result in sorted(rows, reverse=True)[:10]:
    print("  %7.1f s  %-28s %-12s %s%s" % (d, name, suite, build,
                                          "" if result == "OK" else "  " + result))
print("time by suite (each test's time, summed; parallel tests overlap):")
for key, d in sorted(suites.items(), key=lambda x: -x[1]):
    print("  %7.1f s  %s" % (d, key))
print("wall: install and build %d s, tests %d s, in all %d s (%.1f min)" %
      (setup, tests, setup + tests, (setup + tests) / 60.0))
count = lambda *res: sum(1 for r in rows if r[4] in res)
print("%d passed, %d failed, %d skipped" % (
    count("OK"), count("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"),
    count("SKIP")))
EOF
exit "$status"
