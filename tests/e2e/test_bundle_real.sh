#!/bin/sh
# The real cuDNN 9.19 of this machine, and the real NCCL 2.28.9 beside it: a byte-identical
# rebuild, NCCL's files alone out of the same tree, OpenSSL verifies what inspect --export writes, and OpenSSL-made signatures are taken in.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
CUDA=$(cat "$FX/cuda_dir")

note "same inputs, same bytes (signature included), with a different thread count"
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --from-dir "$CUDA" --key "$FX/test.key" \
	-o again.bundle --level 3 --counter 100 --threads 1
cmp again.bundle "$FX/real.bundle" || fail "rebuild differs"

note "cuDNN named as the product (--product cudnn --product-version, --cudnn): the same bytes"
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --product cudnn --product-version 9.19.0.56 \
	--from-dir "$CUDA" --key "$FX/test.key" -o product.bundle --level 3 --counter 100 --threads 1
cmp product.bundle "$FX/real.bundle" || fail "--product cudnn changes the bundle"
expect 0 "$BUNDLER" inspect product.bundle
cp last.out product.inspect
expect 0 "$BUNDLER" inspect "$FX/real.bundle"
cmp last.out product.inspect || fail "inspect differs"
rm -f product.bundle product.inspect

note "NCCL from the same toolkit tree: its headers, libraries and licence only, under the key nccl"
NCCL_LIBDIR=$CUDA/lib
[ -e "$NCCL_LIBDIR/libnccl.so.2" ] || NCCL_LIBDIR=$CUDA/lib64
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --product nccl --from-dir "$CUDA" \
	--key "$FX/test.key" -o nccl/ --level 1
name=nccl/nccl-2.28.9-cuda13-linux-x86_64.bundle
[ -f "$name" ] || { ls nccl >&2; fail "not named $name"; }
assert_contains last.out "NCCL      2.28.9 for CUDA 13, linux-x86_64"
expect 0 "$BUNDLER" inspect "$name" --export nccl-exp
assert_contains last.out "NCCL        2.28.9 for CUDA 13"
# What the tree holds of NCCL's, as the toolkit has it (include/nccl_device/ whole, 2.28 and
# later), and the files the bundler writes for every Linux bundle (pkg-config, CMake, the
# SBOMs, the provenance record): exactly these, nothing of cuDNN's beside them.
{ (cd "$CUDA" && ls -d include/nccl*.h && if [ -d include/nccl_device ]; then find include/nccl_device -type f; fi)
  (cd "$NCCL_LIBDIR" && ls -d libnccl*) | sed 's|^|lib/|'
  printf '%s\n' LICENSE lib/pkgconfig/nccl.pc lib/cmake/NCCL/NCCLConfig.cmake \
	lib/cmake/NCCL/NCCLConfigVersion.cmake .cuferry-dossier/sbom.cdx.json \
	.cuferry-dossier/sbom.spdx.json .cuferry-dossier/provenance.json; } | LC_ALL=C sort > nccl.want
py - nccl-exp/header.json nccl.have <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert 'nccl' in m and 'cudnn' not in m, sorted(m)
assert m['nccl']['version'] == '2.28.9' and m['nccl']['cuda_variant'] == '13', m['nccl']
assert m['bundle_id'] == 'nccl-2.28.9-cuda13-linux-x86_64', m['bundle_id']
assert not m['cuda'].get('components'), m['cuda']  # NCCL opens no CUDA library by name
open(sys.argv[2], 'w').write(''.join(sorted(f['path'] + '\n' for f in m['files'])))
PY
diff nccl.want nccl.have || fail "the NCCL bundle's files are not NCCL's"
grep -q 'include/nccl.h' nccl.have || fail "no nccl.h"
grep -q 'lib/libnccl.so.2' nccl.have || fail "no libnccl.so.2"
[ ! -d "$CUDA/include/nccl_device" ] || grep -q 'include/nccl_device/impl/' nccl.have || fail "no include/nccl_device/impl/"
rm -rf nccl nccl-exp nccl.want nccl.have

