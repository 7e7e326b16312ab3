#!/bin/sh
# test_windows_sfx.sh - the self-extracting .exe (issue 14, DESIGN §2) under Wine: bundler sfx
# and create --sfx put build/windows/unpacker.exe in front of a windows-x86_64 bundle of the
# fake DLLs; the .exe is still a PE that runs (--version), verifies itself, and refuses
# (exit 2 or 3, nothing installed) when a byte of its stub, header, payload or trailer changed
# or bytes were added after it; one of 4 GiB or more (Windows would not start it) is not
# made; `x.exe /S --prefix C:\...` installs. Skips (one line) only when unpacker.exe has not
# been built (make windows).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
need_unpacker_exe
F=$WIN/fakes
[ -f "$F/cudnn64_9.dll" ] || fail "no fake DLLs in $F (make windows-fakes builds them)"
DRIVE_C=$WINEPREFIX_DIR/drive_c
TRUST_WIN="--trust $(wine_path "$FX/test.pub")"

# wine_expect CODE EXE ARGS...: the program's exit code is CODE; its output in last.out.
wine_expect() {
	want=$1; shift
	rc=0
	wine_run "$@" > last.out 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || { cat last.out >&2; fail "$*: exit $rc, expected $want"; }
}
# wine_refused EXE ARGS...: exit 2 (untrusted) or 3 (integrity), in one error line.
wine_refused() {
	rc=0
	wine_run "$@" > last.out 2>&1 || rc=$?
	[ $rc -eq 2 ] || [ $rc -eq 3 ] || { cat last.out >&2; fail "$*: exit $rc, expected 2 or 3"; }
	[ "$(grep -c 'error' last.out)" -eq 1 ] || { cat last.out >&2; fail "$*: not one error line"; }
}
# Nothing of cuDNN anywhere on the Wine machine's C: drive.
nothing_installed() {
	left=$(find "$DRIVE_C" -iname 'cudnn*' 2>/dev/null | head -1)
	[ -z "$left" ] || fail "$1: installed $left"
}
# flip FILE OFFSET: one byte changed (a negative offset counts from the end).
flip() {
	py -c "
import sys
p, at = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read()); b[at] ^= 0x40; open(p, 'wb').write(b)" "$1" "$2"
}

note "a windows-x86_64 bundle of the fake DLLs, wrapped: bundler sfx and create --sfx write NAME.exe"
mkdir -p t/bin t/include t/lib/x64
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > t/include/cudnn_version.h
cp "$F/cudnn64_9.dll" "$F/cudnn_graph64_9.dll" t/bin/
echo lib > t/lib/x64/cudnn.lib
expect 0 "$BUNDLER" create --from-dir t --cuda 12 --platform windows-x86_64 --key "$FX/test.key" --level 1 -o w/
b=w/cudnn-9.19.0-cuda12-windows-x86_64.bundle
[ -f "$b" ] || fail "no $b"
expect 0 "$BUNDLER" sfx "$b" --platform windows-x86_64 --key "$FX/test.key" --unpacker "$EXE"
X=w/cudnn-9.19.0-cuda12-windows-x86_64.exe
[ -f "$X" ] || fail "bundler sfx wrote no $X"
assert_contains last.out "self-extracting windows-x86_64 bundle"
cmp -n "$(stat -c %s "$EXE")" "$X" "$EXE" || fail "the .exe does not start with unpacker.exe"
# Found beside the bundler (build/windows/unpacker.exe) without --unpacker; create --sfx too.
expect 0 "$BUNDLER" create --from-dir t --cuda 12 --platform windows-x86_64 --key "$FX/test.key" --level 1 \
	-o c/ --sfx
[ -f c/cudnn-9.19.0-cuda12-windows-x86_64.exe ] || fail "create --sfx wrote no .exe"
[ ! -e c/cudnn-9.19.0-cuda12-windows-x86_64.run ] || fail "create --sfx wrote a .run for Windows"
assert_contains last.err "the .exe installs only where the key is trusted otherwise (%ProgramData%"
expect 4 "$BUNDLER" sfx "$b" --key "$FX/test.key" --unpacker "$UNPACKER"
assert_contains last.err "needs an x86-64 Windows PE program"
# Windows starts no program file of 4 GiB or more: refused before anything is written (a
# sparse file: the header is read, the payload is not).
cp "$b" big.bundle
truncate -s 4G big.bundle
expect 4 "$BUNDLER" sfx big.bundle --key "$FX/test.key" --unpacker "$EXE"
assert_contains last.err "windows-x86_64 starts no program file over 4294967295 bytes"
[ ! -e big.exe ] || fail "a .exe of over 4 GiB was written"
rm -f big.bundle

