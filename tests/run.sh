#!/bin/sh
# run.sh [BUILD_DIR] [PATTERN...] - every unit test binary, then every end-to-end script, each
# with one line ("ok NAME (Ns)" or "FAIL NAME" and the end of its log) as it finishes; one
# summary line. With PATTERNs (shell patterns matched against the test's name, e.g.
# `test_trust` or 'test_windows_*'), only the tests they name run, and no fuzz run.
# BUILD_DIR defaults to build/ (make test T=PATTERN passes both).
set -u
B=build
if [ $# -gt 0 ] && [ -d "$1" ]; then B=$1; shift; fi
PATTERN="$*"
selected() {
	[ -z "$PATTERN" ] && return 0
	set -f # the patterns are matched against names, never expanded against files
	for p in $PATTERN; do case $1 in $p) set +f; return 0 ;; esac; done
	set +f
	return 1
}
if [ -n "$PATTERN" ]; then echo "running the tests named $PATTERN: one line per test as it finishes"
else echo "running the tests: one line per test as it finishes"; fi
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$top" && cd "$B" && pwd)
export CUFERRY_BUILD="$B" CUFERRY_TOP="$top"
passed=0 failed=0 failures=""

mkdir -p "$B/unit-logs"
for t in "$B"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	selected "$name" || continue
	log="$B/unit-logs/$name.log"
	start=$(date +%s)
	if (cd "$top" && "$t") >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok   $name ($(grep -c '^\[       OK \]' "$log") cases, $(( $(date +%s) - start ))s)"
	else
		failed=$((failed + 1)); failures="$failures $name"
		echo "FAIL $name (log: $log)"; grep -E 'FAILED|ERROR|Failure|error' "$log" | tail -n 15 | sed 's/^/    /'
	fi
done

# The ARMv8 SHA-256 path, under qemu-user (cross-built by make test).
if selected sha256-arm64 && [ -x "$B/sha256_check-arm64" ] && command -v qemu-aarch64 >/dev/null; then
	if out=$(for cpu in max cortex-a57 cortex-a53; do qemu-aarch64 -cpu $cpu "$B/sha256_check-arm64" || exit 1; done); then
		passed=$((passed + 1)); echo "ok   sha256 on arm64 (qemu): $(echo $out | tr '\n' ' ')"
	else
		failed=$((failed + 1)); failures="$failures sha256-arm64"; echo "FAIL sha256 on arm64: $out"
	fi
fi

# Fixtures made once per run and shared: the real cuDNN bundle, keys, the mirror (only when an
# end-to-end test is to run).
export CUFERRY_FIXTURES="$B/test-fixtures"
scripts=
for s in "$top"/tests/e2e/test_*.sh "$top"/tests/threats/test_*.sh; do
	[ -f "$s" ] && selected "$(basename "$s" .sh)" && scripts="$scripts $s"
done
if [ -z "$scripts" ]; then
	:
elif ! sh "$top/tests/e2e/fixtures.sh"; then
	echo "FAIL fixtures"; failed=$((failed + 1)); failures="$failures fixtures"
else
	for s in $scripts; do
		name=$(basename "$s" .sh)
		log="$B/e2e-logs/$name.log"
		mkdir -p "$B/e2e-logs"
		start=$(date +%s)
		if sh "$s" >"$log" 2>&1; then
			passed=$((passed + 1)); echo "ok   $name ($(( $(date +%s) - start ))s)"
		else
			failed=$((failed + 1)); failures="$failures $name"
			echo "FAIL $name (log: $log)"; tail -n 25 "$log" | sed 's/^/    /'
		fi
	done
fi

# A short run of every fuzz target (make fuzz runs them for longer).
FB=$top/build-fuzz
if [ -z "$PATTERN" ] && [ -x "$FB/fuzz/fuzz_unpack" ]; then
	out=$(sh "$top/tests/fuzz/run.sh" "$FB" "${CUFERRY_FUZZ_SECONDS:-10}" 2>&1)
	echo "$out"
	passed=$((passed + $(echo "$out" | grep -c '^ok '))); n=$(echo "$out" | grep -c '^FAIL')
	failed=$((failed + n)); [ "$n" -eq 0 ] || failures="$failures fuzz"
fi

[ -n "$failures" ] && echo "failed:$failures"
[ -n "$PATTERN" ] && [ $((passed + failed)) -eq 0 ] && { echo "run.sh: no test is named $PATTERN" >&2; exit 1; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
