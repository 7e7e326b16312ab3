#!/bin/sh
# bundler create/resolve against an NVIDIA-style mirror on 127.0.0.1 made from real files:
# resolution, CUDA component list, --with-cuda-libs, checksum and size enforcement, a
# missing version, and a download that breaks in the middle and resumes.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
# The test build: its retries do not wait (CUFERRY_FETCH_NO_BACKOFF), the rest is the same code.
export CUFERRY_FETCH_NO_BACKOFF=1
BUNDLER=$BUNDLER_SEAMS
py "$TOP/tests/tools/make_mirror.py" "$(cat "$FX/cuda_dir")" mirror
start_mirror mirror

note "resolve: newest 9.19.x, CUDA 13 line, nothing downloaded"
expect 0 "$BUNDLER" resolve --cudnn 9.19 --cuda 13 --mirror "$MIRROR"
assert_contains last.out "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"
assert_contains last.out "CUDA 13.0.2"
assert_contains last.out "libcublas"
assert_contains last.out "cuda_nvrtc"
assert_contains last.out "580.65.06"
[ ! -e cache ] || fail "resolve downloaded something"

note "create from the mirror: components listed, not included"
expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "$MIRROR" --key "$FX/test.key" \
	--cache cache -o out/ --level 3
b=out/cudnn-9.19.0.56-cuda13-linux-x86_64.bundle
[ -f "$b" ] || fail "no bundle"
expect 0 "$BUNDLER" inspect "$b"
assert_contains last.out "libcublas   13.1.0.3     listed, not included"
assert_contains last.out "nvidia-redist cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"
assert_contains last.out "lib/libcudnn.so -> libcudnn.so.9"
(cd out && sha256sum -c SHA256SUMS) >/dev/null
# The licence names of NVIDIA's JSON reach the SBOMs (a directory source has none: test_sbom).
expect 0 "$BUNDLER" inspect "$b" --sbom spdx
assert_contains last.out '"licenseDeclared": "LicenseRef-NVIDIA-cudnn"'
assert_contains last.out '"licenseDeclared": "LicenseRef-NVIDIA-CUDA-Toolkit"'
assert_contains last.out "NVIDIA's redistrib JSON names this licence"
expect 0 "$BUNDLER" inspect "$b" --sbom cyclonedx
assert_contains last.out '"name": "cudnn"'
assert_contains last.out '"name": "CUDA Toolkit"'

note "--with-cuda-libs downloads, verifies and packs cuBLAS and NVRTC"
expect 0 "$BUNDLER" create --cudnn 9.19.0 --mirror "$MIRROR" --key "$FX/test.key" --cache cache \
	-o libs.bundle --with-cuda-libs --level 3
expect 0 "$BUNDLER" inspect libs.bundle
assert_contains last.out "libcublas   13.1.0.3     included"
assert_contains last.out "lib/libcublas.so.13"
assert_contains last.out "lib/libnvrtc-builtins.so.13.0"

assert_contains last.out "LICENSE.libcublas.txt"

note "the cache is used the second time"
expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "$MIRROR" --key "$FX/test.key" \
	--cache cache -o again.bundle --level 3
assert_contains last.err "using cached"

note "--product nccl: nccl/redist, its CUDA-qualified labels, no CUDA component list"
expect 0 "$BUNDLER" resolve --product nccl --product-version 2.28 --mirror "$MIRROR"
assert_contains last.out "NCCL 2.28.9 for CUDA 13 on linux-x86_64"
assert_contains last.out "nccl/redist/redistrib_2.28.9-cuda13.0.json"
assert_contains last.out "bundle name nccl-2.28.9-cuda13-linux-x86_64.bundle"
if grep -q "libcublas" last.out; then fail "NCCL resolved a CUDA component list"; fi
expect 0 "$BUNDLER" resolve --product nccl --product-version 2.28.9 --cuda 12 --mirror "$MIRROR"
assert_contains last.out "nccl-linux-x86_64-2.28.9_cuda12.9-archive.tar.xz"
expect 0 "$BUNDLER" create --product nccl --product-version 2.28.9 --mirror "$MIRROR" \
	--key "$FX/test.key" --cache cache -o nccl/ --level 1
