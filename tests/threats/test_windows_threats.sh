#!/bin/sh
# test_windows_threats.sh - the threat table's cases that apply to Windows, and the Windows
# spellings of the path escapes, against unpacker.exe under Wine in a private WINEPREFIX.
# Every hostile bundle is signed by the trusted test key (tests/tools/forge.py --platform
# windows-x86_64), so only the unpacker's own rules stand in the way. Each case runs twice,
# interactive and /silent with stdin closed, and asserts: the documented exit code (DESIGN §9)
# and one error line (in the silent log too, every line stamped); C:\outside, the files under
# C:\ and C:\cf, the previous install and its state.json unchanged; the registry's machine and
# user PATH and CUDNN_PATH unchanged (reg query); no staging directory left.
# Results: $CUFERRY_BUILD/threat-results-windows.tsv (docs/SECURITY.md is made from it).
#
# Wine reads every file as the user's, so the installs run the tests' build with
# CUFERRY_FAULT=no-acl (which skips only that ownership check); one case shows the shipped
# unpacker.exe refusing the prefix for that reason. Wine has no links (CreateSymbolicLinkW is
# a stub), so link entries are shown refused, never followed on a real NTFS.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
RES=$B/threat-results-windows.tsv
. "$TOP/tests/threats/lib.sh" # FORGE and record, as the other threat scripts use them
EXE=$WIN/unpacker.exe
SEAMS=$WIN/test-bin/unpacker.exe
if [ ! -f "$EXE" ] || [ ! -f "$SEAMS" ]; then
	echo "SKIP $NAME: no $EXE or $SEAMS (make windows $SEAMS builds them)"
	exit 0
fi
: > "$RES"
K=$(wine_path "$FX/test.pub")
C=$WINEPREFIX_DIR/drive_c
P='C:\cf\cudnn'
MKEY='HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment'
UKEY='HKCU\Environment'

# wforge OUT [forge options]: a windows-x86_64 bundle signed by the trusted key, of a cuDNN
# version other than the installed one's (so that no case stops at "already installed").
wforge() {
	out=$1; shift
	$FORGE --key "$FX/test.key" --platform windows-x86_64 --outside 'C:/outside' --version 9.20.0.1 \
		--out "$W/$out" "$@"
}

# What must not change: outside, the drive's and C:\cf's names, the prefix (but its lock),
# the registry's environment of the machine and of the user.
snapshot() {
	tree_listing "$C/outside"
	find "$C" "$C/cf" -mindepth 1 -maxdepth 1 ! -name s.log | LC_ALL=C sort
	tree_listing "$C/cf/cudnn" | grep -v ' \./\.cuferry/lock' || true
	for key in "$MKEY" "$UKEY"; do
		wine_run reg.exe query "$key" 2>/dev/null | tr -d '\r' | grep -i ' path \| cudnn_path ' || true
	done
}

# u CODE ARGS...: the tests' build (Wine's owners allowed), exit code CODE, out/err kept.
u() {
	want=$1; shift
	rc=0
	CUFERRY_FAULT=no-acl wine_run "$SEAMS" "$@" > "$W/last.out" 2> "$W/last.err" || rc=$?
	[ "$rc" -eq "$want" ] || { cat "$W/last.out" "$W/last.err" >&2; fail "unpacker.exe $*: exit $rc, expected $want"; }
}

# run_case ID "threat" "behaviour" CODE BUNDLE [extra args]: both modes, the assertions above,
# against $BASE (the snapshot taken after the last deliberate change).
run_case() {
	id=$1 threat=$2 behaviour=$3 code=$4 bundle=$5; shift 5
	reason=
	for mode in interactive silent; do
		if [ $mode = silent ]; then
			rm -f "$C/cf/s.log"
			u "$code" install "$bundle" --prefix "$P" --trust "$K" /silent '/log=C:\cf\s.log' "$@" </dev/null
		else
			u "$code" install "$bundle" --prefix "$P" --trust "$K" "$@"
		fi
		[ "$code" -ne 0 ] || [ $mode = silent ] || reason=$(head -n 1 "$W/last.out" | tr -d '\r')
		if [ "$code" -ne 0 ]; then
			one_line_reason
			[ $mode = silent ] || reason=$(grep error "$W/last.err" | tr -d '\r')
			if [ $mode = silent ]; then
				grep -q "error" "$C/cf/s.log" || fail "$id: no reason in the silent log"
				! tr -d '\r' < "$C/cf/s.log" | grep -v '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T' ||
					fail "$id: a log line without its stamp (a forged line?)"
			fi
		fi
		[ "$(snapshot)" = "$BASE" ] || { snapshot | diff - "$W/base" >&2; fail "$id ($mode): something changed"; }
		no_staging "$C"
	done
	rm -f "$C/cf/s.log"
	record "$id" "$threat" "$behaviour" "threats/windows/$id" "pass (exit $code, both modes)"
	printf 'ok   threat %s: %s\n' "$id" "$reason"
}

