#!/bin/sh
# test_windows_validate.sh - `unpacker.exe validate` and `doctor` under Wine, on installs made
# by unpacker.exe (win_install: the tests' build, --no-validate) from bundles of the fake DLLs,
# with the fake nvcuda.dll planted in the Wine prefix's System32: steps 1-6 pass; the wrong cuDNN fails
# step 6; a stale copy in System32 or earlier on the registry PATH fails step 3 (and doctor
# names it with its version); a cuDNN 8 importing zlibwapi.dll fails step 4 without it and
# passes with it; a changed byte fails step 1; the probe child runs restricted, started so; the
# running program's file cannot be renamed or replaced. Skips (one
# line) only when unpacker.exe has not been built.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
need_unpacker_exe
F=$WIN/fakes
[ -f "$F/zlib/cudnn64_8.dll" ] || fail "no fake DLLs in $F (make windows-fakes builds them)"

# has TEXT: last.out holds TEXT, as a fixed string (Windows paths are full of backslashes)
has() { tr -d '\r' < last.out | grep -qF -- "$1" || { cat last.out >&2; fail "'$1' not in the output"; }; }
# step_is N CHECK STATUS: the (first) row of step N's CHECK in last.out says STATUS
step_is() {
	row=$(tr -d '\r' < last.out | awk -v n="$1" -v c="$2" '$1 == n && $2 == c { print; exit }')
	case $row in *" $3 "*) ;; *) cat last.out >&2; fail "step $1 $2 is not $3: $row" ;; esac
}

wine_run cmd.exe /c exit 0 || fail "Wine cannot run cmd.exe"
C=$WINEPREFIX_DIR/drive_c
SYS32=$C/windows/system32
cp "$F/nvcuda.dll" "$SYS32/nvcuda.dll"
TRUST=$(wine_path "$FX/test.pub")

note "bundles of the fake DLLs: cuDNN 9 for CUDA 13, the wrong cuDNN 9, cuDNN 8 for CUDA 12"
win_mirror13 m13
s9=cudnn-windows-x86_64-9.19.0.56_cuda13-archive
win_archive_zip z9 "$s9" "9 19 0" "$F/cudnn64_9.dll" "$F/cudnn_graph64_9.dll"
expect 0 "$BUNDLER" create --from-archive "$s9.zip" --mirror "file://$W/m13" --key "$FX/test.key" -o w9/ --level 3
b9=w9/cudnn-9.19.0.56-cuda13-windows-x86_64.bundle
win_archive_zip zw "$s9" "9 19 0" "$F/wrong/cudnn64_9.dll" "$F/cudnn_graph64_9.dll"
mkdir -p wz && mv "$s9.zip" wz/
expect 0 "$BUNDLER" create --from-archive "wz/$s9.zip" --mirror "file://$W/m13" --key "$FX/test.key" -o ww/ --level 3
bw=ww/cudnn-9.19.0.56-cuda13-windows-x86_64.bundle

note "good fakes: steps 1-6 pass"
win_install "$C/good" "$b9"
GOOD='C:\good\cudnn-9.19.0.56-cuda13\bin'
win_user_path "$GOOD"
# cuDNN 9 imports no cuBLAS or NVRTC but loads them by name at run time: without them on the
# machine step 4 names each, with where to get it.
wine_expect 6 validate --prefix 'C:\good' --trust "$TRUST" --quick-validate
step_is 4 dependencies fail
has "cublasLt64_13.dll missing (imported by cuDNN, at run time): CUDA 13's cublasLt"
has "nvrtc64_130_0.dll missing"
# A CUDA 13 toolkit's bin\ on PATH (the files are looked at, not loaded: any bytes will do).
mkdir -p "$C/CUDA/v13.0/bin"
for d in cublas64_13.dll cublasLt64_13.dll nvrtc64_130_0.dll; do cp "$F/zlib/zlibwapi.dll" "$C/CUDA/v13.0/bin/$d"; done
win_user_path "$GOOD;C:\CUDA\v13.0\bin"
wine_expect 0 validate --prefix 'C:\good' --trust "$TRUST" --quick-validate
for s in "1 signature" "1 files" "2 library" "3 resolution" "4 dependencies" "5 driver" "6 compute"; do
	# shellcheck disable=SC2086
	step_is $s pass
