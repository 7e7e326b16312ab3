#!/bin/sh
# test_windows_choose.sh - `unpacker.exe install DIR` (issue 18 on Windows) under Wine: a kit
# (bundler kit) of windows-x86_64 bundles for CUDA 11 and 12 (one carrying cuBLAS) and
# linux-x86_64 ones, with the kit's own unpacker.exe. The driver is the version resource of the nvcuda.dll planted in
# the Wine prefix's System32 (fake drivers 531.79 and 472.50), or none; cuBLAS is
# %CUDA_PATH%\bin\cublas64_N.dll. --dry-run picks the expected bundle and lists what it passed
# over; nothing fits: exit 4 with the list; no trusted key: exit 2. Skips (one line) only when
# unpacker.exe has not been built (make windows).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
need_unpacker_exe
F=$WIN/fakes
for f in cudnn64_9.dll cudnn64_8.dll driver531/nvcuda.dll driver472/nvcuda.dll; do
	[ -f "$F/$f" ] || fail "no $F/$f (make windows-fakes builds it)"
done
DRIVE_C=$WINEPREFIX_DIR/drive_c
SYSTEM32=$DRIVE_C/windows/system32
TRUST_WIN="--trust $(wine_path "$FX/test.pub")"
unset CUDA_PATH

# choose CODE DIR [ARGS...]: the kit's unpacker.exe install DIR --dry-run exits CODE; output in last.out.
choose() {
	want=$1 dir=$2; shift 2
	rc=0
	wine_run "$W/kit/windows-x86_64/unpacker.exe" install "$dir" --dry-run "$@" > last.out 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || { cat last.out >&2; fail "install $dir --dry-run $*: exit $rc, expected $want"; }
}
chose() { assert_contains last.out "^chose $1:"; }
set_driver() { # 531 | 472 | none
	rm -f "$SYSTEM32/nvcuda.dll"
	[ "$1" = none ] || cp "$F/driver$1/nvcuda.dll" "$SYSTEM32/nvcuda.dll"
}

note "windows-x86_64 bundles of the fake DLLs (9.19 with and without cuBLAS and 9.18 for CUDA 12, 8.9.5 for CUDA 11), linux-x86_64 ones"
win_tree() { # DIR CUDNN_MAJOR MINOR PATCH DLLS...
	d=$1 major=$2 minor=$3 patch=$4; shift 4
	mkdir -p "$d/bin" "$d/include" "$d/lib/x64"
	printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$major" "$minor" \
		"$patch" > "$d/include/cudnn_version.h"
	for dll; do cp "$F/$dll" "$d/bin/"; done
	echo lib > "$d/lib/x64/cudnn.lib"
}
make_bundle() { # TREE CUDA PLATFORM [more create options]
	tree=$1 cuda=$2 platform=$3; shift 3
	"$BUNDLER" create --from-dir "$tree" --cuda "$cuda" --platform "$platform" --key "$FX/test.key" \
		--level 1 -q -o in/ "$@" >/dev/null || fail "bundler create $tree $cuda $platform $*"
}
win_tree w919 9 19 0 cudnn64_9.dll cudnn_graph64_9.dll
win_tree w918 9 18 0 cudnn64_9.dll cudnn_graph64_9.dll
win_tree w895 8 9 5 cudnn64_8.dll cudnn_ops_infer64_8.dll
# 9.19 for CUDA 12 with (stand-in) cuBLAS and NVRTC packed: the component list from the mirror
win_tree w919libs 9 19 0 cudnn64_9.dll cudnn_graph64_9.dll
cp "$F/cudnn_graph64_9.dll" w919libs/bin/cublas64_12.dll
cp "$F/cudnn_graph64_9.dll" w919libs/bin/nvrtc64_120_0.dll
mkdir -p l/include l/lib in
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > l/include/cudnn_version.h
head -c 100000 /dev/urandom > l/lib/libcudnn.so.9
make_bundle w919 12 windows-x86_64
make_bundle w918 12 windows-x86_64
make_bundle w895 11 windows-x86_64
make_bundle w919libs 12 windows-x86_64 --with-cuda-libs --mirror "file://$FX/file-mirror"
[ -f in/cudnn-9.19.0-cuda12-cudalibs-windows-x86_64.bundle ] || { ls in; fail "no cudalibs bundle"; }
make_bundle l 12 linux-x86_64
make_bundle l 13 linux-x86_64
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit" $(for f in in/*.bundle; do printf -- '--bundle %s ' "$W/$f"; done)
[ -f kit/windows-x86_64/unpacker.exe ] && [ -f kit/linux-x86_64/unpacker ] || { ls -R kit; fail "the kit lacks an unpacker"; }
cmp -s -n "$(stat -c %s "$EXE")" kit/windows-x86_64/unpacker.exe "$EXE" || fail "the kit's unpacker.exe is not build/windows/unpacker.exe"
assert_contains kit/README.txt '"%ProgramFiles%\\cuferry\\unpacker.exe" install E:\\ /S'
assert_contains kit/README.txt '"%TEMP%\\unpacker.exe" self-install "%TEMP%\\unpacker.exe" --trust-fingerprint HEX'
# the first Windows server's install, after self-install, with the fingerprint (no key there yet)
assert_contains kit/README.txt '"%ProgramFiles%\\cuferry\\unpacker.exe" install E:\\ /S --trust-fingerprint HEX'
assert_contains kit/README.txt 'copy E:\\windows-x86_64\\unpacker.exe "%TEMP%\\unpacker.exe"'
assert_contains kit/README.txt 'certutil -hashfile "%TEMP%\\unpacker.exe" SHA256'
assert_contains kit/README.txt 'DSASignatureFormat\]::Rfc3279DerSequence'
# The Linux unpacker verifies the whole kit, the windows-x86_64 unpacker.exe container included;
# a changed byte in it is refused on its own.
expect 0 "$UNPACKER" verify kit --trust "$FX/test.pub"
assert_contains last.out "unpacker  windows-x86_64/unpacker.exe: signed by"
cp kit/windows-x86_64/unpacker.exe changed.exe
printf 'X' | dd of=changed.exe bs=1 seek=2000 conv=notrunc 2>/dev/null
expect 2 "$UNPACKER" self-install "$W/changed.exe" --root "$W/selfroot" --trust "$FX/test.pub"
# unpacker.exe verify KIT under Wine: the same checks with Windows paths.
rc=0
wine_run "$EXE" verify "$(wine_path "$W/kit")" $TRUST_WIN > last.out 2>&1 || rc=$?
[ $rc = 0 ] || { cat last.out; fail "unpacker.exe verify KIT: exit $rc"; }
assert_contains last.out "verified kit"
printf 'x' >> kit/README.txt
rc=0
wine_run "$EXE" verify "$(wine_path "$W/kit")" $TRUST_WIN > last.out 2>&1 || rc=$?
[ $rc = 3 ] || { cat last.out; fail "unpacker.exe verify KIT of a changed kit: exit $rc, expected 3"; }
truncate -s -1 kit/README.txt
# self-install under Wine: the tests' build (CUFERRY_FAULT=no-acl: Wine's C: is the user's)
# verifies the kit's unpacker.exe and installs it as %ProgramFiles%\cuferry\unpacker.exe.
rc=0
CUFERRY_FAULT=no-acl wine_run "$WIN/test-bin/unpacker.exe" self-install "$(wine_path "$W/kit")" $TRUST_WIN \
	> last.out 2>&1 || rc=$?