note "the manifest lists cuBLAS and NVRTC, and the real libraries"
expect 0 "$BUNDLER" inspect again.bundle
assert_contains last.out "libcublas   13.1.0.3"
assert_contains last.out "cuda_nvrtc  13.0.88"
assert_contains last.out "lib/libcudnn_engines_precompiled.so.9"
assert_contains last.out "9.19.0.56 for CUDA 13"

note "zstd -dc | tar -t and tar --zstd -tf list the payload"
zstd -dc again.bundle | tar -t > list1
tar --zstd -tf again.bundle > list2
cmp list1 list2
grep -qx 'lib/libcudnn.so.9' list1 || fail "libcudnn.so.9 not listed"
[ "$(wc -l < list1)" -eq 37 ] || fail "expected 37 entries (the two SBOMs, the provenance record, 31 of cuDNN, the pkg-config and CMake files)"

note "OpenSSL verifies the exported header and signature"
expect 0 "$BUNDLER" inspect again.bundle --export exp
openssl dgst -sha256 -verify exp/signer-1.pub -signature exp/signature-1.der exp/header.json

note "external signing: OpenSSL signs the digest, the bundler converts, checks and adds it"
expect 0 "$BUNDLER" sign again.bundle --external
digest=$(cat last.out)
py -c "import sys; open('digest.bin','wb').write(bytes.fromhex(sys.argv[1]))" "$digest"
openssl pkeyutl -sign -inkey "$FX/other.key" -in digest.bin -out sig.der
expect 0 "$BUNDLER" sign again.bundle --external --pub "$FX/other.pub" --signature sig.der
assert_contains last.out "signature 2 added"

note "an OpenSSL-generated key, signature given as r||s hex"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ossl.key 2>/dev/null
openssl pkey -in ossl.key -pubout -out ossl.pub
openssl dgst -sha256 -sign ossl.key -out ossl.der exp/header.json
py - ossl.der ossl.hex <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
def integer(b, i):
    assert b[i] == 2; n = b[i + 1]; v = b[i + 2:i + 2 + n]
    return int.from_bytes(v, 'big'), i + 2 + n
r, i = integer(d, 2); s, _ = integer(d, i)
open(sys.argv[2], 'w').write('%064x%064x\n' % (r, s))
PY
expect 0 "$BUNDLER" sign again.bundle --external --pub ossl.pub --signature ossl.hex
expect 0 "$BUNDLER" inspect again.bundle --export exp2
for n in 1 2 3; do
	openssl dgst -sha256 -verify exp2/signer-$n.pub -signature exp2/signature-$n.der exp2/header.json >/dev/null
done

note "a signature by another key than --pub names: exit 2, bundle unchanged"
sum=$(sha256sum again.bundle)
openssl pkeyutl -sign -inkey "$FX/third.key" -in digest.bin -out wrong.der
expect 2 "$BUNDLER" sign again.bundle --external --pub "$FX/other.pub" --signature wrong.der
one_line_reason
[ "$(sha256sum again.bundle)" = "$sum" ] || fail "bundle changed"
note "the same key twice is refused"
expect 1 "$BUNDLER" sign again.bundle --key "$FX/other.key"
assert_contains last.err "already signed"

note "sign --key adds a signature; the payload is untouched"
cp "$FX/small.bundle" s.bundle
expect 0 "$BUNDLER" sign s.bundle --key "$FX/third.key"
zstd -dc s.bundle | tar -t > a
zstd -dc "$FX/small.bundle" | tar -t > b
cmp a b

note "where a directory source's CUDA component list comes from, with no mirror to ask"
# No mirror may be consulted here: an unreachable one makes any attempt fail.
nomirror="env CUFERRY_MIRROR=http://127.0.0.1:1 CUFERRY_FETCH_NO_BACKOFF=1"
# pip's layout: site-packages/nvidia/cudnn, the CUDA 13 wheels' shared nvidia/cu13/lib, and
# each wheel's dist-info beside nvidia/.
site=site/nvidia
LIBDIR=$CUDA/lib
[ -e "$LIBDIR/libcudnn.so.9" ] || LIBDIR=$CUDA/lib64
mkdir -p "$site/cudnn/include" "$site/cudnn/lib" "$site/cu13/lib" \
	site/nvidia_cublas-13.1.0.3.dist-info site/nvidia_cuda_nvrtc-13.0.88.dist-info \
	site/nvidia_cudnn_cu13-9.19.0.56.dist-info