rebase() { snapshot > "$W/base"; BASE=$(cat "$W/base"); }

note "a previous install with its registry PATH and CUDNN_PATH, a sentinel C:\\outside"
wforge base.bundle --bundle-id t-base --counter 100 --version 9.19.0.56
u 0 install base.bundle --prefix "$P" --trust "$K" --no-validate
mkdir -p "$C/outside/sub"
echo target > "$C/outside/target"
echo data > "$C/outside/sub/file"
grep -q '"current": "cudnn-9.19.0.56-cuda13"' "$C/cf/cudnn/.cuferry/state.json" || fail "no previous install"
rebase
case $BASE in *'C:\cf\cudnn\cudnn-9.19.0.56-cuda13\bin'*) ;; *) fail "the registry PATH does not name the install" ;; esac

note "the shipped unpacker.exe: Wine's C: is the user's, not Administrators' (exit 4)"
wforge good.bundle --bundle-id t-good
for mode in interactive silent; do
	rc=0
	if [ $mode = silent ]; then
		wine_run "$EXE" install good.bundle --prefix "$P" --trust "$K" --no-validate /silent '/log=C:\cf\s.log' </dev/null > last.out 2> last.err || rc=$?
	else
		wine_run "$EXE" install good.bundle --prefix "$P" --trust "$K" --no-validate > last.out 2> last.err || rc=$?
	fi
	[ $rc -eq 4 ] || { cat last.out last.err >&2; fail "the shipped unpacker.exe: exit $rc, expected 4"; }
	one_line_reason
	assert_contains last.err "not owned by Administrators"
	[ "$(snapshot)" = "$BASE" ] || fail "no_acl ($mode): something changed"
	no_staging "$C"
done
rm -f "$C/cf/s.log"
record no_acl "a prefix not owned by Administrators (Wine's every file is the user's)" \
	"the shipped unpacker.exe refuses before writing: exit 4" threats/windows/no_acl "pass (exit 4, both modes)"
echo "ok   threat no_acl"

T2="trust: exit 2, nothing read past the frame"
$FORGE --key "$FX/other.key" --platform windows-x86_64 --out "$W/untrusted.bundle"
run_case untrusted_key "a key that is not trusted" "$T2" 2 untrusted.bundle --no-validate
wforge unsigned.bundle --case unsigned
run_case zero_signatures "zero signatures" "$T2" 2 unsigned.bundle --no-validate
cp good.bundle frame_magic.bundle
py -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[8] ^= 1; open(sys.argv[1], 'wb').write(b)" frame_magic.bundle
run_case frame_header_bitflip "a flipped bit in the frame's header (its magic)" "$T2" 2 frame_magic.bundle --no-validate
wforge manifest_flip.bundle --case header_bitflip
run_case manifest_bitflip "a flipped bit in the signed manifest" "$T2" 2 manifest_flip.bundle --no-validate
wforge truncated_frame.bundle --case truncated_frame
run_case truncated_frame "a truncated frame" "$T2" 2 truncated_frame.bundle --no-validate

T3="integrity: exit 3, staging discarded"
for c in payload_bitflip appended_byte appended_frame truncated_zstd; do
	wforge $c.bundle --case $c
	run_case $c "payload: $c" "$T3" 3 $c.bundle --no-validate
done
for c in extra missing size_lie hash_lie duplicate dir_then_file dotdot absolute symlink_then_write \
	 symlink_out hardlink_abs hardlink_dotdot chardev fifo setuid sparse; do
	wforge $c.bundle --case $c
	run_case $c "signed entry: $c" "the entry does not match the signed manifest; $T3" 3 $c.bundle --no-validate
done
wforge listed_symlink.bundle --case listed_symlink
run_case listed_symlink "a symlink listed in the signed manifest of a Windows bundle" \
	"Windows bundles carry no links: the manifest is refused; $T3" 3 listed_symlink.bundle --no-validate
wforge case_collision.bundle --case case_collision
run_case case_collision "bin/a.dll beside BIN/A.DLL (one file on NTFS)" \
	"the manifest is refused; $T3" 3 case_collision.bundle --no-validate

note "Windows spellings: each name in the signed manifest, then in the payload only"
k=0
# shellcheck disable=SC2016 # the names are literal, $DATA too
for name in 'include\..\..\..\outside\x' '..\outside\x' 'C:\outside\x' 'C:/outside/x' '\outside\x' \
	'\\server\share\x' '//server/share/x' '\\?\C:\outside\x' 'C:x' 'bin/cudnn64_9.dll:evil' \
	'bin/cudnn64_9.dll::$DATA' CON include/nul.txt COM1 include/CON.h 'bin/cudnn64_9.dll.' 'bin/cudnn64_9.dll ' \
	'bin/cudnn64_9.dll. .' 'bin./cudnn64_9.dll' 'bin/CUDNN6~1.DLL' INCLUDE/CUDNN_VERSION.H; do
	k=$((k + 1))
	# a name differing only in case is a fine name alone: hostile only beside the listed one
	if [ "$name" != INCLUDE/CUDNN_VERSION.H ]; then
		wforge name$k.bundle --name "$name" --bundle-id t-name$k
		run_case "win_name_$k" "signed name \`$name\`" "the manifest is refused on every OS; $T3" \
			3 name$k.bundle --no-validate
	fi
	wforge tarname$k.bundle --tar-name "$name" --bundle-id t-tarname$k
	run_case "win_tar_name_$k" "payload entry \`$name\` (the manifest valid)" \
		"not listed in the signed manifest; $T3" 3 tarname$k.bundle --no-validate