b=nccl/nccl-2.28.9-cuda13-linux-x86_64.bundle
expect 0 "$BUNDLER" inspect "$b"
assert_contains last.out "NCCL        2.28.9 for CUDA 13"
assert_contains last.out "nvidia-redist nccl-linux-x86_64-2.28.9_cuda13.0-archive.tar.xz"
assert_contains last.out "lib/libnccl.so -> libnccl.so.2"
assert_contains last.out "lib/pkgconfig/nccl.pc"
expect 9 "$BUNDLER" resolve --product nccl --product-version 2.27 --mirror "$MIRROR"
rm -rf nccl

note "a wrong SHA-256 in NVIDIA's JSON: exit 9, nothing written"
cp -r mirror badsha
py - badsha/cudnn/redist/redistrib_9.19.0.json <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["cudnn"]["linux-x86_64"]["cuda13"]["sha256"] = "0" * 64
json.dump(d, open(p, "w"))
PY
start_mirror badsha
expect 9 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "$MIRROR" --key "$FX/test.key" \
	--cache cache2 -o bad/ --level 3
assert_contains last.err "SHA-256 does not match"
one_line_reason
[ -z "$(ls bad 2>/dev/null)" ] || fail "output left after a checksum failure: $(ls bad)"

note "a wrong size in NVIDIA's JSON: exit 9"
py - badsha/cudnn/redist/redistrib_9.19.0.json mirror/cudnn/redist/redistrib_9.19.0.json <<'PY'
import json, sys
good = json.load(open(sys.argv[2])); good["cudnn"]["linux-x86_64"]["cuda13"]["size"] = "1000"
json.dump(good, open(sys.argv[1], "w"))
PY
expect 9 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "$MIRROR" --key "$FX/test.key" \
	--cache cache3 -o bad/ --level 3
[ -z "$(ls bad 2>/dev/null)" ] || fail "output left after a size failure"

note "a version the mirror does not have: exit 9"
expect 9 "$BUNDLER" create --cudnn 9.99 --mirror "$MIRROR" --key "$FX/test.key" -o bad/
assert_contains last.err "9.99"

note "an unsupported pair is refused with the alternatives"
expect 4 "$BUNDLER" resolve --cudnn 9.19 --cuda 11 --mirror "$MIRROR"
assert_contains last.err "offered: 12,13"

note "a connection that breaks mid-download resumes"
start_mirror mirror --drop-once "_cuda13-archive.tar.xz:300000"
expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "$MIRROR" --key "$FX/test.key" \
	--cache cache4 -o resumed.bundle --level 3
assert_contains last.err "resuming at"
a=cudnn/linux-x86_64/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
cmp cache4/$a mirror/cudnn/redist/$a || fail "the resumed download differs from the mirror's file"
expect 0 "$BUNDLER" inspect resumed.bundle

note "the same mirror as a file:// directory (an offline bundling host): listed and fetched"
expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "file://$W/mirror" --key "$FX/test.key" \
	--cache cache5 -o file.bundle --level 3
expect 0 "$BUNDLER" inspect file.bundle
assert_contains last.out "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"
assert_contains last.out "CUDA        13.0.2"

note "--from-archive --with-cuda-libs: cuBLAS and NVRTC come from the mirror, really packed"
cp "mirror/cudnn/redist/$a" .
expect 0 "$BUNDLER" create --from-archive "$(basename "$a")" --with-cuda-libs --mirror "$MIRROR" \
	--key "$FX/test.key" --cache cache6 -o archive-libs.bundle --level 3
expect 0 "$BUNDLER" inspect archive-libs.bundle
assert_contains last.out "libcublas   13.1.0.3     included"
assert_contains last.out "lib/libcublas.so.13"
assert_contains last.out "lib/libnvrtc-builtins.so.13.0"

note "offline: a mirror whose name does not resolve fails at once, in one line, without retrying"
# The shipped bundler (its retries wait): a retry would show as "retrying" lines.
expect 9 env CUFERRY_MIRROR=https://nvidia.invalid/compute "$B/bundler" create --from-archive "$(basename "$a")" \
	--key "$FX/test.key" --cache cache7 -o unresolved/ --level 1
one_line_reason
! grep -q retrying last.err || fail "a name that does not resolve is retried: $(cat last.err)"
assert_contains last.err "nvidia.invalid"
assert_contains last.err "bundler cuda-json --from-dir TOOLKIT -o DIR"
expect 9 "$B/bundler" resolve --cudnn 9.19 --mirror https://nvidia.invalid/compute
! grep -q retrying last.err || fail "resolve retries a name that does not resolve"
[ ! -e unresolved ] || fail "output left"