done
has "driver 581.80"
has "gets the install (C:\good\cudnn-9.19.0.56-cuda13\bin\cudnn64_9.dll, through the user's PATH)"

note "the probe child runs restricted: what Wine shows of it"
tr -d '\r' < "$C/good/cudnn-9.19.0.56-cuda13/.cuferry/report.json" > report.json
# The token read back in the child: every privilege removed but bypass-traverse (Windows and
# Wine); the integrity level is Low on Windows, and Wine has none to lower (it says so).
py - report.json > rights.txt <<'PY' || fail "report.json: no probe_rights in step 2"
import json, sys
checks = json.load(open(sys.argv[1]))["validation"]["checks"]
lib = [c for c in checks if c["check"] == "library"][0]
print("probe child: uid %s, %s" % (lib["probe_uid"], lib["probe_rights"]))
PY
cat rights.txt
grep -q "1 privilege left (SeChangeNotifyPrivilege)" rights.txt || fail "the probe child kept privileges: $(cat rights.txt)"
# It was created so (a restricted token: Administrators deny-only), not merely dropped inside
# itself, which cannot give up a group.
grep -q "Administrators deny-only" rights.txt || fail "the probe child was started with Administrators: $(cat rights.txt)"

note "the program's own file is held while it runs: not renamed, not overwritten"
# The attack on a stick: the running unpacker.exe renamed away and another put in its place,
# which the probe would have started. Tried from inside Wine (its file sharing rules), while
# a copy of the tests' build waits at env:pause.
need_seams_exe
mkdir -p "$C/stick"
cp "$SEAMS" "$C/stick/unpacker.exe"
cp "$F/loadfakes.exe" "$C/stick/other.exe"
win_pause env "$C/stick/unpacker.exe" install "$b9" --prefix 'C:\held' --trust "$TRUST" --no-validate --no-env
wine_run cmd.exe /c move 'C:\stick\unpacker.exe' 'C:\stick\moved.exe' > /dev/null 2>&1 || true
wine_run cmd.exe /c copy /y 'C:\stick\other.exe' 'C:\stick\unpacker.exe' > /dev/null 2>&1 || true
cmp -s "$SEAMS" "$C/stick/unpacker.exe" && [ ! -e "$C/stick/moved.exe" ] ||
	{ win_kill_paused; fail "the running unpacker.exe was renamed or replaced"; }
win_kill_paused

note "the wrong cuDNN: step 6 fails (exit 6)"
win_install "$C/wrong" "$bw"
win_user_path 'C:\wrong\cudnn-9.19.0.56-cuda13\bin;C:\CUDA\v13.0\bin'
wine_expect 6 validate --prefix 'C:\wrong' --trust "$TRUST" --quick-validate
step_is 2 library pass
step_is 6 compute fail
has "validation failed: step 6 compute gpu0"

