#!/bin/sh
# run.sh FUZZ_BUILD SECONDS [TARGET...] - seed the corpora (made at run time from the forge
# and NVIDIA's sample JSON), run each libFuzzer target for SECONDS, record the run.
# Prints "ok   fuzz_T" or "FAIL fuzz_T" per target; exits 1 on any finding.
set -u
FB=$(cd "$1" && pwd); SECONDS_EACH=$2; shift 2
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TARGETS=${*:-frame manifest pathrule redist unpack probe_report pefile}
C=$FB/corpus
mkdir -p "$C" "$FB/logs" "$FB/crashes"
# (a corpus seeded before a target existed gets that target's seeds too)
if [ ! -f "$C/.seeded" ] || [ ! -d "$C/pefile" ]; then
	sh "$TOP/tests/fuzz/seeds.sh" "$C" || { echo "FAIL fuzz seeds"; exit 1; }
	touch "$C/.seeded"
fi
status=0
for t in $TARGETS; do
	log=$FB/logs/$t-$(date +%Y%m%dT%H%M%S).log
	mkdir -p "$C/$t"
	start=$(date +%s)
	"$FB/fuzz/fuzz_$t" "$C/$t" -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$FB/crashes/$t-" >"$log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ $rc -eq 0 ]; then
		echo "ok   fuzz_$t (${took}s, ${runs:-0} executions)"; result=clean
	else
		echo "FAIL fuzz_$t (log: $log)"; tail -n 30 "$log" | sed 's/^/    /'; result=finding; status=1
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$took" "${runs:-0}" "$result" >> "$FB/fuzz-record.tsv"
done
exit $status