note "--offline never touches the network: an http mirror is refused untried"
: > mirror.log
expect 9 "$BUNDLER" create --from-archive "$(basename "$a")" --mirror "$MIRROR" --offline \
	--key "$FX/test.key" --cache cache7 -o offline/ --level 1
assert_contains last.err "not fetched (--offline)"
[ ! -s mirror.log ] || fail "--offline asked the server: $(cat mirror.log)"
expect 9 "$BUNDLER" resolve --cudnn 9.19 --mirror "$MIRROR" --offline
[ ! -s mirror.log ] || fail "resolve --offline asked the server"

note "--from-archive: the component list is looked for before the archive is read"
# A redist name says the CUDA variant and platform: with no list to be had, the one line is about
# the list, not the archive, which is never unpacked (junk here: reading it would fail otherwise).
mkdir -p junk && head -c 100000 /dev/urandom > junk/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
expect 9 "$BUNDLER" create --from-archive junk/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz \
	--mirror https://nvidia.invalid/compute --offline --key "$FX/test.key" -o junk-out/ --level 1
one_line_reason
assert_contains last.err "no CUDA component list"
[ ! -e junk-out ] || fail "output left"

note "cuda-json writes the component list from this machine's toolkit: --offline then works"
CUDA_DIR=$(cat "$FX/cuda_dir")
expect 0 "$BUNDLER" cuda-json --from-dir "$CUDA_DIR" -o cj
j=$(ls cj/cuda/redist/redistrib_*.json)
[ "$(echo "$j" | wc -l)" -eq 1 ] || fail "expected one JSON: $j"
py - "$j" "$CUDA_DIR" <<'PY'
import glob, hashlib, json, os, sys
d = json.load(open(sys.argv[1]))
assert d["release_product"] == "cuda", d
for comp in ("libcublas", "cuda_nvrtc"):
    leaf = d[comp]["linux-x86_64"]
    assert len(leaf["sha256"]) == 64 and int(leaf["size"]) > 0, leaf
# the versions are the toolkit's own (its wheel metadata here)
want = [os.path.basename(p) for p in glob.glob(sys.argv[2] + "/dist-info/nvidia_cublas-*.dist-info")]
if want:
    assert want[0] == "nvidia_cublas-%s.dist-info" % d["libcublas"]["version"], (want, d)
PY
expect 0 "$BUNDLER" create --from-archive "$(basename "$a")" --mirror "file://$W/cj" --offline \
	--key "$FX/test.key" --cache cache7 -o cj.bundle --level 1
expect 0 "$BUNDLER" inspect cj.bundle
assert_contains last.out "libcublas   $(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["libcublas"]["version"])' "$j")"
note "offline sbsa with only cuda-json's x86_64 list: the hint names NVIDIA's JSON too"
# cuda-json describes only this toolkit's platform; for sbsa (or Windows) the way is NVIDIA's
# own CUDA JSON, which names every platform: the one line says so (the trial of issue 25).
mkdir -p sbsa-tree/include sbsa-tree/lib
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > sbsa-tree/include/cudnn_version.h
head -c 4096 /dev/urandom > sbsa-tree/lib/libcudnn.so.9
expect 9 "$BUNDLER" create --from-dir sbsa-tree --cuda 13 --platform linux-sbsa --mirror "file://$W/cj" \
	--offline --key "$FX/test.key" -o sbsa.bundle --level 1
one_line_reason
assert_contains last.err "for linux-sbsa"
assert_contains last.err "from a linux-sbsa toolkit, or copy NVIDIA's cuda/redist/redistrib_<release>.json, which names every platform"
[ ! -e sbsa.bundle ] || fail "a bundle without its component list"
expect 0 "$BUNDLER" cuda-json --from-dir "$CUDA_DIR" --release 13.0.2 -o cj2
[ -f cj2/cuda/redist/redistrib_13.0.2.json ] || fail "--release does not name the file"
mkdir -p notoolkit
expect 9 "$BUNDLER" cuda-json --from-dir notoolkit -o cj3 --release 13.0.2
assert_contains last.err "no libcublas library with a version"
[ ! -e cj3 ] || fail "cuda-json wrote a list from a tree without libraries"
