# winlib.sh - Wine for the Windows end-to-end tests (sourced after lib.sh): a private prefix
# under the scratch dir $W, removed with it.
WIN=$B/windows
WINEPREFIX_DIR=$W/wineprefix

# wine_run EXE [ARGS...]: the program's exit code; a test whose Wine cannot start says SKIP.
wine_run() {
	rc=0
	sh "$TOP/tests/tools/winrun.sh" "$WINEPREFIX_DIR" "$@" || rc=$?
	if [ $rc -eq 77 ]; then
		echo "SKIP $NAME: Wine cannot start here"
		exit 0
	fi
	return $rc
}

# The Windows path Wine gives a file of this machine (Z: maps /).
wine_path() { printf 'Z:%s' "$1" | tr / '\\'; }

# wine_stop: end this prefix's wineserver (started by the first wine_run) before $W goes.
wine_stop() {
	WINEPREFIX="$WINEPREFIX_DIR" wineserver -k 2>/dev/null || true
}
CLEANUP="$CLEANUP wine_stop;"

# win_install PREFIX BUNDLE: the bundle installed by unpacker.exe (the tests' build, whose
# CUFERRY_FAULT=no-acl accepts Wine's C: drive, which the user owns) into PREFIX, a directory
# under the Wine prefix's drive_c, with neither validation nor environment: what validate and
# doctor then look at is exactly what an install leaves.
win_install() {
	_p=$(printf 'C:%s' "${1#"$WINEPREFIX_DIR/drive_c"}" | tr / '\\')
	_rc=0
	CUFERRY_FAULT=no-acl wine_run "$WIN/test-bin/unpacker.exe" install "$2" --prefix "$_p" \
		--trust "$(wine_path "$FX/test.pub")" --no-validate --no-env > "$W/install.out" 2>&1 || _rc=$?
	[ $_rc -eq 0 ] || { cat "$W/install.out" >&2; fail "win_install $2 into $_p: exit $_rc"; }
}

# win_archive_zip DIR STEM "MAJOR MINOR PATCH" DLL...: NVIDIA's 8.3+ Windows archive layout in
# DIR (include/cudnn_version.h, bin/ with the DLLs, lib/x64/, LICENSE), zipped as ./STEM.zip.
win_archive_zip() {
	_d=$1 _s=$2 _v=$3; shift 3
	mkdir -p "$_d/$_s/bin" "$_d/$_s/include" "$_d/$_s/lib/x64"
	# shellcheck disable=SC2086
	printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' $_v \
		> "$_d/$_s/include/cudnn_version.h"
	cp "$@" "$_d/$_s/bin/"
	echo lib > "$_d/$_s/lib/x64/cudnn.lib"
	echo licence > "$_d/$_s/LICENSE"
	(cd "$_d" && py -c "
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
for d, _, fs in os.walk(sys.argv[2]):
    for f in sorted(fs): z.write(os.path.join(d, f))
z.close()" "../$_s.zip" "$_s")
}

# win_mirror13 DIR: a file:// mirror in DIR whose CUDA 13 list also names each component for
# windows-x86_64, as NVIDIA's does (the fixtures' list comes from a Linux toolkit).
win_mirror13() {
	mkdir -p "$1/cuda/redist"
	py - "$FX/file-mirror/cuda/redist/redistrib_13.0.2.json" "$1/cuda/redist/redistrib_13.0.2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k, v in d.items():
    if isinstance(v, dict) and "linux-x86_64" in v:
        w = dict(v["linux-x86_64"])
        w["relative_path"] = w["relative_path"].replace("linux-x86_64", "windows-x86_64").replace(".tar.xz", ".zip")
        v["windows-x86_64"] = w
json.dump(d, open(sys.argv[2], "w"))
PY
}

# win_user_path VALUE: this prefix's user PATH (HKCU\Environment), stored REG_EXPAND_SZ as the
# Windows install stores it; win_machine_path VALUE: the machine's (HKLM).
win_user_path() {
	wine_run reg.exe add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d "$1" /f > /dev/null 2>&1 ||
		fail "reg add HKCU\\Environment Path failed"
}
win_machine_path() {
	wine_run reg.exe add 'HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment' \
		/v Path /t REG_EXPAND_SZ /d "$1" /f > /dev/null 2>&1 || fail "reg add HKLM Path failed"
}

# need_unpacker_exe: EXE=build/windows/unpacker.exe, or a SKIP line when it was not built (the
# one thing these tests cannot do without).
need_unpacker_exe() {
	EXE=$WIN/unpacker.exe
	if [ ! -f "$EXE" ]; then
		echo "SKIP $NAME: no $EXE (make windows builds it)"
		exit 0
	fi
}

# need_both_exes: EXE=build/windows/unpacker.exe (the shipped one) and SEAMS (the tests'
# build), or a SKIP line when either was not built.
need_both_exes() {
	EXE=$WIN/unpacker.exe
	SEAMS=$WIN/test-bin/unpacker.exe
	if [ ! -f "$EXE" ] || [ ! -f "$SEAMS" ]; then
		echo "SKIP $NAME: no $EXE or $SEAMS (make windows $SEAMS builds them)"
		exit 0
	fi
}

# need_seams_exe: SEAMS=build/windows/test-bin/unpacker.exe (the tests' build, whose
# CUFERRY_FAULT seams the shipped one ignores), or a SKIP line when it was not built.
need_seams_exe() {
	SEAMS=$WIN/test-bin/unpacker.exe
	if [ ! -f "$SEAMS" ]; then
		echo "SKIP $NAME: no $SEAMS (make windows builds it)"
		exit 0
	fi
}

# wine_expect CODE ARGS...: unpacker.exe's exit code is CODE; its output in last.out.
wine_expect() {
	want=$1; shift
	rc=0
	wine_run "$EXE" "$@" > last.out 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || { cat last.out >&2; fail "unpacker.exe $*: exit $rc, expected $want"; }
}

# win_pause STEP EXE ARGS...: EXE (the tests' build) started in the background with
# CUFERRY_FAULT=no-acl,STEP:pause and waiting there, the install's lock held, until
# win_kill_paused; on Windows the pause waits for the end of standard input, and winrun.sh
# execs Wine, so $held is the unpacker.exe process itself.
win_pause() {
	_step=$1; shift
	mkfifo "$W/hold"
	CUFERRY_FAULT=no-acl,$_step:pause sh "$TOP/tests/tools/winrun.sh" "$WINEPREFIX_DIR" "$@" \
		< "$W/hold" > "$W/paused.out" 2>&1 &
	held=$!
	exec 3> "$W/hold"
	_i=0
	until grep -q "paused at $_step" "$W/paused.out"; do
		kill -0 "$held" 2>/dev/null || { cat "$W/paused.out" >&2; fail "the paused install ended"; }
		_i=$((_i + 1))
		[ $_i -lt 600 ] || fail "the install never reached $_step:pause"
		sleep 0.5
	done
}
# win_kill_paused: the paused unpacker.exe killed (kill -9), as a crash would end it.
win_kill_paused() {
	kill -9 "$held"
	wait "$held" 2>/dev/null || true
	exec 3>&-
	rm -f "$W/hold"
}
