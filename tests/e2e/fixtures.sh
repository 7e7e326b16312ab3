#!/bin/sh
# fixtures.sh - things many tests share, made once per run at test time (never committed):
#   keys, a bundle of this machine's real cuDNN, a small bundle of real cuDNN files.
set -eu
B=$CUFERRY_BUILD
FX=$CUFERRY_FIXTURES
mkdir -p "$FX"
cd "$FX"

CUDA=$(sh "$CUFERRY_TOP/tests/tools/cuda-dir.sh")
echo "$CUDA" > cuda_dir

for k in test other third; do
	[ -f $k.key ] || "$B/bundler" keygen $k >/dev/null
done

# A small tree of real cuDNN files: headers, the loader library and one sub-library.
if [ ! -d small-src ] || [ small-src -ot "$B/bundler" ]; then
	rm -rf small-src && mkdir -p small-src/include small-src/lib
	cp "$CUDA"/include/cudnn*.h small-src/include/
	cp "$CUDA"/lib*/libcudnn.so.9 "$CUDA"/lib*/libcudnn_graph.so.9 small-src/lib/ 2>/dev/null || true
	ln -sf libcudnn.so.9 small-src/lib/libcudnn.so
	ln -sf libcudnn_graph.so.9 small-src/lib/libcudnn_graph.so
	echo "NVIDIA cuDNN licence (see the real LICENSE in the full bundle)" > small-src/LICENSE
fi

# A file:// mirror holding only CUDA redistrib JSONs: NVIDIA's own for the 11 and 12 lines
# (tests/data/nvidia), and one made from this toolkit's libraries for 13 by `bundler cuda-json`
# (labelled 13.0.2, the release NVIDIA's JSON gives these versions). Sources that do not
# name their CUDA libraries get their component list from it, offline (lib.sh exports it).
if [ ! -d file-mirror ]; then
	rm -rf file-mirror.tmp
	"$B/bundler" cuda-json --from-dir "$CUDA" --release 13.0.2 -o file-mirror.tmp >/dev/null
	for j in "$CUFERRY_TOP"/tests/data/nvidia/redistrib_cuda_*.json; do
		[ -f "$j" ] && cp "$j" "file-mirror.tmp/cuda/redist/$(basename "$j" | sed 's/redistrib_cuda_/redistrib_/')"
	done
	mv file-mirror.tmp file-mirror
fi
export CUFERRY_MIRROR="file://$FX/file-mirror"

build_if_stale() { # OUT ARGS...
	out=$1; shift
	if [ ! -f "$out" ] || [ "$out" -ot "$B/bundler" ]; then
		rm -f "$out"
		SOURCE_DATE_EPOCH=1760486400 "$B/bundler" create --key test.key -o "$out" -q "$@"
	fi
}
build_if_stale small.bundle --from-dir small-src --cuda 13 --level 3 --counter 100
build_if_stale real.bundle --from-dir "$CUDA" --level 3 --counter 100
