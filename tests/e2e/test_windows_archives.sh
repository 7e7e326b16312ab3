#!/bin/sh
# The bundler's Windows inputs: each of NVIDIA's Windows zip layouts, made here from the fake
# DLLs mingw-w64 built (make windows-fakes) under NVIDIA's exact names - the legacy zip
# (cuda/bin), the 8.3+ archive zip (bin/, lib/x64/) and the 9.18+ CUDA 13 zip (bin/x64/) -
# and --add-file (zlibwapi.dll): packed in bin/, hashed in the manifest, refused when unsafe
# or already there.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
F=$B/windows/fakes
[ -f "$F/cudnn64_9.dll" ] || fail "no fake DLLs in $F (make test builds them)"

header() { # DIR MAJOR MINOR PATCH FILE
	mkdir -p "$1"
	printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$2" "$3" "$4" > "$1/$5"
}
zip_dir() { # ZIP DIR: the tree DIR (relative, from the current directory) as NVIDIA zips it
	py -c "
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
for d, _, fs in os.walk(sys.argv[2]):
    for f in sorted(fs): z.write(os.path.join(d, f))
z.close()" "$1" "$2"
}
# archive_zip DIR STEM "MAJOR MINOR PATCH" BINDIR DLL...: NVIDIA's 8.3+ archive layout in DIR
# (include/, BINDIR/ with the DLLs, lib/x64/, LICENSE) zipped as STEM.zip
archive_zip() {
	dir=$1 stem=$2 version=$3 bindir=$4; shift 4
	mkdir -p "$dir/$stem/$bindir" "$dir/$stem/lib/x64"
	# shellcheck disable=SC2086
	header "$dir/$stem/include" $version cudnn_version.h
	cp "$@" "$dir/$stem/$bindir/"
	echo lib > "$dir/$stem/lib/x64/cudnn.lib"
	echo licence > "$dir/$stem/LICENSE"
	(cd "$dir" && zip_dir "../$stem.zip" "$stem")
}
# payload_matches BUNDLE PATH SOURCE: the file's bytes as the bundle carries them, and its
# SHA-256 in the signed manifest
payload_matches() { # BUNDLE PATH SOURCE
	rm -rf x && mkdir x
	zstd -dc "$1" 2>/dev/null | tar -x -C x || fail "$1: payload does not unpack"
	cmp -s "x/$2" "$3" || fail "$1: $2 is not the bytes of $3"
	rm -rf exp; "$BUNDLER" inspect "$1" --export exp >/dev/null || fail "inspect --export $1"
	sum=$(sha256sum "$3" | cut -d' ' -f1)
	grep -q "$sum" exp/header.json || fail "$1: the manifest lacks $2's SHA-256 $sum"
}

note "8.3+ archive zip: cudnn-windows-x86_64-8.9.7.29_cuda12-archive.zip, with --add-file zlibwapi.dll"
stem=cudnn-windows-x86_64-8.9.7.29_cuda12-archive
archive_zip z8 "$stem" "8 9 7" bin "$F/cudnn64_8.dll" "$F/cudnn_ops_infer64_8.dll"
chmod -R a-w "$stem.zip" z8 # read-only sources (writable again for the cleanup)
CLEANUP="$CLEANUP chmod -R u+w \"$W\" 2>/dev/null;"
mkdir -p user && cp "$F/cudnn_ops_infer64_8.dll" user/zlibwapi.dll && chmod a-w user/zlibwapi.dll
expect 0 "$BUNDLER" create --from-archive "$stem.zip" --add-file user/zlibwapi.dll \
	--key "$FX/test.key" -o w8/ --level 3
b8=w8/cudnn-8.9.7.29-cuda12-windows-x86_64.bundle
expect 0 "$BUNDLER" inspect "$b8"
assert_contains last.out "platform    windows-x86_64"
assert_contains last.out "cuDNN       8.9.7.29 for CUDA 12"
assert_contains last.out "bin/cudnn64_8.dll"
assert_contains last.out "bin/zlibwapi.dll"
assert_contains last.out "lib/x64/cudnn.lib"
payload_matches "$b8" bin/zlibwapi.dll user/zlibwapi.dll
payload_matches "$b8" bin/cudnn64_8.dll "$F/cudnn64_8.dll"