cp "$CUDA"/include/cudnn*.h "$site/cudnn/include/"
cp "$LIBDIR/libcudnn.so.9" "$site/cudnn/lib/"
ln -s "$LIBDIR/libcublas.so.13" "$site/cu13/lib/"
ln -s "$LIBDIR/libnvrtc.so.13" "$site/cu13/lib/"
expect 0 $nomirror "$BUNDLER_SEAMS" create --from-dir "$site/cudnn" --key "$FX/test.key" -o pip.bundle --level 1
expect 0 "$BUNDLER" inspect pip.bundle
assert_contains last.out "9.19.0.56 for CUDA 13"
assert_contains last.out "libcublas   13.1.0.3     listed, not included"
assert_contains last.out "cuda_nvrtc  13.0.88      listed, not included"
# --with-cuda-libs packs only what the tree holds: pip keeps cuBLAS in another wheel.
expect 9 $nomirror "$BUNDLER_SEAMS" create --from-dir "$site/cudnn" --with-cuda-libs --key "$FX/test.key" \
	-o pip-libs.bundle --level 1
assert_contains last.err "has no libcublas library in lib/ or bin/ to pack"
[ ! -e pip-libs.bundle ] || fail "output written"
# A toolkit installed from NVIDIA's .run or packages: versioned names, the highest wins.
mkdir -p tk/include tk/lib
cp "$CUDA"/include/cudnn*.h tk/include/
cp "$LIBDIR/libcudnn.so.9" tk/lib/
cp "$LIBDIR/libnvrtc.so.13" tk/lib/libnvrtc.so.13.0.88
ln -s libnvrtc.so.13.0.88 tk/lib/libnvrtc.so.13
echo old > tk/lib/libcublas.so.13.0.2
echo new > tk/lib/libcublas.so.13.1.0.3
expect 0 $nomirror "$BUNDLER_SEAMS" create --from-dir tk --cuda 13 --key "$FX/test.key" -o tk.bundle --level 1
expect 0 "$BUNDLER" inspect tk.bundle
assert_contains last.out "libcublas   13.1.0.3"
assert_contains last.out "cuda_nvrtc  13.0.88"
# Libraries to pack with no version anywhere: only a mirror the user names may vouch for them.
mkdir -p tk/unversioned && cp -r tk/include tk/unversioned/ && mkdir -p tk/unversioned/lib
cp tk/lib/libcudnn.so.9 tk/unversioned/lib/ && echo lib > tk/unversioned/lib/libcublas.so.13
expect 9 "$BUNDLER" create --from-dir tk/unversioned --cuda 13 --with-cuda-libs --key "$FX/test.key" \
	-o unversioned.bundle --level 1
assert_contains last.err "name no version"
[ ! -e unversioned.bundle ] || fail "output written"
# Neither: the mirror is asked, and an unreachable one is an error, not a silent omission.
rm tk/lib/libcublas.so.* tk/lib/libnvrtc.so.*
expect 9 $nomirror "$BUNDLER_SEAMS" create --from-dir tk --cuda 13 --key "$FX/test.key" -o none.bundle --level 1
assert_contains last.err "no CUDA component list"
one_line_reason
[ ! -e none.bundle ] || fail "output written"
# The offline way out: a file:// mirror holding the CUDA redistrib JSON.
expect 0 "$BUNDLER" create --from-dir tk --cuda 13 --mirror "file://$FX/file-mirror" \
	--key "$FX/test.key" -o file.bundle --level 1
expect 0 "$BUNDLER" inspect file.bundle
assert_contains last.out "CUDA        13.0.2"
