#!/bin/sh
# cuda-dir.sh - print the directory that holds the real cuDNN the tests, demo and bench use:
# a CUDA toolkit with cuDNN in its include/ and lib/ (NVIDIA.md), or else the cuDNN of an
# installed nvidia-cudnn wheel. `nvcc` on PATH may be a wrapper script rather than a link
# into the toolkit (CI machines have /usr/local/bin/nvcc doing `exec .../bin/nvcc`), so its
# path alone does not tell where the toolkit is: ask nvcc itself, then try the usual places.
set -u
has_cudnn() { [ -f "$1/include/cudnn_version.h" ] && ls "$1"/lib*/libcudnn.so* >/dev/null 2>&1; }
candidates() {
	[ -n "${CUDA_HOME:-}" ] && echo "$CUDA_HOME"
	[ -n "${CUDA_PATH:-}" ] && echo "$CUDA_PATH"
	if command -v nvcc >/dev/null 2>&1; then
		# nvcc -dryrun prints "#$ _HERE_=<its real bin directory>", wrapper or not.
		nvcc -dryrun -c -x cu /dev/null 2>&1 | sed -n 's/^#\$ _HERE_=\(.*\)\/bin$/\1/p' | head -n 1
		dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")"
	fi
	echo /usr/local/cuda
	ls -d /usr/local/cuda-* 2>/dev/null | sort -r
}
for dir in $(candidates); do
	if has_cudnn "$dir"; then readlink -f "$dir"; exit 0; fi
done
wheel=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__path__[0]))" 2>/dev/null)
if [ -n "$wheel" ] && has_cudnn "$wheel/cudnn"; then echo "$wheel/cudnn"; exit 0; fi
echo "cuda-dir.sh: no cuDNN found (looked in \$CUDA_HOME, \$CUDA_PATH, nvcc's toolkit, /usr/local/cuda*, the nvidia-cudnn wheel)" >&2
exit 1