note "9.18+ CUDA 13 zip: DLLs under bin/x64/ are packed in bin/"
# The fixtures' CUDA 13 list comes from this machine's (Linux) toolkit (winlib.sh).
win_mirror13 m13
stem=cudnn-windows-x86_64-9.19.0.56_cuda13-archive
archive_zip z9 "$stem" "9 19 0" bin/x64 "$F/cudnn64_9.dll" "$F/cudnn_graph64_9.dll"
# under a restrictive umask too
(umask 077; expect 0 "$BUNDLER" create --from-archive "$stem.zip" --mirror "file://$W/m13" --key "$FX/test.key" -o w9/ --level 3)
b9=w9/cudnn-9.19.0.56-cuda13-windows-x86_64.bundle
expect 0 "$BUNDLER" inspect "$b9"
assert_contains last.out "cuDNN       9.19.0.56 for CUDA 13"
assert_contains last.out "bin/cudnn64_9.dll"
assert_contains last.out "bin/cudnn_graph64_9.dll"
! grep -q "bin/x64" last.out || fail "bin/x64 kept: $(grep bin/x64 last.out)"
payload_matches "$b9" bin/cudnn64_9.dll "$F/cudnn64_9.dll"
# no Windows CUDA 13 driver minimum in the compatibility data: said in words, never "?"
assert_contains last.out "requires    no driver minimum known for windows-x86_64 CUDA 13,"
! grep -q '>= ?' last.out || fail "inspect shows '>= ?'"

note "the same DLL in bin/ and bin/x64/: refused (exit 9), nothing written"
cp "$F/cudnn64_9.dll" "z9/$stem/bin/"
(cd z9 && zip_dir "../dup-$stem.zip" "$stem")
mv "dup-$stem.zip" dup && mkdir -p d && mv dup "d/$stem.zip"
expect 9 "$BUNDLER" create --from-archive "d/$stem.zip" --mirror "file://$W/m13" --key "$FX/test.key" -o wd/ --level 3
assert_contains last.err "two files would be installed as bin/cudnn64_9.dll"
one_line_reason
[ ! -e wd/cudnn-9.19.0.56-cuda13-windows-x86_64.bundle ] || fail "output written"

note "legacy zip with real DLLs: cudnn-11.4-windows-x64-v8.2.2.26.zip"
mkdir -p leg/cuda/bin leg/cuda/lib/x64
header leg/cuda/include 8 2 2 cudnn.h
cp "$F/stale/cudnn64_8.dll" "$F/cudnn_ops_infer64_8.dll" leg/cuda/bin/
echo lib > leg/cuda/lib/x64/cudnn.lib
echo sla > leg/cuda/NVIDIA_SLA_cuDNN_Support.txt
(cd leg && zip_dir ../cudnn-11.4-windows-x64-v8.2.2.26.zip cuda)
expect 0 "$BUNDLER" create --from-archive cudnn-11.4-windows-x64-v8.2.2.26.zip \
	--add-file user/zlibwapi.dll --key "$FX/test.key" -o wl/ --level 3
bl=wl/cudnn-8.2.2.26-cuda11-windows-x86_64.bundle
payload_matches "$bl" bin/cudnn64_8.dll "$F/stale/cudnn64_8.dll"
payload_matches "$bl" bin/zlibwapi.dll user/zlibwapi.dll

note "--add-file refusals: exit 1, one line, nothing written"
cp user/zlibwapi.dll user/cudnn64_8.dll
expect 1 "$BUNDLER" create --from-archive cudnn-11.4-windows-x64-v8.2.2.26.zip \
	--add-file user/cudnn64_8.dll --key "$FX/test.key" -o r1/ --level 3
assert_contains last.err "the bundle already holds bin/cudnn64_8.dll"
one_line_reason
expect 1 "$BUNDLER" create --from-archive cudnn-11.4-windows-x64-v8.2.2.26.zip \
	--add-file user/zlibwapi.dll --add-file "$W/user/zlibwapi.dll" --key "$FX/test.key" -o r1/ --level 3
assert_contains last.err "the bundle already holds bin/zlibwapi.dll"
cp user/zlibwapi.dll 'user/bad name.dll'
cp user/zlibwapi.dll user/.hidden.dll
for bad in 'user/bad name.dll' user/.hidden.dll user user/absent.dll /dev/null; do
	expect 1 "$BUNDLER" create --from-archive cudnn-11.4-windows-x64-v8.2.2.26.zip \
		--add-file "$bad" --key "$FX/test.key" -o r1/ --level 3
	assert_contains last.err "--add-file"
	one_line_reason
done
[ -z "$(ls r1 2>/dev/null | grep -v '^SHA256SUMS$' | grep -v '^\.cuferry-work' || true)" ] ||
	fail "refused runs wrote $(ls r1)"

note "--add-file from another directory, with an absolute path, into a Linux bundle's lib/"
mkdir -p elsewhere && cd elsewhere
printf 'extra\n' > extra.txt
expect 0 "$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 --add-file "$W/elsewhere/extra.txt" \
	--key "$FX/test.key" -o "$W/lin.bundle" --level 3
cd "$W"
payload_matches lin.bundle lib/extra.txt elsewhere/extra.txt
expect 0 "$UNPACKER" verify lin.bundle --trust "$FX/test.pub"
echo ok
