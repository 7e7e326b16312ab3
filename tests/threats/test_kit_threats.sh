#!/bin/sh
# The stick attacker (issue 23 items 2 and 8, issue 24's kit index): a kit whose unpacker,
# SHA256SUMS and README.txt were swapped; a link to /etc/shadow named like a bundle; 300 junk
# bundle names before the real one; escape sequences in a name; an expired kit; a linked
# cuferry-kit/; a kit whose index was deleted; a bundle planted beside an indexed kit's; a
# trust statement swapped or planted on a kit (not the one its index lists); an older
# container given to self-install by its path in a kit. Each
# runs in both modes with the suite's four assertions (tests/threats/lib.sh)
# against a root with a bundle installed, plus what the case itself must show (never opened,
# every name read, nothing raw on the terminal). Results go to
# $CUFERRY_BUILD/threat-results-kit.tsv for docs/SECURITY.md. Run as root, as on a target.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
RES=$B/threat-results-kit.tsv
. "$TOP/tests/threats/lib.sh"
: > "$RES"
# traced_opens FILE COMMAND...: the files COMMAND opens, into FILE. LeakSanitizer stops a
# sanitized unpacker (make sanitize) under ptrace: off for these runs.
traced_opens() {
	out=$1
	shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=open,openat -o "$out" "$@"
}
umask 022
mkdir -p outside/sub
echo target > outside/target
echo data > outside/sub/file
R=$W/root
"$UNPACKER" "$FX/small.bundle" --root "$R" --trust "$FX/test.pub" --no-validate >/dev/null
$FORGE --key "$FX/test.key" --out "$W/new.bundle" --bundle-id t-new --version 9.20.0.1
KIT="$BUNDLER kit --key $FX/test.key"
$KIT -o "$W/kit" --bundle "$W/new.bundle" >/dev/null 2>&1 || fail "bundler kit"
ESC=$(printf '\033')
BEL=$(printf '\007')

echo "== the swapped stick: another unpacker, SHA256SUMS and README.txt to match"
cp -a kit kswap
cp /bin/sh kswap/linux-x86_64/unpacker
echo "run ./linux-x86_64/unpacker as root" > kswap/README.txt
(cd kswap && grep -v ' README.txt$\| linux-x86_64/unpacker$' SHA256SUMS > S &&
	sha256sum README.txt linux-x86_64/unpacker >> S && mv S SHA256SUMS)
(cd kswap && sha256sum -c --quiet SHA256SUMS) || fail "the swap does not pass sha256sum (the attack)"
! openssl dgst -sha256 -verify "$FX/test.pub" -signature kswap/SHA256SUMS.sig kswap/SHA256SUMS \
	>/dev/null 2>&1 || fail "openssl verifies the swapped SHA256SUMS"
run_case stick_swapped "a stick with its unpacker, SHA256SUMS and README.txt swapped (sha256sum -c passes)" \
	"openssl refuses SHA256SUMS.sig; unpacker verify KIT: exit 3, the file named" 3 verify "$W/kswap"
assert_contains last.err "linux-x86_64/unpacker: .* the kit's signed index says"
run_case stick_swapped_install "the same stick given to install DIR" \
	"the swapped program is never run; install reads only signed bundles" 0 "$W/kswap" --dry-run

echo "== a link to /etc/shadow on the stick, named like a bundle: listed, never opened"
mkdir -p klink && cp new.bundle klink/ && ln -s /etc/shadow klink/aaa.bundle
run_case stick_link_shadow "aaa.bundle -> /etc/shadow beside the real bundle (install DIR)" \
	"passed over as a link, never opened; the real bundle chosen" 0 "$W/klink" --dry-run
assert_contains last.out "aaa.bundle: a link: not followed off the kit"
traced_opens "$W/strace.out" "$UNPACKER" install "$W/klink" --root "$R" \
	--trust "$FX/test.pub" --dry-run >/dev/null 2>&1 || fail "install klink under strace"