note "cuDNN 8 for CUDA 12: passes; a changed byte in a DLL fails step 1 (exit 6)"
s8=cudnn-windows-x86_64-8.9.7.29_cuda12-archive
win_archive_zip z8 "$s8" "8 9 7" "$F/cudnn64_8.dll" "$F/cudnn_ops_infer64_8.dll"
expect 0 "$BUNDLER" create --from-archive "$s8.zip" --key "$FX/test.key" -o w8/ --level 3
b8=w8/cudnn-8.9.7.29-cuda12-windows-x86_64.bundle
win_install "$C/v8" "$b8"
V8='C:\v8\cudnn-8.9.7.29-cuda12\bin'
win_user_path "$V8"
wine_expect 0 validate --prefix 'C:\v8' --trust "$TRUST" --quick-validate
step_is 3 resolution pass
cp -r "$C/v8" "$C/flip"
dll=$C/flip/cudnn-8.9.7.29-cuda12/bin/cudnn_ops_infer64_8.dll
py -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[len(b) // 2] ^= 0x01; open(sys.argv[1], 'wb').write(b)" "$dll"
wine_expect 6 validate --prefix 'C:\flip' --trust "$TRUST" --quick-validate
step_is 1 files fail
step_is 2 library skip
has "bin/cudnn_ops_infer64_8.dll: SHA-256 differs from the manifest"

note "a stale cuDNN 8.2.2 in System32: step 3 fails naming it, doctor lists it with its version"
cp "$F/stale/cudnn64_8.dll" "$SYS32/cudnn64_8.dll"
wine_expect 6 validate --prefix 'C:\v8' --trust "$TRUST" --quick-validate
step_is 3 resolution fail
has 'gets C:\windows\system32\cudnn64_8.dll (version 8.2.2.26) in System32'
has "remove or rename it"
wine_expect 6 doctor --prefix 'C:\v8'

has '8.2.2.26'
has 'C:\windows\system32\cudnn64_8.dll'
rm -f "$SYS32/cudnn64_8.dll"

note "an older copy earlier on PATH (the machine's, in a CUDA bin\\): named by step 3 and doctor"
mkdir -p "$C/CUDA/v11.4/bin"
cp "$F/stale/cudnn64_8.dll" "$C/CUDA/v11.4/bin/"
win_machine_path '%SystemRoot%\system32;%SystemRoot%;C:\CUDA\v11.4\bin'
wine_expect 6 validate --prefix 'C:\v8' --trust "$TRUST" --quick-validate
step_is 3 resolution fail
has 'gets C:\CUDA\v11.4\bin\cudnn64_8.dll (version 8.2.2.26), which comes earlier on the machine'"'"'s PATH'
wine_expect 6 doctor --prefix 'C:\v8'

has 'C:\CUDA\v11.4\bin\cudnn64_8.dll'
win_machine_path '%SystemRoot%\system32;%SystemRoot%'
# off PATH but the toolkit's own directory: listed, not loaded
wine_run reg.exe add 'HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment' \
	/v CUDA_PATH /t REG_SZ /d 'C:\CUDA\v11.4' /f > /dev/null 2>&1 || fail "reg add CUDA_PATH failed"
wine_expect 0 doctor --prefix 'C:\v8'
has "the installed copy wins"
has 'C:\CUDA\v11.4\bin\cudnn64_8.dll'
has '%CUDA_PATH%\bin'

note "cuDNN 8 importing zlibwapi.dll: step 4 names it when missing, passes with --add-file"
win_archive_zip zz "$s8" "8 9 7" "$F/zlib/cudnn64_8.dll" "$F/cudnn_ops_infer64_8.dll"
mkdir -p zlz && mv "$s8.zip" zlz/
expect 0 "$BUNDLER" create --from-archive "zlz/$s8.zip" --key "$FX/test.key" -o wzl/ --level 3
win_install "$C/zl" "wzl/cudnn-8.9.7.29-cuda12-windows-x86_64.bundle"
win_user_path 'C:\zl\cudnn-8.9.7.29-cuda12\bin'
wine_expect 6 validate --prefix 'C:\zl' --trust "$TRUST" --quick-validate
step_is 4 dependencies fail
has "zlibwapi.dll missing (imported by cudnn64_8.dll)"
has "--add-file zlibwapi.dll"
expect 0 "$BUNDLER" create --from-archive "zlz/$s8.zip" --add-file "$F/zlib/zlibwapi.dll" \
	--key "$FX/test.key" -o wz2/ --level 3
win_install "$C/zl2" "wz2/cudnn-8.9.7.29-cuda12-windows-x86_64.bundle"
win_user_path 'C:\zl2\cudnn-8.9.7.29-cuda12\bin'
wine_expect 0 validate --prefix 'C:\zl2' --trust "$TRUST" --quick-validate
step_is 4 dependencies pass
step_is 2 library pass
echo "ok: unpacker.exe validate and doctor under Wine"
