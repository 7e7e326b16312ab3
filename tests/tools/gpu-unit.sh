#!/bin/sh
# gpu-unit.sh DIR - a unit of several products on the GPU test machine (issue 27, as root): the
# cuDNN, NCCL and cuSPARSELt of that machine's PyTorch environment (site-packages/nvidia/cudnn,
# nccl, cusparselt; NVIDIA.md) in ONE bundle (bundler create --from-dir CUDNN --with-dir
# nccl=... --with-dir cusparselt=...), installed under a --root with full validation and
# --require-gpu (every product's steps 2-4 and its GPU check: cuDNN's convolutions and graph,
# NCCL's all-reduce, cuSPARSELt's 2:4 matmul), then validated three times. DIR holds bundler,
# unpacker and the bundler's shared libraries (lib/); the console and the JSON reports go to
# $OUT. Every step is printed with its exit code.
set -eu
D=$(cd "${1:-.device}" && pwd)
OUT=${OUT:-/tmp/gpu-out}
G=/tmp/gpu-unit
R=$G/root
rm -rf "$G"
mkdir -p "$OUT" "$G" "$R"
chmod 0755 "$G" "$R"
bundler() { LD_LIBRARY_PATH="$D/lib" "$D/bundler" "$@"; }
run() {
	echo "\$ $*"
	if "$@"; then rc=0; else rc=$?; fi
	echo "exit $rc"
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# site-packages/nvidia/NAME of python3, as its package says
tree_of() { python3 -c "import nvidia.$1 as n; print(list(n.__path__)[0])"; }
{
	echo "## machine"
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv || true
	CUDNN=$(tree_of cudnn)
	NCCL=$(tree_of nccl)
	SPL=$(tree_of cusparselt)
	echo "cudnn: $CUDNN"
	echo "nccl: $NCCL"
	echo "cusparselt: $SPL"
	ls -l "$NCCL/lib" "$SPL/lib" "$CUDNN/lib"
	if bundler cuda-json --from-dir /usr/local/cuda -o "$G/mirror" >/dev/null 2>&1; then
		export CUFERRY_MIRROR=file://$G/mirror
	fi
	bundler keygen "$G/site" >/dev/null
	echo "## one bundle: cuDNN with NCCL and cuSPARSELt"
	t=$(now)
	run bundler create --from-dir "$CUDNN" --cuda 13 --with-dir "nccl=$NCCL" \
		--with-dir "cusparselt=$SPL" --key "$G/site.key" -o "$G/" --level 3
	echo "create: $(since "$t") s"
	B=$(ls "$G"/*.bundle)
	ls -l "$B"
	bundler inspect "$B" | sed -n '1,16p'
	echo "## install under --root with full validation, --require-gpu"
	t=$(now)
	run "$D/unpacker" "$B" --root "$R" --trust "$G/site.pub" --require-gpu \
		--log "$OUT/unit-install.log" --json "$OUT/unit-install.json"
	echo "install: $(since "$t") s"
	echo "## validate, three times"
	for i in 1 2 3; do
		t=$(now)
		run "$D/unpacker" validate --root "$R" --trust "$G/site.pub" --require-gpu \
			--json "$G/validate-$i.json" >"$G/validate-$i.txt" 2>&1 || true
		echo "validate $i: $(since "$t") s ($(tail -1 "$G/validate-$i.txt"))"
	done
	cat "$G/validate-3.txt"
	echo "## inventory"
	run "$D/unpacker" inventory --root "$R" --trust "$G/site.pub"
} 2>&1 | tee "$OUT/unit-console.txt"
cp "$R"/opt/cudnn/current/.cuferry/report.json "$OUT/unit-report.json" 2>/dev/null || true
ls "$R"/opt/cudnn/.cuferry/failed/*/report.json 2>/dev/null | head -1 |
	xargs -r -I{} cp {} "$OUT/unit-failed-report.json"
echo "reports in $OUT: $(ls "$OUT" | tr '\n' ' ')"
