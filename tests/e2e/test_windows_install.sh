#!/bin/sh
# test_windows_install.sh - install, re-run, repair, list, use, env, uninstall and rollback of
# windows-x86_64 bundles (made here from the fake DLLs) by unpacker.exe under Wine, in a private
# WINEPREFIX: the prefix rule, the layout (no current link: state.json names it), the registry
# PATH and CUDNN_PATH (machine scope as an Administrator, user scope with --env=user) kept
# byte for byte and REG_EXPAND_SZ around our one entry, and put back exactly by a rollback.
# Most cases pass --no-validate (quicker); the last ones validate: cuDNN 8 for CUDA 12 passes
# steps 1-6 on the fake nvcuda.dll in System32, and a bundle whose DLL answers for another CUDA
# (step 2 fails) is rolled back: the previous install current again, the registry exact.
#
# Wine reads every file as the user's and keeps no DACL, so an Administrator's install is
# refused by the shipped unpacker.exe (shown below), even in a directory it made itself with its
# own protected DACL; the rest runs the tests' build with CUFERRY_FAULT=no-acl, which skips only
# that ownership check.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
need_both_exes
F=$WIN/fakes
[ -f "$F/cudnn64_9.dll" ] || fail "no fake DLLs in $F (make windows-fakes builds them)"
K=$(wine_path "$FX/test.pub")
C=$WINEPREFIX_DIR/drive_c
MKEY='HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment'
UKEY='HKCU\Environment'

# run_as EXE CODE ARGS...: exit code CODE, output in last.out.
run_as() {
	exe=$1 want=$2; shift 2
	rc=0
	wine_run "$exe" "$@" > last.out 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || { cat last.out >&2; fail "unpacker.exe $*: exit $rc, expected $want"; }
}
# u CODE ARGS...: the tests' build, with Wine's missing owners allowed (CUFERRY_FAULT=no-acl
# and whatever FAULT adds).
u() {
	CUFERRY_FAULT="no-acl${FAULT:+,$FAULT}" run_as "$SEAMS" "$@"
}

# reg_get KEY NAME: "TYPE VALUE" as stored, or "absent".
reg_get() {
	wine_run reg query "$1" /v "$2" > reg.out 2>/dev/null || { echo absent; return 0; }
	tr -d '\r' < reg.out | sed -n "s/^    $2    \(REG_[A-Z_]*\)    \(.*\)\$/\1 \2/p"
}
reg_set() { wine_run reg add "$1" /v "$2" /t "$3" /d "$4" /f > /dev/null 2>&1 || fail "reg add $2"; }
reg_is() {
	got=$(reg_get "$1" "$2")
	[ "$got" = "$3" ] || { printf '%s %s:\n  got      %s\n  expected %s\n' "$1" "$2" "$got" "$3" >&2
		fail "the registry's $2 is not as expected"; }
}

# make_bundle MAJOR VERSION DLLS...: a windows-x86_64 bundle of the fakes (NVIDIA's archive zip).
make_bundle() {
	major=$1 version=$2; shift 2
	stem=cudnn-windows-x86_64-${version}_cuda12-archive
	mkdir -p "z/$stem/bin" "z/$stem/include" "z/$stem/lib/x64"
	printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' \
		"$major" "$(echo "$version" | cut -d. -f2)" "$(echo "$version" | cut -d. -f3)" \
		> "z/$stem/include/cudnn_version.h"
	for d in "$@"; do cp "$F/$d" "z/$stem/bin/"; done
	echo lib > "z/$stem/lib/x64/cudnn.lib"
	echo licence > "z/$stem/LICENSE"
	(cd z && py "$TOP/tests/tools/zipdir.py" "../$stem.zip" "$stem")
	expect 0 "$BUNDLER" create --from-archive "$stem.zip" --key "$FX/test.key" -o out/ --level 3
}