[ $rc = 0 ] || { cat last.out; fail "unpacker.exe self-install KIT: exit $rc"; }
assert_contains last.out "installed the unpacker"
cmp -s "$DRIVE_C/Program Files/cuferry/unpacker.exe" "$EXE" || fail "self-install did not install unpacker.exe"
rc=0
CUFERRY_FAULT=no-acl wine_run "$WIN/test-bin/unpacker.exe" self-install "$(wine_path "$W/changed.exe")" \
	$TRUST_WIN > last.out 2>&1 || rc=$?
[ $rc = 2 ] || { cat last.out; fail "unpacker.exe self-install of a changed unpacker.exe: exit $rc"; }
cmp -s "$DRIVE_C/Program Files/cuferry/unpacker.exe" "$EXE" || fail "a changed unpacker.exe was installed"
# The kit's container given by its path (KIT\windows-x86_64\unpacker.exe): taken as the kit's
# signed index lists it (its directory's parent has the index), backslashes and all.
rc=0
CUFERRY_FAULT=no-acl wine_run "$WIN/test-bin/unpacker.exe" self-install \
	"$(wine_path "$W/kit/windows-x86_64/unpacker.exe")" $TRUST_WIN -v > last.out 2>&1 || rc=$?
[ $rc = 0 ] || { cat last.out; fail "unpacker.exe self-install KIT\\windows-x86_64\\unpacker.exe: exit $rc"; }
assert_contains last.out "lies in a kit: checked against its signed index (windows-x86_64/unpacker.exe)"
assert_contains kit/README.txt '%ProgramData%\\cuferry\\trusted-keys'
KIT=$(wine_path "$W/kit")

note "no nvcuda.dll: no driver found, the CUDA major is not limited (as on Linux): 9.19 for CUDA 12"
set_driver none
choose 0 "$KIT" $TRUST_WIN
assert_contains last.out "this machine: windows-x86_64, no NVIDIA driver found"
chose cudnn-9.19.0-cuda12-cudalibs-windows-x86_64.bundle
assert_contains last.out "cudnn-9.19.0-cuda13-linux-x86_64.bundle: for linux-x86_64, this machine is windows-x86_64"
assert_contains last.out "dry run: would install"

