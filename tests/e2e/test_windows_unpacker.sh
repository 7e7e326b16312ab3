#!/bin/sh
# test_windows_unpacker.sh - build/windows/unpacker.exe (make windows) under Wine: --version,
# --help, and verify of a windows-x86_64 bundle the bundler makes here from the fake DLLs
# (NVIDIA's 8.3+ archive zip layout): a good one with the test key, the same one with no key
# or the wrong key, and one with a byte changed. Skips (one line) only when unpacker.exe has
# not been built: it links once every unpacker file speaks through common/platform.h.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
need_unpacker_exe
F=$WIN/fakes
[ -f "$F/cudnn64_8.dll" ] || fail "no fake DLLs in $F (make test builds them)"

note "unpacker.exe imports only Windows' KnownDLLs (tools/windows-known-dlls.txt)"
x86_64-w64-mingw32-objdump -p "$EXE" | sed -n 's/^\tDLL Name: //p' | tr 'A-Z' 'a-z' > dlls
grep -v '^#' "$TOP/tools/windows-known-dlls.txt" | tr 'A-Z' 'a-z' > known
grep -v -x -F -f known dlls > foreign || true
[ ! -s foreign ] || fail "unpacker.exe imports $(tr '\n' ' ' < foreign)"

note "--version and --help"
wine_expect 0 --version
assert_contains last.out "unpacker "
assert_contains last.out "bundle format"
wine_expect 0 --help
assert_contains last.out "unpacker verify BUNDLE"
wine_expect 1 no-such-command

note "a windows-x86_64 bundle from the fake DLLs"
stem=cudnn-windows-x86_64-8.9.7.29_cuda12-archive
mkdir -p "z/$stem/bin" "z/$stem/include" "z/$stem/lib/x64"
printf '#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n' > "z/$stem/include/cudnn_version.h"
cp "$F/cudnn64_8.dll" "$F/cudnn_ops_infer64_8.dll" "z/$stem/bin/"
echo lib > "z/$stem/lib/x64/cudnn.lib"
echo licence > "z/$stem/LICENSE"
(cd z && py "$TOP/tests/tools/zipdir.py" "../$stem.zip" "$stem")
expect 0 "$BUNDLER" create --from-archive "$stem.zip" --key "$FX/test.key" -o w8/ --level 3
b8=w8/cudnn-8.9.7.29-cuda12-windows-x86_64.bundle
[ -f "$b8" ] || fail "the bundler made no $b8"

note "verify under Wine: trusted, untrusted, wrong key, a byte changed"
wine_expect 0 verify "$(wine_path "$W/$b8")" --trust "$(wine_path "$FX/test.pub")"
wine_expect 2 verify "$(wine_path "$W/$b8")"
wine_expect 2 verify "$(wine_path "$W/$b8")" --trust "$(wine_path "$FX/other.pub")"
cp "$b8" bad.bundle
size=$(wc -c < bad.bundle)
py -c "
import sys
p, at = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read()); b[at] ^= 0x40; open(p, 'wb').write(b)" bad.bundle $((size - 100))
rc=0
wine_run "$EXE" verify "$(wine_path "$W/bad.bundle")" --trust "$(wine_path "$FX/test.pub")" > last.out 2>&1 || rc=$?
[ $rc -eq 2 ] || [ $rc -eq 3 ] || { cat last.out >&2; fail "a changed byte: exit $rc, expected 3 (or 2)"; }
[ "$(wc -l < last.out)" -le 2 ] || { cat last.out >&2; fail "a changed byte: more than one clear line"; }
echo "ok: unpacker.exe under Wine (version, help, verify)"
