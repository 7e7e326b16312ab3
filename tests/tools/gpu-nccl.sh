#!/bin/sh
# gpu-nccl.sh DIR - NCCL's GPU check (issue 27) on the GPU test machine (as root): the NCCL
# of that machine's PyTorch environment (site-packages/nvidia/nccl, NVIDIA.md) bundled with
# --product nccl --from-dir, installed under a --root with full validation and
# --require-gpu (step 6: ncclCommInitAll over every GPU, an all-reduce checked against the
# CPU sum), then validated again, and with --gpu 0. DIR holds bundler, unpacker and the
# bundler's shared libraries (lib/); the console and the reports go to $OUT.
set -u
D=$(cd "${1:-.device}" && pwd)
OUT=${OUT:-/tmp/gpu-out}
G=/tmp/gpu-nccl
R=$G/root
rm -rf "$G"
mkdir -p "$OUT" "$G" "$R"
chmod 0755 "$G" "$R"
bundler() { LD_LIBRARY_PATH="$D/lib" "$D/bundler" "$@"; }
run() { echo "\$ $*"; "$@"; echo "exit $?"; }
{
	echo "## machine"
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
	echo "## NCCL of PyTorch's environment"
	SRC=$(python3 -c "import nvidia.nccl as n; print(list(n.__path__)[0])") || exit 1
	CU=$(ls -d "$SRC"/../../nvidia_nccl_cu*.dist-info 2>/dev/null | sed -n 's/.*nvidia_nccl_cu\([0-9]*\)-.*/\1/p' | head -1)
	echo "$SRC (wheel for CUDA ${CU:-?})"
	ls -l "$SRC/lib" "$SRC/include"
	python3 -c "import torch; print('pytorch', torch.__version__, 'nccl', torch.cuda.nccl.version())" 2>&1
	bundler cuda-json --from-dir /usr/local/cuda -o "$G/mirror" >/dev/null 2>&1 &&
		export CUFERRY_MIRROR=file://$G/mirror
	bundler keygen "$G/site" >/dev/null
	run bundler create --product nccl --from-dir "$SRC" --cuda "${CU:-12}" --key "$G/site.key" \
		-o "$G/nccl.bundle" --level 1 -q
	echo "## install under --root with full validation, --require-gpu"
	run "$D/unpacker" "$G/nccl.bundle" --root "$R" --trust "$G/site.pub" --require-gpu \
		--log "$OUT/unpacker.log" --json "$OUT/install.json"
	echo "## validate again, then --gpu 0"
	run "$D/unpacker" validate --root "$R" --product nccl --trust "$G/site.pub" --require-gpu \
		--log "$OUT/validate.log" --json "$OUT/validate.json"
	run "$D/unpacker" validate --root "$R" --product nccl --trust "$G/site.pub" --gpu 0
	grep timings "$OUT/validate.log" | tail -2
} 2>&1 | tee "$OUT/console.txt"
cp "$R"/opt/nccl/current/.cuferry/report.json "$OUT/report.json" 2>/dev/null
ls "$R"/opt/nccl/.cuferry/failed/*/report.json 2>/dev/null | head -1 | xargs -r -I{} cp {} "$OUT/failed-report.json"
