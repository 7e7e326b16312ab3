#!/bin/sh
# gpu-run.sh DIR - what runs on the GPU test machine (NVIDIA H200, a throwaway VM, as root):
# bundle that machine's own real cuDNN with the bundler built here, install it for real
# (/opt/cudnn, /etc/ld.so.conf.d, ldconfig), validate all six steps on the GPU, run doctor.
# DIR holds bundler, unpacker and the bundler's shared libraries (lib/); results go to $OUT.
set -u
D=$(cd "${1:-.device}" && pwd)
OUT=${OUT:-/tmp/gpu-out}
rm -rf /tmp/gpu-bundle
mkdir -p "$OUT" /tmp/gpu-bundle
# The toolkit's own cuDNN, or else the one in PyTorch's wheel (nvidia/cudnn/{include,lib}).
SRC=$(sh "$(dirname "$0")/cuda-dir.sh") || exit 1
# The CUDA component list comes from the source (pip's wheel metadata); should it name none,
# from a file:// mirror made from this machine's toolkit, as this machine has no network.
python3 "$(dirname "$0")/make_mirror.py" /usr/local/cuda /tmp/gpu-bundle/mirror --cuda-json-only &&
	export CUFERRY_MIRROR=file:///tmp/gpu-bundle/mirror
bundler() { LD_LIBRARY_PATH="$D/lib" "$D/bundler" "$@"; }
run() { echo "\$ $*"; "$@"; echo "exit $?"; }
{
	echo "## machine"
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
	uname -sr
	echo "## cuDNN in the ld cache before the install"
	ldconfig -p | grep 'libcudnn.so.9 '
	echo "## bundle the cuDNN in $SRC"
	bundler keygen /tmp/gpu-bundle/site >/dev/null
	run bundler create --from-dir "$SRC" --cuda 13 --key /tmp/gpu-bundle/site.key -o /tmp/gpu-bundle/ --level 3 -q
	echo "## what the manifest says (CUDA components: from the source, else from ${CUFERRY_MIRROR:-the mirror})"
	bundler inspect /tmp/gpu-bundle/*.bundle | sed -n '1,12p'
	echo "## install (validation runs after the switch)"
	run "$D/unpacker" install /tmp/gpu-bundle/*.bundle --trust /tmp/gpu-bundle/site.pub --keep-failed
	echo "## doctor"
	run "$D/unpacker" doctor
	echo "## validate again, GPU 0 only"
	run "$D/unpacker" validate --gpu 0
	echo "## the hostile caller environment: PATH and LD_LIBRARY_PATH pointing at a decoy"
	mkdir -p /tmp/evil && cp /opt/cudnn/current/lib/libcudnn.so.9 /tmp/evil/ 2>/dev/null
	PATH=/tmp/evil:$PATH LD_LIBRARY_PATH=/tmp/evil run "$D/unpacker" validate --gpu 0 --quick-validate
} 2>&1 | tee "$OUT/console.txt"
cp /opt/cudnn/current/.cuferry/report.json "$OUT/report.json" 2>/dev/null
ls -la /opt/cudnn /etc/ld.so.conf.d > "$OUT/layout.txt" 2>&1
true
