#!/bin/sh
# test_windows_trust.sh - the trust verbs and statements of unpacker.exe under Wine: trust add
# (the fingerprint must match), list, apply a statement that revokes the bundle's key, after
# which verify refuses it; all in %ProgramData%\cuferry\trusted-keys. The tests' build runs them
# (CUFERRY_FAULT=no-acl: Wine reads every file as the user's); the shipped unpacker.exe rightly
# refuses that user-owned directory.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"
need_both_exes
fp() { openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -c1-64; }
C=$WINEPREFIX_DIR/drive_c
TD=$C/ProgramData/cuferry/trusted-keys
F1=$(fp "$FX/test.pub") F2=$(fp "$FX/other.pub")
run_as() {
	exe=$1 want=$2; shift 2
	rc=0
	wine_run "$exe" "$@" > last.out 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || { cat last.out >&2; fail "unpacker.exe $*: exit $rc, expected $want"; }
}
u() { CUFERRY_FAULT=no-acl run_as "$SEAMS" "$@"; }

python3 "$TOP/tests/tools/forge.py" --key "$FX/test.key" --platform windows-x86_64 --out w.bundle
B=$(wine_path "$W/w.bundle")

note "trust add under Wine: a wrong fingerprint is refused (2), the right one written"
u 0 trust list
assert_contains last.out 'C:\\ProgramData\\cuferry\\trusted-keys'
assert_contains last.out "no trusted key"
u 2 trust add "$(wine_path "$FX/test.pub")" --fingerprint "$F2"
[ ! -e "$TD/$(echo "$F1" | cut -c1-16).pub" ] || fail "a key whose fingerprint did not match was written"
u 0 trust add "$(wine_path "$FX/test.pub")" --fingerprint "$F1"
u 0 trust add "$(wine_path "$FX/other.pub")" --fingerprint "$F2"
[ -f "$TD/$(echo "$F1" | cut -c1-16).pub" ] || fail "no key file in %ProgramData%\\cuferry\\trusted-keys"
u 0 trust list
assert_contains last.out "$F1  file"
assert_contains last.out "statement threshold 2"
u 0 verify "$B"

note "the shipped unpacker.exe refuses the trust directory Wine says the user owns"
run_as "$EXE" 2 verify "$B"

note "a statement signed by both keys revokes the bundle's key; verify refuses it after"
expect 0 "$BUNDLER" trust-statement --revoke "$F1" --counter 3 --key "$FX/other.key" -o r.st
u 2 trust apply "$(wine_path "$W/r.st")"
expect 0 "$BUNDLER" trust-statement r.st --key "$FX/test.key"
u 0 trust apply "$(wine_path "$W/r.st")"
assert_contains last.out "applied"
u 0 trust list
assert_contains last.out "$F1  revoked"
u 2 verify "$B"
assert_contains last.out "signed by a revoked key"
u 0 trust apply "$(wine_path "$W/r.st")"
assert_contains last.out "already applied"
u 1 trust remove "$F2"
assert_contains last.out "lower the threshold first"