done

$FORGE --key "$FX/test.key" --out "$W/linux.bundle" --bundle-id t-linux
run_case wrong_platform "a linux-x86_64 bundle" "incompatible: exit 4" 4 linux.bundle --no-validate

T7="policy: exit 7"
wforge c400.bundle --counter 50 --bundle-id t-base
run_case replay_lower_counter "a replay of a lower counter (the installed bundle's id)" "$T7" 7 c400.bundle --no-validate
wforge expired.bundle --expires 2020-01-01T00:00:00Z --bundle-id t-exp --version 9.20.0.2
run_case expired "an expired bundle" "$T7" 7 expired.bundle --no-validate
run_case same_counter "the installed bundle again" "nothing to do: exit 0, nothing changes" 0 base.bundle \
	--no-validate
assert_contains last.out "nothing to do"
wforge bomb.bundle --case bomb
run_case bomb "an entry claiming 4 GiB of zeros (a 32-bit long on Windows would read 0)" \
	"refused at its header, nothing of it written; $T3" 3 bomb.bundle --no-validate

note "the clock earlier than the newest install's creation"
cp "$C/cf/cudnn/.cuferry/state.json" state.saved
py - "$C/cf/cudnn/.cuferry/state.json" <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p)); s["newest_created"] = "2099-01-01T00:00:00Z"
json.dump(s, open(p, "w"), indent=2)
PY
rebase
wforge later.bundle --bundle-id t-clock
run_case clock_behind "a clock earlier than the last install's created" "$T7" 7 later.bundle --no-validate
cp state.saved "$C/cf/cudnn/.cuferry/state.json"
rebase

note "issue 24, review item 2: a bundle created in 2099 is refused and nothing of it recorded"
wforge future.bundle --bundle-id t-future --created 2099-01-01T00:00:00Z
run_case created_future "a bundle created in 2099 (a SOURCE_DATE_EPOCH typo)" "$T7 'created in the future: check the clock'; nothing recorded" 7 future.bundle --no-validate
assert_contains last.err "created in the future"
! grep -q 2099 "$C/cf/cudnn/.cuferry/state.json" || fail "created_future: its time was recorded"

note "issue 24, review items 1 and 3: downgrade and replay judged per product line"
wforge old12.bundle --bundle-id cudnn-9.1.0.70-cuda12-windows-x86_64 --version 9.1.0.70 --cuda 12 --counter 9000
run_case downgrade_variant "a validly signed cuDNN 9.1 for CUDA 12 over current 9.19 for CUDA 13" "$T7 unless --allow-downgrade or --keep-current" 7 old12.bundle --no-validate
wforge oldbuild.bundle --bundle-id cudnn-9.19.0.56-cuda13-cudalibs-windows-x86_64 --version 9.19.0.56 --counter 50
run_case older_build "an older build (counter 50) of the installed release (counter 100), as -cudalibs" "$T7 unless --allow-downgrade" 7 oldbuild.bundle --no-validate

note "the lock held by another install (exit 8); its staging undone by the next run"
win_pause extract "$SEAMS" install good.bundle --prefix "$P" --trust "$K" --no-validate --no-env
outside=$(tree_listing "$C/outside")
for mode in interactive silent; do
	if [ $mode = silent ]; then
		u 8 install hash_lie.bundle --prefix "$P" --trust "$K" --no-validate /silent '/log=C:\cf\s.log' </dev/null
	else
		u 8 install hash_lie.bundle --prefix "$P" --trust "$K" --no-validate
	fi
	one_line_reason
	assert_contains last.err "another unpacker holds"
done
win_kill_paused
rm -f "$C/cf/s.log"
[ "$(tree_listing "$C/outside")" = "$outside" ] || fail "lock: outside changed"
u 0 install base.bundle --prefix "$P" --trust "$K" --no-validate
assert_contains last.err "left by an interrupted run"
[ "$(snapshot)" = "$BASE" ] || { snapshot | diff - "$W/base" >&2; fail "lock: the killed install was not undone"; }
no_staging "$C"
record lock_held "an install while another holds the lock (then killed)" \
	"busy: exit 8, nothing touched; the killed one's staging undone by the next run" \
	threats/windows/lock_held "pass (exit 8, both modes)"
echo "ok   threat lock_held"
echo "ok: $(wc -l < "$RES") Windows threat cases"
