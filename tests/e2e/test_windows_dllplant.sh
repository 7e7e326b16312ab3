#!/bin/sh
# test_windows_dllplant.sh - unpacker.exe, and the self-extracting .exe whose stub it is, load
# no DLL from beside themselves (a stick) or from the working directory (issue 23 item 3),
# under Wine: both builds import KnownDLLs only (tools/windows-known-dlls.txt); a DLL that
# records it was loaded is built under every name they import (objdump -p) and every name
# they load at run time (version.dll, bcrypt.dll, user32.dll, the driver's and cuDNN's DLLs),
# planted beside the programs and in the working directory, with native load order forced
# for each that is not a KnownDLL; --help, verify, an install through the .exe and validate
# (its probe child too) then load none of them. A control shows a planted DLL does record
# when something loads it. Skips (one line) only when unpacker.exe has not been built.
#
# Wine has no KnownDLLs: forced native, it would load a kernel32.dll lying beside a program,
# which Windows never does. So KnownDLL names are planted with Wine's own load order; what
# protects them on Windows is that the import list holds nothing else, checked here and when
# the programs are linked.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
need_unpacker_exe
F=$WIN/fakes
SEAMS=$WIN/test-bin/unpacker.exe
[ -f "$F/cudnn64_9.dll" ] || fail "no fake DLLs in $F (make windows-fakes builds them)"
[ -f "$SEAMS" ] || fail "no $SEAMS (make test builds it)"
grep -v '^#' "$TOP/tools/windows-known-dlls.txt" | tr 'A-Z' 'a-z' > known

note "both builds import KnownDLLs only (objdump -p)"
: > imports
for exe in "$EXE" "$SEAMS"; do
	# "DLL member" for every name imported, as objdump prints the import tables.
	x86_64-w64-mingw32-objdump -p "$exe" | awk '/^\tDLL Name: / { d = $3 }
		/^\t[0-9a-f]+\t +[0-9]+ +[A-Za-z_]/ && d != "" { print d, $3 }' >> imports
	x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^\tDLL Name: //p' | tr 'A-Z' 'a-z' > dlls
	[ -s dlls ] || fail "objdump -p shows no imports of $exe"
	grep -v -x -F -f known dlls > foreign || true
	[ ! -s foreign ] || fail "$exe imports DLLs that are not KnownDLLs: $(tr '\n' ' ' < foreign)"
done

note "a bundle of the fake DLLs, and its self-extracting .exe (the tests' stub: Wine's owners)"
mkdir -p t/bin t/include t/lib/x64
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > t/include/cudnn_version.h
cp "$F/cudnn64_9.dll" "$F/cudnn_graph64_9.dll" t/bin/
echo lib > t/lib/x64/cudnn.lib
win_mirror13 m13
expect 0 "$BUNDLER" create --from-dir t --cuda 13 --platform windows-x86_64 --mirror "file://$W/m13" \
	--key "$FX/test.key" --level 1 -o w/
b=w/cudnn-9.19.0-cuda13-windows-x86_64.bundle
[ -f "$b" ] || fail "no $b"

note "the stick: unpacker.exe and the .exe, with a recording DLL under every name beside them"
STICK=$W/stick
mkdir -p "$STICK" cwd marks
cp "$EXE" "$STICK/unpacker.exe"
expect 0 "$BUNDLER" sfx "$b" --platform windows-x86_64 --key "$FX/test.key" --unpacker "$SEAMS" \
	-o "$STICK/cudnn.exe"
# Every DLL the programs import, and those they load at run time: version.dll and user32.dll
# (platform_win_sysdll.c), bcrypt.dll (no longer linked), the driver and the cuDNN DLLs
# (loaded by full path).
{ cut -d' ' -f1 imports | tr 'A-Z' 'a-z'
  printf '%s\n' version.dll bcrypt.dll user32.dll nvcuda.dll cudnn64_9.dll cudnn_graph64_9.dll
} | sort -u > names
forced=
for name in $(cat names); do
	for place in stick cwd; do
		{ echo "LIBRARY $name"; echo EXPORTS
		  awk -v d="$name" 'tolower($1) == d { print $2 "=plant_stub" }' imports | sort -u
		} > "$name.def"
		marker=$(wine_path "$W/marks/$place-$name")
		x86_64-w64-mingw32-gcc -shared -nostdlib -O1 -Wl,-e,plant_entry \
			"-DPLANT_MARKER=\"\\\\??\\\\$(printf '%s' "$marker" | sed 's/\\/\\\\/g')\"" \
			-o "$W/$place/$name" "$TOP/tests/tools/plantdll.c" "$name.def" -lntdll ||
			fail "cannot build the planted $name"
	done
	grep -q -x -F "$name" known || forced="$forced${forced:+,}${name%.dll}"