note "driver 531.79 (CUDA 12), no cuBLAS here: 9.19 for CUDA 12 that carries it; the others passed over"
set_driver 531
choose 0 "$KIT" $TRUST_WIN
assert_contains last.out "driver 531.79 (CUDA 12 and older), no CUDA libraries (cublas64_\*.dll) found"
chose cudnn-9.19.0-cuda12-cudalibs-windows-x86_64.bundle
assert_contains last.out "(the driver's CUDA), carries the CUDA libraries this machine lacks"
assert_contains last.out "cudnn-9.19.0-cuda12-windows-x86_64.bundle: needs cublas64_12.dll, which this machine does not have"
assert_contains last.out "cudnn-8.9.5-cuda11-windows-x86_64.bundle: needs cublas64_11.dll"
assert_contains last.out "cudnn-9.18.0-cuda12-windows-x86_64.bundle: needs cublas64_12.dll"
assert_contains last.out "cudnn-9.19.0-cuda12-linux-x86_64.bundle: for linux-x86_64"
# The directory as a drive's root is given, with its backslash (E:\).
choose 0 "$KIT\\" $TRUST_WIN
chose cudnn-9.19.0-cuda12-cudalibs-windows-x86_64.bundle
choose 0 "$KIT" $TRUST_WIN --cuda 11
chose cudnn-8.9.5-cuda11-windows-x86_64.bundle
assert_contains last.out "(--cuda)"
assert_contains last.out "cublas64_11.dll is neither on this machine nor in cudnn-8.9.5-cuda11-windows-x86_64.bundle"

note "cuBLAS in the bin directory of %CUDA_PATH% counts as this machine's CUDA libraries"
mkdir -p "$DRIVE_C/cuda/bin"
cp "$F/cudnn_graph64_9.dll" "$DRIVE_C/cuda/bin/cublas64_12.dll"
export CUDA_PATH='C:\cuda'
choose 0 "$KIT" $TRUST_WIN
unset CUDA_PATH
assert_contains last.out "this machine: windows-x86_64, driver 531.79 (CUDA 12 and older), cublas64_12.dll"
chose cudnn-9.19.0-cuda12-windows-x86_64.bundle
assert_contains last.out "uses this machine's CUDA libraries"
assert_contains last.out "cudnn-9.19.0-cuda12-cudalibs-windows-x86_64.bundle: carries CUDA libraries this machine already has"
assert_contains last.out "cudnn-9.18.0-cuda12-windows-x86_64.bundle: cuDNN 9.18.0 is older than 9.19.0"
assert_contains last.out "cudnn-8.9.5-cuda11-windows-x86_64.bundle: needs cublas64_11.dll, which this machine does not have"

note "driver 472.50 (CUDA 11 at most): 8.9.5 for CUDA 11; the CUDA 12 ones need a newer driver"
set_driver 472
choose 0 "$KIT" $TRUST_WIN
assert_contains last.out "driver 472.50 (CUDA 11 and older)"
chose cudnn-8.9.5-cuda11-windows-x86_64.bundle
assert_contains last.out "cudnn-9.19.0-cuda12-windows-x86_64.bundle: needs driver >= 527.41, this machine has 472.50"

note "nothing fits: exit 4 naming the machine and every bundle of the directory"
mkdir new-only
cp in/cudnn-9.19.0-cuda12-windows-x86_64.bundle in/cudnn-9.19.0-cuda13-linux-x86_64.bundle new-only/
choose 4 "$(wine_path "$W/new-only")" $TRUST_WIN
assert_contains last.out "the kit offers:"
assert_contains last.out "no bundle in .* fits this machine (windows-x86_64, driver 472.50"
assert_contains last.out "cudnn-9.19.0-cuda12-windows-x86_64.bundle (needs driver >= 527.41"
assert_contains last.out "cudnn-9.19.0-cuda13-linux-x86_64.bundle (for linux-x86_64"
[ "$(grep -c 'error' last.out)" -eq 1 ] || { cat last.out >&2; fail "nothing fits: not one error line"; }

note "no trusted key: nothing is believed (exit 2)"
choose 2 "$KIT"

# ---- the install itself -------------------------------------------------------------------
# The tests' build (the kit's unpacker.exe would refuse Wine's C:\, which the user owns):
# CUFERRY_FAULT=no-acl relaxes that one check and nothing else.
note "install DIR installs the chosen bundle"
set_driver 531
rc=0
CUFERRY_FAULT=no-acl wine_run "$WIN/test-bin/unpacker.exe" install "$KIT" --no-validate --prefix 'C:\k' $TRUST_WIN \
	> last.out 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat last.out >&2; fail "install DIR --prefix C:\\k: exit $rc"; }
chose cudnn-9.19.0-cuda12-cudalibs-windows-x86_64.bundle
[ -n "$(find "$DRIVE_C/k" -name cublas64_12.dll)" ] || { find "$DRIVE_C/k" >&2; fail "the chosen bundle's cuBLAS is not under C:\\k"; }
[ -n "$(find "$DRIVE_C/k" -name cudnn64_9.dll)" ] || { find "$DRIVE_C/k" >&2; fail "nothing installed under C:\\k"; }
[ -z "$(find "$DRIVE_C/k" -name cudnn64_8.dll)" ] || fail "the CUDA 11 bundle was installed too"
echo "ok: unpacker.exe install DIR under Wine"
