#!/bin/sh
# gpu-multi.sh DIR - the multi-GPU record (issue 17), after gpu-run.sh DIR on the same machine
# (which installed the bundle into /opt/cudnn and left its key in /tmp/gpu-bundle/site.pub):
#   - `unpacker validate` (every GPU at once) and `validate --gpu K` for each K, each timed,
#     three rounds, interleaved, so that one GPU's time and N GPUs' time come from the same run;
#   - one run where GPU 1 fails: the test build (DIR/unpacker-test-seams, the tests' own
#     build/test-bin/unpacker) with CUFERRY_FAULT=gpu1 gives GPU 1's probe an ordinal no
#     machine has, so its check fails while the others report.
# Results go to $OUT (gpu-multi.log, and the report.json of each kind of run).
set -u
D=$(cd "${1:-.device}" && pwd)
OUT=${OUT:-/tmp/gpu-out}
KEY=/tmp/gpu-bundle/site.pub
REPORT=/opt/cudnn/cudnn-9.19.0.56-cuda13/.cuferry/report.json
mkdir -p "$OUT"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
timed() { # LABEL COMMAND...: runs it, prints "LABEL seconds exit"
	label=$1; shift
	t=$(now); "$@" > "$OUT/last.out" 2>&1; rc=$?
	echo "$label $(since "$t") s exit $rc"
}
{
	echo "## machine"
	nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap --format=csv
	n=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
	echo "## validate (all $n GPUs) against validate --gpu K, three rounds"
	for round in 1 2 3; do
		timed "round $round: all GPUs" "$D/unpacker" validate --trust "$KEY"
		[ "$round" = 1 ] && cp "$OUT/last.out" "$OUT/validate-all.txt"
		k=0
		while [ "$k" -lt "$n" ]; do
			timed "round $round: --gpu $k" "$D/unpacker" validate --trust "$KEY" --gpu "$k"
			[ "$round" = 1 ] && cp "$OUT/last.out" "$OUT/validate-gpu$k.txt"
			k=$((k + 1))
		done
	done
	echo "## every GPU named with its own results (validate, all GPUs)"
	grep -E '^[56] ' "$OUT/validate-all.txt"
	echo "## GPU 1 made to fail (test build, CUFERRY_FAULT=gpu1)"
	CUFERRY_FAULT=gpu1 "$D/unpacker-test-seams" validate --trust "$KEY"
	echo "exit $?"
} > "$OUT/gpu-multi.log" 2>&1
cat "$OUT/gpu-multi.log"