done
echo "planted: $(tr '\n' ' ' < names)"
echo "native load order forced for: $forced"
# Forced in the registry too, which Wine reads in every process: the probe child gets an
# environment of its own making, without WINEDLLOVERRIDES.
for d in $(echo "$forced" | tr , ' '); do
	wine_run reg.exe add 'HKCU\Software\Wine\DllOverrides' /v "$d" /d native,builtin /f > /dev/null 2>&1 ||
		fail "reg add DllOverrides $d failed"
done
export WINEDLLOVERRIDES="$forced=n,b"

# planted_run CODE EXE ARGS...: EXE (a Windows path) run from the working directory cwd/;
# its exit code is CODE, its output in last.out.
planted_run() {
	want=$1; shift
	rc=0
	(cd "$W/cwd" && sh "$TOP/tests/tools/winrun.sh" "$WINEPREFIX_DIR" "$@") > last.out 2>&1 || rc=$?
	[ $rc -ne 77 ] || { echo "SKIP $NAME: Wine cannot start here"; exit 0; }
	[ "$rc" -eq "$want" ] || { cat last.out >&2; fail "$*: exit $rc, expected $want"; }
}
none_loaded() {
	loaded=$(ls marks)
	[ -z "$loaded" ] || fail "$1 loaded a planted DLL: $(echo $loaded)"
}

C=$WINEPREFIX_DIR/drive_c
cp "$F/nvcuda.dll" "$C/windows/system32/nvcuda.dll"
U=$(wine_path "$STICK/unpacker.exe")
X=$(wine_path "$STICK/cudnn.exe")
TRUST=$(wine_path "$FX/test.pub")

note "--help and --version"
planted_run 0 "$U" --help
assert_contains last.out "unpacker verify BUNDLE"
planted_run 0 "$U" --version
none_loaded "unpacker.exe --help and --version"

note "verify: the bundle, and the .exe itself"
planted_run 0 "$U" verify "$(wine_path "$W/$b")" --trust "$TRUST"
planted_run 0 "$X" verify --trust "$TRUST"
none_loaded "verify"

note "an install through the .exe (the tests' stub: Wine's C: drive is the user's)"
CUFERRY_FAULT=no-acl planted_run 0 "$X" /S --no-validate --no-env --prefix 'C:\good' --trust "$TRUST"
[ -n "$(find "$C/good" -name cudnn64_9.dll)" ] || fail "the .exe installed no cudnn64_9.dll"
none_loaded "the install"
# The install's log went to C:\ProgramData\cuferry, which Wine gives the user: validate would
# refuse it as a trust directory (step 1). Not what this test looks at.
rm -rf "$C/ProgramData/cuferry"

note "validate, its probe child loading cuDNN and the driver"
mkdir -p "$C/CUDA/v13.0/bin"
for d in cublas64_13.dll cublasLt64_13.dll nvrtc64_130_0.dll; do cp "$F/zlib/zlibwapi.dll" "$C/CUDA/v13.0/bin/$d"; done
win_user_path 'C:\good\cudnn-9.19.0-cuda13\bin;C:\CUDA\v13.0\bin'
planted_run 0 "$U" validate --prefix 'C:\good' --trust "$TRUST" --quick-validate
assert_contains last.out "cuDNN 9.19.0"
none_loaded "validate"
planted_run 0 "$U" doctor
none_loaded "doctor"

note "the control: a planted DLL records when something does load it"
planted_run 3 "$F/loadfakes.exe" "$(wine_path "$STICK/version.dll")" cudnnGetVersion 0
[ -f marks/stick-version.dll ] || fail "the planted version.dll was loaded and recorded nothing"
echo "ok: nothing planted beside unpacker.exe or the .exe, or in the working directory, was loaded"