! grep -q 'shadow' "$W/strace.out" || { grep shadow "$W/strace.out"; fail "/etc/shadow was opened"; }
mkdir -p klink-only && ln -s /etc/shadow klink-only/cudnn.bundle
run_case stick_link_only "the kit's only bundle is a link to /etc/shadow" \
	"trust: exit 2 (nothing trusted to install), the link never opened" 2 "$W/klink-only"

echo "== 300 junk bundle names before the real one: every name is read"
mkdir -p kjunk
i=0
while [ $i -lt 300 ]; do echo junk > "kjunk/aaa-junk-$i.bundle"; i=$((i + 1)); done
cp new.bundle kjunk/zzz-real.bundle
run_case stick_junk_names "300 junk *.bundle files before the real bundle" \
	"every name read; the real bundle chosen, each junk file passed over" 0 "$W/kjunk" --dry-run
assert_contains last.out "chose zzz-real.bundle"
[ "$(grep -c '^  aaa-junk-.*\.bundle: ' last.out)" = 300 ] || fail "not every junk name was read"

echo "== escape sequences in a name: printed escaped, nothing raw reaches the terminal"
mkdir -p kesc && cp new.bundle kesc/ && echo junk > "kesc/x${ESC}[2J${ESC}]0;owned${BEL}.bundle"
run_case stick_escape_name "a bundle named with ESC [2J, an OSC title and BEL" \
	"the name printed as \\x1b...\\x07; no raw control character on stdout or stderr" 0 "$W/kesc" --dry-run
! grep -q "$ESC\|$BEL" last.out last.err || fail "a raw ESC or BEL reached the terminal"
assert_contains last.out 'x\\x1b\[2J\\x1b\]0;owned\\x07.bundle'

echo "== C1 controls in a name (UTF-8 CSI, OSC, ST; a raw 0x9b byte): printed escaped too (issue 23 A14)"
mkdir -p kc1 && cp new.bundle kc1/ && echo junk > "kc1/$(printf 'y\302\2332J\302\2350;owned\302\234\23331m.bundle')"
run_case stick_c1_name "a bundle named with C1 controls (U+009B, U+009D, U+009C, a raw 0x9b)" \
	"the name printed as \\xc2\\x9b...; no C1 control on stdout or stderr" 0 "$W/kc1" --dry-run
python3 -c 'import re,sys
for f in sys.argv[1:]:
    t = open(f, "rb").read().decode("utf-8", "surrogateescape")
    if re.search("[\x80-\x9f\udc80-\udc9f]", t):
        sys.exit(f + ": a C1 control reached the terminal")' last.out last.err
assert_contains last.out 'y\\xc2\\x9b2J\\xc2\\x9d0;owned\\xc2\\x9c\\x9b31m.bundle'

echo "== an expired kit: exit 7 unless --allow-expired"
CUFERRY_KIT_CREATED=$(( $(date +%s) - 100 * 86400 )) "$B/bundler-test-seams" kit --key "$FX/test.key" \
	-o "$W/kold" --bundle "$W/new.bundle" >/dev/null 2>&1 || fail "the expired kit was not written"
run_case stick_expired "a kit written 100 days ago (valid 90)" \
	"policy: exit 7 before any bundle is read, the date named" 7 "$W/kold" --no-validate
assert_contains last.err "the kit expired on"

echo "== a linked cuferry-kit/ on a stick's root: exit 2, never followed"
mkdir -p stick && ln -s "$W/kit" stick/cuferry-kit
run_case stick_linked_kit "the stick's cuferry-kit/ is a link to a kit elsewhere" \
	"trust: exit 2, the link named, not followed" 2 "$W/stick" --no-validate
assert_contains last.err "cuferry-kit is a link"

echo "== a kit without its signed index; a bundle put on an indexed kit afterwards"
cp -a kit knoindex && rm knoindex/cuferry-kit.json knoindex/cuferry-kit.sig
run_case stick_index_removed "the kit's cuferry-kit.json and cuferry-kit.sig deleted (its expiry and file list with them)" \
	"trust: exit 2, refused as a kit without its index, no bundle read" 2 "$W/knoindex" --no-validate
