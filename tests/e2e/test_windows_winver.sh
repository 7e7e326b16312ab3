#!/bin/sh
# test_windows_winver.sh - requires.windows_min (issue 25 item 11) under Wine. A windows-x86_64
# bundle whose DLL's PE header asks for Windows 10.0 (a fake DLL's subsystem version raised
# here, so the bundler records it) is refused by unpacker.exe install with exit 4 on a prefix
# that reports Windows 7 (HKCU\Software\Wine Version, what winecfg -v writes), one line naming
# both versions, the install already in the prefix untouched and nothing staged; install DIR
# passes it over with that reason and takes the older bundle that fits, or exits 4 when it is
# the only one. The same prefix reporting Windows 10 installs it. Skips (one line) only when
# unpacker.exe has not been built (make windows).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
need_seams_exe
F=$WIN/fakes
[ -f "$F/cudnn64_9.dll" ] || fail "no fake DLLs in $F (make windows-fakes builds them)"
K=$(wine_path "$FX/test.pub")
C=$WINEPREFIX_DIR/drive_c

# u CODE ARGS...: the tests' build (CUFERRY_FAULT=no-acl: Wine's C: is the user's) exits CODE;
# its output in last.out.
u() {
	want=$1; shift
	rc=0
	CUFERRY_FAULT=no-acl wine_run "$SEAMS" "$@" > last.out 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || { cat last.out >&2; fail "unpacker.exe $*: exit $rc, expected $want"; }
}
# win_version win7|win10: the Windows version this prefix's programs are told (RtlGetVersion).
win_version() {
	wine_run reg.exe add 'HKCU\Software\Wine' /v Version /t REG_SZ /d "$1" /f > /dev/null 2>&1 ||
		fail "reg add HKCU\\Software\\Wine Version $1 failed"
}
# pe_subsystem DLL MAJOR.MINOR: the DLL's PE optional header names that subsystem version.
pe_subsystem() {
	py - "$1" "$2" <<'PY'
import struct, sys
path, (major, minor) = sys.argv[1], (int(x) for x in sys.argv[2].split("."))
b = bytearray(open(path, "rb").read())
pe = struct.unpack_from("<I", b, 60)[0]
assert b[pe:pe + 4] == b"PE\0\0", "not a PE file"
struct.pack_into("<HH", b, pe + 24 + 48, major, minor)
open(path, "wb").write(b)
PY
}
win_tree() { # DIR MINOR DLLS...: cuDNN 9.MINOR.0 of the fake DLLs
	d=$1 minor=$2; shift 2
	mkdir -p "$d/bin" "$d/include" "$d/lib/x64"
	printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL 0\n' "$minor" \
		> "$d/include/cudnn_version.h"
	for dll; do cp "$F/$dll" "$d/bin/"; done
	echo lib > "$d/lib/x64/cudnn.lib"
}

note "bundles of the fake DLLs: 9.19 whose cudnn64_9.dll asks for Windows 10.0, 9.18 as built"
win_tree w919 19 cudnn64_9.dll cudnn_graph64_9.dll
pe_subsystem w919/bin/cudnn64_9.dll 10.0
win_tree w918 18 cudnn64_9.dll cudnn_graph64_9.dll
mkdir in
for t in w919 w918; do
	expect 0 "$BUNDLER" create --from-dir "$t" --cuda 12 --platform windows-x86_64 --key "$FX/test.key" \
		--level 1 -q -o in/
done
NEW=in/cudnn-9.19.0-cuda12-windows-x86_64.bundle
OLD=in/cudnn-9.18.0-cuda12-windows-x86_64.bundle
[ -f "$NEW" ] && [ -f "$OLD" ] || { ls in >&2; fail "the bundler made no $NEW / $OLD"; }
expect 0 "$BUNDLER" inspect "$NEW"
assert_contains last.out "Windows >= 10.0"
expect 0 "$BUNDLER" inspect "$OLD"
old_min=$(sed -n 's/.*Windows >= \([0-9.]*\).*/\1/p' last.out)
[ -n "$old_min" ] || { cat last.out >&2; fail "bundler inspect shows no Windows version for $OLD"; }
note "the fakes as built ask for Windows $old_min"
# cuBLAS for CUDA 12 on this machine, so that the chooser takes a bundle without it
mkdir -p "$C/cuda/bin"
cp "$F/cudnn_graph64_9.dll" "$C/cuda/bin/cublas64_12.dll"
export CUDA_PATH='C:\cuda'

note "reported as Windows 7: install refuses the 9.19 bundle (exit 4), naming both versions"
win_version win7
u 0 install "$(wine_path "$W/$OLD")" --prefix 'C:\w' --trust "$K" --no-validate --no-env
tree_listing "$C/w" > before
u 4 install "$(wine_path "$W/$NEW")" --prefix 'C:\w' --trust "$K" --no-validate --no-env
assert_contains last.out "cuDNN 9.19.0 needs Windows 10.0 (its DLLs' PE headers), this machine runs Windows 6.1"
[ "$(grep -c 'error' last.out)" -eq 1 ] || { cat last.out >&2; fail "not one error line"; }
tree_listing "$C/w" > after
cmp -s before after || { diff before after >&2; fail "the refused install changed the prefix"; }
[ -z "$(find "$C/w" -name 'cudnn-9.19*')" ] || fail "something of 9.19 was staged under C:\\w"
no_staging "$C/w"

note "install DIR, Windows 7: 9.19 passed over with the reason, 9.18 chosen"
u 0 install "$(wine_path "$W/in")" --dry-run --trust "$K"
assert_contains last.out "^chose cudnn-9.18.0-cuda12-windows-x86_64.bundle:"
assert_contains last.out "cudnn-9.19.0-cuda12-windows-x86_64.bundle: cuDNN 9.19.0 needs Windows 10.0"
mkdir new-only
cp "$NEW" new-only/
u 4 install "$(wine_path "$W/new-only")" --dry-run --trust "$K"
assert_contains last.out "no bundle in .* fits this machine"
assert_contains last.out "cudnn-9.19.0-cuda12-windows-x86_64.bundle (cuDNN 9.19.0 needs Windows 10.0"

note "reported as Windows 10: the same bundle installs, and install DIR takes it"
win_version win10
u 0 install "$(wine_path "$W/in")" --dry-run --trust "$K"
assert_contains last.out "^chose cudnn-9.19.0-cuda12-windows-x86_64.bundle:"
u 0 install "$(wine_path "$W/$NEW")" --prefix 'C:\w' --trust "$K" --no-validate --no-env
[ -n "$(find "$C/w" -path '*cudnn-9.19.0*' -name cudnn64_9.dll)" ] || { find "$C/w" >&2; fail "9.19 not installed"; }
echo "ok: unpacker.exe refuses a bundle for a newer Windows, installs it on one"
