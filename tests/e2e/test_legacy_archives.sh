#!/bin/sh
# --from-archive with NVIDIA's layouts, made small at test time: the legacy Windows zip and
# Linux tgz (top directory cuda/), the 8.3+ redist layout, and a name that contradicts the
# contents.
. "$CUFERRY_TOP/tests/e2e/lib.sh"

# A real x86-64 ELF shared library stands in for a legacy libcudnn.so.8.
printf 'int cudnnGetVersion(void) { return 8201; }\n' > v.c
cc -shared -fPIC -o libfake.so v.c

header() { # DIR MAJOR MINOR PATCH FILE
	mkdir -p "$1"
	printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$2" "$3" "$4" > "$1/$5"
}

note "legacy Windows zip: cudnn-11.4-windows-x64-v8.2.2.26.zip"
mkdir -p win/cuda/bin win/cuda/lib/x64
header win/cuda/include 8 2 2 cudnn.h
echo dll > win/cuda/bin/cudnn64_8.dll
echo dll > win/cuda/bin/cudnn_ops_infer64_8.dll
echo lib > win/cuda/lib/x64/cudnn.lib
echo sla > win/cuda/NVIDIA_SLA_cuDNN_Support.txt
(cd win && py -c "
import zipfile, os
z = zipfile.ZipFile('../cudnn-11.4-windows-x64-v8.2.2.26.zip', 'w')
for d, _, fs in os.walk('cuda'):
    for f in fs: z.write(os.path.join(d, f))
z.close()")
expect 0 "$BUNDLER" create --from-archive cudnn-11.4-windows-x64-v8.2.2.26.zip --key "$FX/test.key" -o w/ --level 3
expect 0 "$BUNDLER" inspect w/cudnn-8.2.2.26-cuda11-windows-x86_64.bundle
assert_contains last.out "platform    windows-x86_64"
assert_contains last.out "cuDNN       8.2.2.26 for CUDA 11"
assert_contains last.out "bin/cudnn64_8.dll"
assert_contains last.out "lib/x64/cudnn.lib"
assert_contains last.out "PATH += bin"
# The archive names no CUDA libraries: the list comes from the mirror's CUDA 11 line, here
# NVIDIA's own redistrib_11.8.0.json (fixtures.sh), newest of that line.
assert_contains last.out "CUDA        11.8.0"
assert_contains last.out "libcublas   11.11.3.6    listed, not included"
assert_contains last.out "cuda_nvrtc  11.8.89      listed, not included"

note "legacy Linux tgz: cudnn-11.3-linux-x64-v8.2.1.32.tgz (lib64 becomes lib)"
mkdir -p lin/cuda/lib64
header lin/cuda/include 8 2 1 cudnn_version.h
cp libfake.so lin/cuda/lib64/libcudnn.so.8.2.1
ln -s libcudnn.so.8.2.1 lin/cuda/lib64/libcudnn.so.8
ln -s libcudnn.so.8 lin/cuda/lib64/libcudnn.so
echo sla > lin/cuda/NVIDIA_SLA_cuDNN_Support.txt
tar -C lin -czf cudnn-11.3-linux-x64-v8.2.1.32.tgz cuda
expect 0 "$BUNDLER" create --from-archive cudnn-11.3-linux-x64-v8.2.1.32.tgz --key "$FX/test.key" -o l.bundle --level 3
expect 0 "$BUNDLER" inspect l.bundle
assert_contains last.out "platform    linux-x86_64"
assert_contains last.out "cuDNN       8.2.1.32 for CUDA 11"
assert_contains last.out "lib/libcudnn.so -> libcudnn.so.8"
assert_contains last.out "lib/libcudnn.so.8 -> libcudnn.so.8.2.1"
assert_contains last.out "LD_LIBRARY_PATH += lib"

note "redist layout: cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz"
stem=cudnn-linux-x86_64-8.9.7.29_cuda12-archive
mkdir -p "r/$stem/lib"
header "r/$stem/include" 8 9 7 cudnn_version.h
cp libfake.so "r/$stem/lib/libcudnn.so.8.9.7"
ln -s libcudnn.so.8.9.7 "r/$stem/lib/libcudnn.so.8"
echo licence > "r/$stem/LICENSE"
tar -C r -cJf "$stem.tar.xz" "$stem"
expect 0 "$BUNDLER" create --from-archive "$stem.tar.xz" --key "$FX/test.key" -o r.bundle --level 3
expect 0 "$BUNDLER" inspect r.bundle
assert_contains last.out "cuDNN       8.9.7.29 for CUDA 12"
assert_contains last.out "driver >= 525.60.13"
assert_contains last.out "CUDA        12.8.0"

note "no component list to be had (the mirror is unreachable): exit 9, nothing written"
expect 9 env CUFERRY_MIRROR=http://127.0.0.1:1 CUFERRY_FETCH_NO_BACKOFF=1 "$BUNDLER_SEAMS" create --from-archive "$stem.tar.xz" --key "$FX/test.key" -o u.bundle --level 3
assert_contains last.err "no CUDA component list: http://127.0.0.1:1/cuda/redist/redistrib_12.json"
assert_contains last.err "bundler cuda-json --from-dir TOOLKIT"
[ ! -e u.bundle ] || fail "output written"

note "a name that contradicts the headers: exit 9"
cp cudnn-11.3-linux-x64-v8.2.1.32.tgz cudnn-11.3-linux-x64-v8.2.2.26.tgz
expect 9 "$BUNDLER" create --from-archive cudnn-11.3-linux-x64-v8.2.2.26.tgz --key "$FX/test.key" -o x.bundle
assert_contains last.err "the name says cuDNN 8.2.2.26, its headers say 8.2.1"
one_line_reason
[ ! -e x.bundle ] || fail "output written"

note "a name that contradicts the platform: exit 9"
cp cudnn-11.3-linux-x64-v8.2.1.32.tgz cudnn-11.3-windows-x64-v8.2.1.32.tgz
expect 9 "$BUNDLER" create --from-archive cudnn-11.3-windows-x64-v8.2.1.32.tgz --key "$FX/test.key" -o x.bundle
assert_contains last.err "libraries are for linux-x86_64"

note "a CUDA the archive is not built for: exit 9"
expect 9 "$BUNDLER" create --from-archive cudnn-11.3-linux-x64-v8.2.1.32.tgz --cuda 12 --key "$FX/test.key" -o x.bundle
assert_contains last.err "built for CUDA 11, not 12"

note "a pair NVIDIA's matrix rules out: exit 4, with the supported versions"
expect 4 "$BUNDLER" create --from-dir "$FX/small-src" --cuda 11 --key "$FX/test.key" -o x.bundle
assert_contains last.err "does not support CUDA 11"
assert_contains last.err "supported: variants 12;13"