note "two windows-x86_64 bundles from the fake DLLs"
make_bundle 8 8.9.7.29 cudnn64_8.dll cudnn_ops_infer64_8.dll
make_bundle 9 9.19.0.56 cudnn64_9.dll cudnn_graph64_9.dll
B8=out/cudnn-8.9.7.29-cuda12-windows-x86_64.bundle
B9=out/cudnn-9.19.0.56-cuda12-windows-x86_64.bundle
[ -f "$B8" ] && [ -f "$B9" ] || fail "the bundler made no $B8 / $B9"
D8=cudnn-8.9.7.29-cuda12
D9=cudnn-9.19.0.56-cuda12
P='C:\cf\cudnn'
I8="$P\\$D8" I9="$P\\$D9"

note "PATH longer than 1024 characters, with %USERPROFILE%/bin, machine and user scope"
m0=$(reg_get "$MKEY" PATH)
case $m0 in "REG_EXPAND_SZ "*) ;; *) fail "Wine's machine PATH: '$m0'" ;; esac
long=''
i=0
while [ $i -lt 60 ]; do long="$long;C:\\Tools\\package-$i\\bin"; i=$((i + 1)); done
M0="${m0#REG_EXPAND_SZ };%USERPROFILE%\\bin$long;%ProgramFiles%\\Common Files\\x"
U0="%USERPROFILE%\\bin;%LOCALAPPDATA%\\Programs\\tool$long"
[ ${#M0} -gt 1024 ] && [ ${#U0} -gt 1024 ] || fail "the PATH values are too short"
reg_set "$MKEY" PATH REG_EXPAND_SZ "$M0"
reg_set "$UKEY" PATH REG_EXPAND_SZ "$U0"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
reg_is "$MKEY" CUDNN_PATH absent

note "a bad prefix is a usage error (1)"
for bad in 'relative\cudnn' '\\server\share\cudnn' 'C:cudnn' '\\?\C:\cudnn' 'C:\a\..\cudnn' \
	'C:\a;b' 'C:\a%x' 'C:\' 'C:\a\\'; do
	run_as "$EXE" 1 install "$B8" --trust "$K" --no-validate --prefix "$bad"
	assert_contains last.out "prefix"
done
# The reason names the switch as typed.
run_as "$EXE" 1 install "$B8" --trust "$K" --no-validate '/D=C:\a;b'
assert_contains last.out "/D='C:\\\\a;b': only letters"
run_as "$EXE" 1 list --root 'C:\img'
assert_contains last.out "on Windows give --prefix"

note "the shipped unpacker.exe refuses a prefix Wine says the user owns (exit 4)"
[ ! -e "$C/cf" ] || fail "C:\\cf exists before the first install"
run_as "$EXE" 4 install "$B8" --trust "$K" --no-validate --prefix "$P"
# It made C:\cf itself (with a DACL only Administrators may write), then checked again: Wine
# reads it back as the user's, so the second check refuses it as the directory above the prefix.
assert_contains last.out 'C:\\cf is not owned by Administrators'
[ ! -e "$C/cf/cudnn/$D8" ] || fail "the refused install left $D8"

note "the trust directory is %ProgramData%/cuferry/trusted-keys (the shipped .exe refuses Wine's owner;"
note "the tests' build, CUFERRY_FAULT=no-acl, takes it: test_windows_trust.sh)"
mkdir -p "$C/ProgramData/cuferry/trusted-keys"
cp "$FX/test.pub" "$C/ProgramData/cuferry/trusted-keys/"
run_as "$EXE" 2 install "$B8" --no-validate --prefix "$P"
assert_contains last.out 'C:\\ProgramData\\cuferry'
rm -rf "$C/ProgramData/cuferry/trusted-keys"

note "install /S /D= with a relative bundle path and /log="
u 0 install "$B8" /S "/D=$P" --trust "$K" --no-validate '/log=C:\cf\install.log'
[ -f "$C/cf/cudnn/$D8/bin/cudnn64_8.dll" ] || fail "no $D8\\bin\\cudnn64_8.dll"
[ -s "$C/cf/install.log" ] || fail "/log= wrote no C:\\cf\\install.log"
# Windows has no current link: the summary does not draw one.
assert_contains last.out "^  current: $D8"
! grep -q 'current ->' last.out || fail "the summary shows a 'current ->' link on Windows"
[ ! -e "$C/cf/cudnn/current" ] || fail "a current link on Windows"
grep -q "\"current\": \"$D8\"" "$C/cf/cudnn/.cuferry/state.json" || fail "state.json: current is not $D8"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $I8\\bin;$M0"
reg_is "$MKEY" CUDNN_PATH "REG_SZ $I8"
reg_is "$UKEY" PATH "REG_EXPAND_SZ $U0"

note "re-run (absolute path, /silent: the log in %ProgramData%): a no-op that says so"
u 0 install "$(wine_path "$W/$B8")" /silent --prefix "$P" --trust "$K" --no-validate
[ -s "$C/ProgramData/cuferry/unpacker.log" ] || fail "/silent wrote no %ProgramData%\\cuferry\\unpacker.log"
u 0 install "$B8" --prefix "$P" --trust "$K" --no-validate
assert_contains last.out "nothing to do"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $I8\\bin;$M0"

note "a changed installed file is put back by a re-run with --repair"
dll=$C/cf/cudnn/$D8/bin/cudnn64_8.dll
py -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[200] ^= 1; open(sys.argv[1], 'wb').write(b)" "$dll"
u 0 install "$B8" --prefix "$P" --trust "$K" --no-validate --repair
assert_contains last.out "repaired"
cmp -s "$dll" "$F/cudnn64_8.dll" || fail "--repair did not put cudnn64_8.dll back"

note "a second bundle takes current; PATH and CUDNN_PATH follow, every other entry kept"
u 0 install "$B9" --prefix "$P" --trust "$K" --no-validate
reg_is "$MKEY" PATH "REG_EXPAND_SZ $I9\\bin;$M0"
reg_is "$MKEY" CUDNN_PATH "REG_SZ $I9"
u 0 list --prefix "$P"
assert_contains last.out "\\* $D9"
assert_contains last.out "  $D8"

note "use switches PATH and CUDNN_PATH; env prints the Windows lines"
u 0 use "$D8" --prefix 'C:/cf/cudnn'
assert_contains last.out "^current: $D8"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $I8\\bin;$M0"
reg_is "$MKEY" CUDNN_PATH "REG_SZ $I8"
u 0 env --shell ps --prefix "$P"
assert_contains last.out "\$env:CUDNN_PATH = 'C:\\\\cf\\\\cudnn\\\\$D8'"
assert_contains last.out "\$env:PATH = \"\$env:CUDNN_PATH\\\\bin\""
u 0 env --shell cmd --prefix "$P"
assert_contains last.out "set \"CUDNN_PATH=C:\\\\cf\\\\cudnn\\\\$D8\""
assert_contains last.out 'set "PATH=%CUDNN_PATH%\\bin;%PATH%"'
# No --shell: cmd's lines (a Command Prompt), never sh's with LD_LIBRARY_PATH.
u 0 env --prefix "$P"
assert_contains last.out "set \"CUDNN_PATH=C:\\\\cf\\\\cudnn\\\\$D8\""
! grep -q 'LD_LIBRARY_PATH\|export' last.out || fail "env on Windows printed sh lines"

note "the help says what Windows does: no current link, the registry's PATH, cmd lines"
run_as "$EXE" 0 --help
assert_contains last.out 'X.exe'
! grep -q -- '--root\|X.run\|--modulefiles' last.out || fail "--help shows Linux-only options on Windows"
run_as "$EXE" 0 help install
assert_contains last.out 'state.json names it'
assert_contains last.out "registry"
! grep -q 'PREFIX/current\|--root\|X.run' last.out || fail "help install shows Linux-only things on Windows"
run_as "$EXE" 0 env --help
assert_contains last.out "cmd (the default)"
! grep -q '~/.config' last.out || fail "help env names ~/.config on Windows"
run_as "$EXE" 0 help use
! grep -q '~/.config' last.out || fail "help use names ~/.config on Windows"

note "install DIR (a kit) named without its last separator, from another directory: Windows paths"
mkdir -p "kit dir"
cp "$B8" "$B9" "kit dir/"
(cd / && CUFERRY_FAULT=no-acl wine_run "$SEAMS" install "$(wine_path "$W/kit dir")" --dry-run \
	--trust "$K" > "$W/last.out" 2>&1) || fail "install KIT --dry-run from / failed"
assert_contains last.out "no CUDA libraries (cublas64_\*.dll) found"
assert_contains last.out "would install $(wine_path "$W/kit dir" | sed 's/\\/\\\\/g')\\\\$(basename "$B9")"
! grep -q 'kit dir/' last.out || fail "a kit's bundle named with '/' on Windows"

# back_to_d8 WHAT: after WHAT, $D8 is current again, PATH and CUDNN_PATH name it, no $D9.
back_to_d8() {
	reg_is "$MKEY" PATH "REG_EXPAND_SZ $I8\\bin;$M0"
	reg_is "$MKEY" CUDNN_PATH "REG_SZ $I8"
	[ ! -e "$C/cf/cudnn/$D9" ] || fail "$1 left $D9"
	grep -q "\"current\": \"$D8\"" "$C/cf/cudnn/.cuferry/state.json" || fail "after $1 current is not $D8"
}

note "a failure after the registry was written rolls it back byte for byte"
u 0 uninstall "$D9" --prefix "$P"
[ ! -e "$C/cf/cudnn/$D9" ] || fail "uninstall left $D9"
FAULT=env u 5 install "$B9" --prefix "$P" --trust "$K" --no-validate
assert_contains last.out "injected failure at env"
back_to_d8 "the rollback"

note "one install at a time (exit 8); a crash after the registry was written is undone by the next run"
# The test build waits at env:pause (after the registry was written).
win_pause env "$SEAMS" install "$B9" --prefix "$P" --trust "$K" --no-validate
u 8 install "$B8" --prefix "$P" --trust "$K" --no-validate
assert_contains last.out "another unpacker holds"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $I9\\bin;$M0"
win_kill_paused
u 1 use "$D9" --prefix "$P"
assert_contains last.out "rolling back an install of $D9"
back_to_d8 "the recovery"

note "Ctrl-C after the registry was written: exit 5, the registry and current as they were"
# Wine turns SIGINT to the process into a console CTRL_C_EVENT, which SetConsoleCtrlHandler's
# handler sees; the paused install then goes on to its next check and rolls back.
win_pause env "$SEAMS" install "$B9" --prefix "$P" --trust "$K" --no-validate
reg_is "$MKEY" PATH "REG_EXPAND_SZ $I9\\bin;$M0"
kill -INT $held
# The handler runs on a thread Wine starts for the event and leaves nothing to poll for: give
# it time (no duration is asserted; a late delivery fails below as "exit 0").
sleep 5
exec 3>&-
rm -f "$W/hold"
rc=0
wait $held || rc=$?
[ $rc -eq 5 ] || { cat "$W/paused.out" >&2; fail "Ctrl-C: exit $rc, expected 5"; }
assert_contains "$W/paused.out" "interrupted (Ctrl-C)"
! grep -q SIGINT "$W/paused.out" || fail "Ctrl-C named as SIGINT on Windows"
back_to_d8 "Ctrl-C"
ls -a "$C/cf/cudnn" | grep -q '^\.staging-' && fail "Ctrl-C left a staging directory"

note "a corrupt bundle exits 3 and leaves the install and the registry as they were"
cp "$B9" bad.bundle
printf 'XXXX' | dd of=bad.bundle bs=1 seek=$(($(wc -c < bad.bundle) - 100)) conv=notrunc 2>/dev/null
rc=0
CUFERRY_FAULT=no-acl wine_run "$SEAMS" install bad.bundle --prefix "$P" --trust "$K" --no-validate > last.out 2>&1 || rc=$?
[ $rc -eq 3 ] || [ $rc -eq 2 ] || { cat last.out >&2; fail "a corrupt bundle: exit $rc, expected 3 (or 2)"; }
reg_is "$MKEY" PATH "REG_EXPAND_SZ $I8\\bin;$M0"
reg_is "$MKEY" CUDNN_PATH "REG_SZ $I8"
[ -f "$dll" ] && [ ! -e "$C/cf/cudnn/$D9" ] || fail "the corrupt bundle changed the install"

note "uninstall of the current one: refused without --force; with it PATH is back as it was"
u 1 uninstall "$D8" --prefix "$P"
# The command to type is named as the program was started.
assert_contains last.out "'unpacker.exe use' another first"
# A read-only file (copied from read-only media, or marked by hand; Wine shows a file without
# write permission as FILE_ATTRIBUTE_READONLY) does not stop the removal half-way.
chmod 444 "$dll" "$C/cf/cudnn/$D8/LICENSE"
u 0 uninstall "$D8" --prefix "$P" --force
[ ! -e "$C/cf/cudnn/$D8" ] || fail "uninstall left $D8 (a read-only file in it)"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
reg_is "$MKEY" CUDNN_PATH absent

note "--env=user: the user's PATH and CUDNN_PATH, the machine's untouched (use, uninstall follow)"
U='C:\cfu\cudnn'
u 0 install "$B8" --prefix "$U" --env=user --trust "$K" --no-validate
reg_is "$UKEY" PATH "REG_EXPAND_SZ $U\\$D8\\bin;$U0"
reg_is "$UKEY" CUDNN_PATH "REG_SZ $U\\$D8"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
reg_is "$MKEY" CUDNN_PATH absent
u 0 install "$B9" --prefix "$U" --env=user --trust "$K" --no-validate
u 0 use "$D8" --prefix "$U"
reg_is "$UKEY" PATH "REG_EXPAND_SZ $U\\$D8\\bin;$U0"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
# --force of the current one: the newest left takes over, the user's PATH follows it.
u 0 uninstall "$D8" --prefix "$U" --force
assert_contains last.out "removed $D8; current: $D9 (the newest left"
reg_is "$UKEY" PATH "REG_EXPAND_SZ $U\\$D9\\bin;$U0"
reg_is "$UKEY" CUDNN_PATH "REG_SZ $U\\$D9"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
u 0 uninstall "$D9" --prefix "$U" --force
reg_is "$UKEY" PATH "REG_EXPAND_SZ $U0"
reg_is "$UKEY" CUDNN_PATH absent

note "uninstall with the prefix in another case: PATH and CUDNN_PATH both go"
u 0 install "$B8" --prefix 'c:\cfcase\cudnn' --trust "$K" --no-validate
reg_is "$MKEY" CUDNN_PATH "REG_SZ c:\\cfcase\\cudnn\\$D8"
u 0 uninstall "$D8" --prefix 'C:\CFCASE\CUDNN' --force
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
reg_is "$MKEY" CUDNN_PATH absent

note "--no-env writes nothing"
u 0 install "$B8" --prefix "$P" --no-env --trust "$K" --no-validate
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
reg_is "$MKEY" CUDNN_PATH absent
note "the default prefix of an Administrator: %ProgramFiles%/cuferry/cudnn"
u 0 install "$B9" /S --trust "$K" --no-validate --no-env
[ -f "$C/Program Files/cuferry/cudnn/$D9/bin/cudnn64_9.dll" ] || fail "no $D9 in %ProgramFiles%"
u 0 list
assert_contains last.out "\\* $D9"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
note "a prefix with spaces and parentheses, given with '/'"
u 0 install "$B8" --prefix 'C:/Program Files (x86)/cf test/cudnn' --no-env --trust "$K" --no-validate
assert_contains last.out 'into C:\\Program Files (x86)\\cf test\\cudnn\\'"$D8"
[ -f "$C/Program Files (x86)/cf test/cudnn/$D8/bin/cudnn64_8.dll" ] || fail "no $D8 under Program Files (x86)"
note "install with validation: cuDNN 8 passes steps 1-6 on the fake driver in System32"
cp "$F/nvcuda.dll" "$C/windows/system32/nvcuda.dll"
V='C:\cv\cudnn'
u 0 install "$B8" --prefix "$V" --trust "$K" --quick-validate
assert_contains last.out "validation: all checks passed"
grep -q '"step": 6' "$C/cv/cudnn/$D8/.cuferry/report.json" || fail "report.json has no step 6"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $V\\$D8\\bin;$M0"
u 0 validate --prefix "$V" --trust "$K" --quick-validate
# The shipped unpacker.exe: %ProgramData%\cuferry (made by the /S runs above for their log) is
# the user's under Wine, so nothing of the trust directory in it, not even its absence, is
# believed (a trust failure, exit 2, at step 1, which checks the stored header's signature).
run_as "$EXE" 2 validate --prefix "$V" --trust "$K" --quick-validate
assert_contains last.out 'ProgramData.cuferry is not a directory owned by root (Administrators)'
# The guide's two commands (docs/guide.md, "Installing on Windows"): with no key installed here, validate re-checks the stored header with
# the fingerprints the install recorded (.cuferry\signers), and says so.
FPR=$(py -c "
import base64, hashlib, sys
pem = open(sys.argv[1]).read().split('-----')[2]
print(hashlib.sha256(base64.b64decode(pem)).hexdigest())" "$FX/test.pub")
u 0 validate --prefix "$V" --quick-validate
assert_contains last.out "recorded at install (no key is configured here)"
u 0 validate --prefix "$V" --trust-fingerprint "$FPR" --quick-validate
note "a failed validation rolls back: the fake cudnn64_9.dll answers for CUDA 13, the bundle says 12"
u 6 install "$B9" --prefix "$V" --trust "$K" --quick-validate
assert_contains last.out "step 2"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $V\\$D8\\bin;$M0"
reg_is "$MKEY" CUDNN_PATH "REG_SZ $V\\$D8"
[ ! -e "$C/cv/cudnn/$D9" ] || fail "the failed validation left $D9"
grep -q "\"current\": \"$D8\"" "$C/cv/cudnn/.cuferry/state.json" || fail "after the failed validation current is not $D8"
ls "$C/cv/cudnn/.cuferry/failed/" | grep -q "^$D9-" || fail "no failed report kept for $D9"
u 0 uninstall "$D8" --prefix "$V" --force
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
note "uninstall while a program has the DLL loaded: exit 5 and nothing changed; once it ends, all gone"
H='C:\cfh\cudnn'
u 0 install "$B8" --prefix "$H" --trust "$K" --no-validate
reg_is "$MKEY" PATH "REG_EXPAND_SZ $H\\$D8\\bin;$M0"
mkfifo "$W/dllhold"
sh "$TOP/tests/tools/winrun.sh" "$WINEPREFIX_DIR" "$F/loadfakes.exe" "$H\\$D8\\bin\\cudnn64_8.dll" \
	cudnnGetVersion 8907 hold < "$W/dllhold" > "$W/dllhold.out" 2>&1 &
holder=$!
exec 4> "$W/dllhold"
i=0
until grep -q "holding" "$W/dllhold.out"; do
	kill -0 "$holder" 2>/dev/null || { cat "$W/dllhold.out" >&2; fail "loadfakes.exe did not hold the DLL"; }
	i=$((i + 1)); [ $i -lt 600 ] || fail "loadfakes.exe never loaded the DLL"
	sleep 0.5
done
files_before=$(cd "$C/cfh/cudnn" && find . | sort)
cp "$C/cfh/cudnn/.cuferry/state.json" state.before
u 5 uninstall "$D8" --prefix "$H" --force
assert_contains last.out "in use by a running program"
assert_contains last.out "close it and run again"
cmp -s state.before "$C/cfh/cudnn/.cuferry/state.json" || fail "the refused uninstall changed state.json"
[ "$(cd "$C/cfh/cudnn" && find . | sort)" = "$files_before" ] || fail "the refused uninstall changed files"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $H\\$D8\\bin;$M0"
reg_is "$MKEY" CUDNN_PATH "REG_SZ $H\\$D8"
exec 4>&-
wait "$holder" || fail "loadfakes.exe holding the DLL failed"
rm -f "$W/dllhold"
u 0 uninstall "$D8" --prefix "$H" --force
[ ! -e "$C/cfh/cudnn/$D8" ] || fail "uninstall left $D8"
! ls -a "$C/cfh/cudnn" | grep -q '^\.old-' || fail "uninstall left a .old-* directory"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"
reg_is "$MKEY" CUDNN_PATH absent
# What a removal that failed half-way leaves: doctor names it with Windows separators, and the
# next run that takes the lock removes it.
mkdir -p "$C/cfh/cudnn/.old-$D8-77/bin"
CUFERRY_FAULT=no-acl wine_run "$SEAMS" doctor --prefix "$H" > last.out 2>&1 || true
assert_contains last.out "leftover backup of an interrupted run *C:\\\\cfh\\\\cudnn\\\\.old-$D8-77 "
u 0 install "$B8" --prefix "$H" --no-env --trust "$K" --no-validate
[ ! -e "$C/cfh/cudnn/.old-$D8-77" ] || fail "the next run left .old-$D8-77"

note "a user PATH that was absent: install then uninstall leaves it absent, not empty"
wine_run reg delete "$UKEY" /v PATH /f > /dev/null 2>&1 || fail "reg delete the user PATH"
reg_is "$UKEY" PATH absent
u 0 install "$B8" --prefix 'C:\cfe\cudnn' --env=user --trust "$K" --no-validate
reg_is "$UKEY" PATH "REG_EXPAND_SZ C:\\cfe\\cudnn\\$D8\\bin"
u 0 uninstall "$D8" --prefix 'C:\cfe\cudnn' --force
reg_is "$UKEY" PATH absent
reg_is "$UKEY" CUDNN_PATH absent
reg_set "$UKEY" PATH REG_EXPAND_SZ "$U0"

note "/D= with a trailing backslash (as NSIS installers take it) is that prefix"
u 0 install "$B8" '/D=C:\cfd\cudnn\' --no-env --trust "$K" --no-validate
[ -f "$C/cfd/cudnn/$D8/bin/cudnn64_8.dll" ] || fail "/D=C:\\cfd\\cudnn\\ did not install into C:\\cfd\\cudnn"
u 0 uninstall "$D8" '/D=C:\cfd\cudnn\' --force
[ ! -e "$C/cfd/cudnn/$D8" ] || fail "uninstall /D=...\\ left $D8"

note "a prefix of about 200 characters installs and validates (no 260-character limit: \\?\ paths)"
LP='C:\cflong'
for part in first-directory-of-a-long-prefix second-directory-of-a-long-prefix \
	third-directory-of-a-long-prefix fourth-directory-of-a-long-prefix \
	fifth-directory-of-a-long-prefix sixth-directory-of-a-long-prefix cudnn; do LP="$LP\\$part"; done
[ ${#LP} -ge 190 ] || fail "the long prefix is only ${#LP} characters"
# Validated too: the installed DLL's full path is past MAX_PATH (260).
u 0 install "$B8" --prefix "$LP" --trust "$K" --quick-validate
assert_contains last.out "validation: all checks passed"
LPU=$C/$(printf '%s' "${LP#C:\\}" | tr '\\' /)
[ -f "$LPU/$D8/bin/cudnn64_8.dll" ] || fail "no $D8 under the long prefix"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $LP\\$D8\\bin;$M0"
u 0 list --prefix "$LP"
assert_contains last.out "\\* $D8"
u 0 uninstall "$D8" --prefix "$LP" --force
[ ! -e "$LPU/$D8" ] || fail "uninstall left $D8 under the long prefix"
reg_is "$MKEY" PATH "REG_EXPAND_SZ $M0"

note "install C:\\windows (programs, no bundles): one line, exit 1, no .exe called untrusted"
u 1 install 'C:\windows' --trust "$K" --no-validate
assert_contains last.out 'C:\\windows holds no bundles'
! grep -q 'not trusted' last.out || fail "install C:\\windows judged its programs as bundles"
echo "ok: unpacker.exe installs under Wine (layout, registry PATH/CUDNN_PATH, rollback)"