note "still a PE: the sections and imports of unpacker.exe; Windows ignores the overlay after them"
x86_64-w64-mingw32-objdump -h "$EXE" | sed 1,2d > sections.exe
x86_64-w64-mingw32-objdump -h "$X" | sed 1,2d > sections.sfx
cmp sections.exe sections.sfx || fail "the .exe's section table differs from unpacker.exe's"
x86_64-w64-mingw32-objdump -p "$X" | grep -q 'DLL Name: KERNEL32.dll' || fail "objdump reads no imports in the .exe"
expect 0 "$BUNDLER" inspect "$X"
assert_contains last.out "self-extracting"
expect 0 "$UNPACKER" verify "$X" --trust "$FX/test.pub"

note "under Wine: --version, verify itself (trusted, untrusted, the wrong key)"
wine_expect 0 "$X" --version
assert_contains last.out "unpacker "
wine_expect 0 "$X" verify $TRUST_WIN
assert_contains last.out "all hashes match"
assert_contains last.out "stub and its layout are signed by"
wine_expect 2 "$X" verify
assert_contains last.out "no trusted key is configured"
wine_expect 2 "$X" verify --trust "$(wine_path "$FX/other.pub")"
# And as a file named on the command line of another unpacker.exe.
wine_expect 0 "$EXE" verify "$(wine_path "$W/$X")" $TRUST_WIN

note "a changed .exe is refused (2 or 3) by verify and by the install, before anything is installed"
stub_len=$(stat -c %s "$EXE")
size=$(stat -c %s "$X")
# 0x50 is in the DOS stub's message: the program still starts, its signature does not hold.
for case in "stub 80" "header $((stub_len + 100))" "payload $((size - 1000))" "trailer-tag -30" \
	"trailer-length -10"; do
	set -- $case
	cp "$X" "$1.exe"
	flip "$1.exe" "$2"
	wine_refused "$1.exe" verify $TRUST_WIN
	# The payload is only read while installing: that case is the stream's (below, once
	# unpacker.exe installs); every other one is refused before the install starts.
	[ "$1" = payload ] || wine_refused "$1.exe" $TRUST_WIN --no-validate
	nothing_installed "$1"
done
cp "$X" appended.exe
printf 'extra bytes after the trailer' >> appended.exe
wine_refused appended.exe verify $TRUST_WIN
assert_contains last.out "without a self-extracting trailer at its end (bytes added after it, or not a .exe)"
wine_refused appended.exe $TRUST_WIN --no-validate
nothing_installed appended
# A bare unpacker.exe carries no bundle: a usage error, not a broken .exe.
wine_expect 1 "$EXE" verify
assert_contains last.out "no bundle given"

# ---- the install itself -------------------------------------------------------------------
# Wine reports every file as the user's, so the shipped stub refuses an Administrator's prefix
# (exit 4, shown first); the installs run an .exe whose stub is the tests' build, with that
# one check relaxed (CUFERRY_FAULT=no-acl): the same self-extracting code, the same install.
note "the shipped .exe checks the prefix's owner: Wine's C:\\ drive is the user's, refused"
wine_expect 4 "$X" /S --no-validate --prefix 'C:\cx' $TRUST_WIN
assert_contains last.out "is not owned by Administrators or SYSTEM"
nothing_installed "the shipped .exe, Wine's owners"
expect 0 "$BUNDLER" sfx "$b" --platform windows-x86_64 --key "$FX/test.key" --unpacker "$WIN/test-bin/unpacker.exe" \
	-o seams.exe
wine_seams() { CUFERRY_FAULT=no-acl wine_expect "$@"; }
note "the .exe installs: /S, then /silent with /D= and /log="
wine_seams 0 seams.exe /S --no-validate --prefix 'C:\cx' $TRUST_WIN
[ -n "$(find "$DRIVE_C/cx" -name cudnn64_9.dll)" ] || { find "$DRIVE_C/cx" >&2; fail "/S installed no cudnn64_9.dll under C:\\cx"; }
wine_seams 0 seams.exe /silent '/D=C:\cx2' '/log=C:\cx2.log' --no-validate $TRUST_WIN
[ -n "$(find "$DRIVE_C/cx2" -name cudnn64_9.dll)" ] || fail "/D= installed nothing under C:\\cx2"
[ -s "$DRIVE_C/cx2.log" ] || fail "/log= wrote no log"
note "a changed payload byte: refused while streaming, nothing installed"
size=$(stat -c %s seams.exe)
cp seams.exe payload.exe
flip payload.exe $((size - 1000))
rc=0
CUFERRY_FAULT=no-acl wine_run payload.exe /S --no-validate --prefix 'C:\cx3' $TRUST_WIN > last.out 2>&1 || rc=$?
[ $rc -eq 2 ] || [ $rc -eq 3 ] || { cat last.out >&2; fail "a changed payload: exit $rc, expected 3 (or 2)"; }
[ -z "$(find "$DRIVE_C/cx3" -name 'cudnn*.dll' 2>/dev/null)" ] || fail "a damaged payload was installed"
echo "ok: the self-extracting .exe under Wine"