assert_contains last.err "is a kit (it has SHA256SUMS.sig) without its signed index"
$FORGE --key "$FX/test.key" --out "$W/planted.bundle" --bundle-id t-planted --version 9.21.0.1
cp -a kit kplanted && cp planted.bundle kplanted/aaa-newer.bundle
run_case stick_planted_bundle "a newer, validly signed bundle put on an indexed kit after it was written" \
	"only what the index lists is considered: the planted one named in a note, never opened" 0 "$W/kplanted" --dry-run
assert_contains last.out "aaa-newer.bundle: not in the kit's signed index"
assert_contains last.err "never considered: aaa-newer.bundle"
! grep -q "chose aaa-newer" last.out || fail "the planted bundle was chosen"
traced_opens "$W/strace.out" "$UNPACKER" install "$W/kplanted" --root "$R" \
	--trust "$FX/test.pub" --dry-run >/dev/null 2>&1 || fail "install kplanted under strace"
! grep -q 'aaa-newer' "$W/strace.out" || { grep aaa-newer "$W/strace.out"; fail "the planted bundle was opened"; }
echo "== self-install KIT reads the kit's signed index (issue 23 A7, A12)"
# no_unpacker_installed ID: a refused self-install wrote no program into the root.
no_unpacker_installed() { [ ! -e "$R/usr/local/sbin/unpacker" ] || fail "$1: an unpacker was installed"; }
run_case self_install_no_index "self-install of a kit whose cuferry-kit.json and cuferry-kit.sig were deleted (its container still validly signed)" \
	"trust: exit 2, refused as a kit without its index, nothing installed" 2 self-install "$W/knoindex"
assert_contains last.err "without its signed index"
no_unpacker_installed self_install_no_index
$KIT -o "$W/knounp" --bundle "$W/new.bundle" --no-unpacker linux-x86_64 >/dev/null 2>&1 || fail "bundler kit --no-unpacker"
mkdir -p knounp/linux-x86_64 && cp kit/linux-x86_64/unpacker knounp/linux-x86_64/
run_case self_install_unlisted "a validly signed unpacker container put on a kit whose index does not list one" \
	"integrity: exit 3, the container named as not in the index, nothing installed" 3 self-install "$W/knounp"
assert_contains last.err "linux-x86_64/unpacker: not in the kit's signed index"
no_unpacker_installed self_install_unlisted
# An older unpacker (the same program, a lower version marker: the same size), signed by the
# kit's key on a kit of its own, put in the place of the kit's one: a rollback that its own
# signature does not reveal.
python3 - "$UNPACKER" older-unpacker <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
m = re.search(rb"CUFERRY-UNPACKER-VERSION=([0-9.]+)\0", b)
new = b"0.0.1".ljust(len(m.group(1)), b"\0")[:len(m.group(1))]
open(sys.argv[2], "wb").write(b[:m.start(1)] + new + b[m.end(1):])
PY
chmod 755 older-unpacker
$KIT -o "$W/kolder" --bundle "$W/new.bundle" --unpacker "linux-x86_64=$W/older-unpacker" >/dev/null 2>&1 || fail "the older kit"
cp -a kit krollback && cp kolder/linux-x86_64/unpacker krollback/linux-x86_64/unpacker
[ "$(wc -c < krollback/linux-x86_64/unpacker)" = "$(wc -c < kit/linux-x86_64/unpacker)" ] || fail "the older container is not the same size"
run_case self_install_rollback "an older, validly signed unpacker container of the same size in the kit's one's place" \
	"integrity: exit 3, its SHA-256 differs from the index, nothing installed" 3 self-install "$W/krollback"
assert_contains last.err "linux-x86_64/unpacker: SHA-256 differs from the kit's signed index"
no_unpacker_installed self_install_rollback
run_case self_install_container_in_kit "the same older container, given by its path in the kit (self-install KIT/linux-x86_64/unpacker)" \
	"integrity: exit 3, a container inside a kit is checked against the kit's signed index too, nothing installed" 3 self-install "$W/krollback/linux-x86_64/unpacker"
