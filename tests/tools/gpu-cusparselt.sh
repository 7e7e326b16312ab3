#!/bin/sh
# gpu-cusparselt.sh DIR - cuSPARSELt's GPU check (issue 27) on the GPU test machine (as root):
# the cuSPARSELt of that machine's PyTorch environment (site-packages/nvidia/cusparselt, 0.8.0
# in NVIDIA.md) bundled with --product cusparselt --from-dir, installed under a --root with
# full validation and --require-gpu (step 6: one 2:4 structured-sparse matmul per GPU,
# cusparseLtSpMMAPrune/PruneCheck/Compress/Matmul, checked against the CPU), validated again
# and with --gpu 0. DIR holds bundler, unpacker and the bundler's shared libraries (lib/); the
# console and the JSON reports go to $OUT. CUSPARSELT_DIR=... names the tree when PyTorch's
# python3 cannot find it. Every step is printed with its exit code; the first failure to find
# something stops the script (set -eu), a failing bundler or unpacker run does not.
set -eu
D=$(cd "${1:-.device}" && pwd)
OUT=${OUT:-/tmp/gpu-out}
G=/tmp/gpu-cusparselt
R=$G/root
rm -rf "$G"
mkdir -p "$OUT" "$G" "$R"
chmod 0755 "$G" "$R"
bundler() { LD_LIBRARY_PATH="$D/lib" "$D/bundler" "$@"; }
# run CMD...: print it, run it, print its exit code; a failure is reported, not fatal.
run() {
	echo "\$ $*"
	if "$@"; then rc=0; else rc=$?; fi
	echo "exit $rc"
}
# The tree: CUSPARSELT_DIR, else the python3 package nvidia.cusparselt, else the first
# site-packages of python3 holding nvidia/cusparselt.
find_tree() {
	if [ -n "${CUSPARSELT_DIR:-}" ]; then
		echo "$CUSPARSELT_DIR"
		return
	fi
	python3 -c "import nvidia.cusparselt as n; print(list(n.__path__)[0])" 2>/dev/null && return
	python3 - <<'PY'
import os, site, sys
for d in site.getsitepackages() + [site.getusersitepackages()]:
    if os.path.isdir(os.path.join(d, "nvidia", "cusparselt")):
        print(os.path.join(d, "nvidia", "cusparselt"))
        sys.exit(0)
sys.exit(1)
PY
}
{
	echo "## machine"
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv || true
	echo "## cuSPARSELt of PyTorch's environment"
	SRC=$(find_tree) || { echo "no nvidia/cusparselt found (set CUSPARSELT_DIR)"; exit 1; }
	SRC=$(cd "$SRC" && pwd)
	echo "tree: $SRC"
	[ -f "$SRC/include/cusparseLt.h" ] || { echo "no $SRC/include/cusparseLt.h"; exit 1; }
	ls -l "$SRC/lib" "$SRC/include"
	INFO=$(ls -d "$SRC"/../../nvidia_cusparselt_cu*.dist-info 2>/dev/null | head -1 || true)
	CU=$(echo "$INFO" | sed -n 's/.*nvidia_cusparselt_cu\([0-9]*\)-.*/\1/p')
	echo "wheel: ${INFO:-none found} (for CUDA ${CU:-?})"
	grep -E '^#define CUSPARSELT_VER_(MAJOR|MINOR|PATCH|BUILD) ' "$SRC/include/cusparseLt.h"
	echo "## the header's values the check uses (gpuapi.h) against NVIDIA's cusparseLt.h"
	grep -nE 'CUSPARSE_COMPUTE_(32I|16F|32F)|CUSPARSELT_SPARSITY_50_PERCENT|CUSPARSELT_MATMUL_ALG_DEFAULT|CUSPARSELT_PRUNE_SPMMA_TILE|data\[[0-9]+\]|AlgSelectionDestroy|cusparseLtGetProperty|cusparseLtSpMMACompressedSize|cusparseLtSpMMAPruneCheck\(' \
		"$SRC/include/cusparseLt.h" || true
	python3 -c "import torch; print('pytorch', torch.__version__, 'cusparselt', torch.backends.cusparselt.version())" 2>&1 || true
	if bundler cuda-json --from-dir /usr/local/cuda -o "$G/mirror" >/dev/null 2>&1; then
		export CUFERRY_MIRROR=file://$G/mirror
	fi
	bundler keygen "$G/site" >/dev/null
	run bundler create --product cusparselt --from-dir "$SRC" --cuda "${CU:-13}" --key "$G/site.key" \
		-o "$G/cusparselt.bundle" --level 1
	[ -f "$G/cusparselt.bundle" ] || { echo "no bundle made"; exit 1; }
	echo "## install under --root with full validation, --require-gpu"
	run "$D/unpacker" "$G/cusparselt.bundle" --root "$R" --trust "$G/site.pub" --require-gpu \
		--log "$OUT/unpacker.log" --json "$OUT/install.json"
	echo "## validate again, then --gpu 0"
	run "$D/unpacker" validate --root "$R" --product cusparselt --trust "$G/site.pub" --require-gpu \
		--log "$OUT/validate.log" --json "$OUT/validate.json"
	run "$D/unpacker" validate --root "$R" --product cusparselt --trust "$G/site.pub" --gpu 0
	grep timings "$OUT/validate.log" | tail -2 || true
} 2>&1 | tee "$OUT/console.txt"
cp "$R"/opt/cusparselt/current/.cuferry/report.json "$OUT/report.json" 2>/dev/null || true
ls "$R"/opt/cusparselt/.cuferry/failed/*/report.json 2>/dev/null | head -1 | xargs -r -I{} cp {} "$OUT/failed-report.json"
echo "reports in $OUT: $(ls "$OUT" | tr '\n' ' ')"