assert_contains last.err "linux-x86_64/unpacker: SHA-256 differs from the kit's signed index"
no_unpacker_installed self_install_container_in_kit
(cd krollback/linux-x86_64 && expect 3 "$UNPACKER" self-install unpacker --root "$R" --trust "$FX/test.pub")
assert_contains last.err "SHA-256 differs from the kit's signed index"
no_unpacker_installed self_install_container_in_kit

echo "== install KIT hashes the chosen bundle against the index (issue 23 A12)"
$FORGE --key "$FX/test.key" --out "$W/older.bundle" --bundle-id t-new --version 9.19.0.1
[ "$(wc -c < older.bundle)" = "$(wc -c < new.bundle)" ] || fail "the older bundle is not the same size"
cp -a kit kmixin && cp older.bundle kmixin/new.bundle
run_case stick_same_size_rollback "an older bundle, validly signed, of the same size, in a listed bundle's place" \
	"integrity: exit 3, its SHA-256 differs from the kit's signed index, nothing installed" 3 install "$W/kmixin" --no-validate
assert_contains last.err "new.bundle: SHA-256 differs from the kit's signed index"

echo "== install KIT hashes the kit's trust statement against the index before reading it"
# A root that trusts the kit's key durably (a statement is judged by those keys only), so a
# validly signed statement would be applied: what the case must show is that it is not.
fresh_root "$W/rstmt"
"$UNPACKER" trust add "$FX/test.pub" --root "$R" >/dev/null || fail "trust add"
TRUSTDIR=$R/etc/cuferry
trust_before=$(tree_listing "$TRUSTDIR")
"$BUNDLER" trust-statement --threshold 1 --counter 5 --key "$FX/test.key" -o "$W/kit.st" >/dev/null 2>&1 || fail "statement"
"$BUNDLER" trust-statement --statement-threshold 1 --counter 6 --key "$FX/test.key" -o "$W/other.st" >/dev/null 2>&1 || fail "the other statement"
$KIT -o "$W/kstmt" --bundle "$W/new.bundle" --statement "$W/kit.st" >/dev/null 2>&1 || fail "bundler kit --statement"
cp -a kstmt kstswap && cp other.st kstswap/trust-statement.cuferry
run_case stick_statement_swapped "another statement, validly signed by the kit's key, in the kit's trust-statement.cuferry's place" \
	"integrity: exit 3, its SHA-256 differs from the kit's signed index, never applied, nothing installed" 3 install "$W/kstswap" --no-validate
assert_contains last.err "trust-statement.cuferry: .* the kit's signed index says"
expect 3 "$UNPACKER" install "$W/kstswap" --root "$R" --trust "$FX/test.pub" --dry-run
assert_contains last.err "trust-statement.cuferry: .* the kit's signed index says"
cp -a kit kstplant && cp other.st kstplant/trust-statement.cuferry
run_case stick_statement_planted "a validly signed statement put on a kit whose index lists none" \
	"integrity: exit 3, named as not in the kit's signed index, never applied, nothing installed" 3 install "$W/kstplant" --no-validate
assert_contains last.err "trust-statement.cuferry: not in the kit's signed index"
[ "$(tree_listing "$TRUSTDIR")" = "$trust_before" ] || fail "a statement not the kit's changed what the host trusts"
expect 0 "$UNPACKER" install "$W/kstmt" --root "$R" --trust "$FX/test.pub" --no-validate
assert_contains last.out "applied $W/kstmt/trust-statement.cuferry: counter 5"

echo "== self-install of a kit's own container by its path, and of a private copy, still works"
expect 0 "$UNPACKER" self-install "$W/kit/linux-x86_64/unpacker" --root "$R" --trust "$FX/test.pub"
assert_contains last.out "installed the unpacker"
mkdir -p private && cp krollback/linux-x86_64/unpacker private/unpacker
rm -f "$R/usr/local/sbin/unpacker"
expect 0 "$UNPACKER" self-install "$W/private/unpacker" --root "$R" --trust "$FX/test.pub"
assert_contains last.out "installed the unpacker 0.0.1"

echo "ok"
