#!/bin/sh
# Trust before bytes: every defect of signature or frame gets exit 2 and writes nothing;
# a damaged or extended payload gets exit 3. Thresholds count distinct trusted keys.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
FORGE="python3 $TOP/tests/tools/forge.py"

for c in unsigned header_bitflip truncated_frame frame_over_cap sig_len63 sig_len65 sig_r0 \
	 sig_s0 sig_r_ge_n keyid_lie; do
	note "$c: exit 2, nothing written"
	$FORGE --key "$FX/test.key" --out $c.bundle --case $c
	mkdir -p root-$c
	expect 2 "$UNPACKER" $c.bundle --root "$W/root-$c" --trust "$FX/test.pub"
	one_line_reason
	[ -z "$(ls -A root-$c)" ] || fail "$c wrote $(ls -A root-$c)"
done

$FORGE --key "$FX/test.key" --out good.bundle
mkdir root
note "a key that is not trusted"
expect 2 "$UNPACKER" good.bundle --root "$W/root" --trust "$FX/other.pub"
assert_contains last.err "no valid signature by a trusted key"
note "no trusted key configured at all"
expect 2 "$UNPACKER" good.bundle --root "$W/root"
assert_contains last.err "no trusted key is configured"
[ -z "$(ls -A root)" ] || fail "wrote into root"

fp() { openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -c1-64; }
note "--trust-fingerprint: a mismatch is refused, the match is taken"
expect 2 "$UNPACKER" verify good.bundle --trust-fingerprint "$(fp "$FX/other.pub")"
expect 0 "$UNPACKER" verify good.bundle --trust-fingerprint "$(fp "$FX/test.pub")"
expect 1 "$UNPACKER" verify good.bundle --trust-fingerprint abc

note "threshold 2 in the trust directory: the same key twice does not count twice"
mkdir -p troot/etc/cuferry/trusted-keys
cp "$FX/test.pub" "$FX/other.pub" troot/etc/cuferry/trusted-keys/
echo 2 > troot/etc/cuferry/trusted-keys/threshold
chmod 755 troot troot/etc troot/etc/cuferry troot/etc/cuferry/trusted-keys
$FORGE --key "$FX/test.key" --key "$FX/test.key" --out twice.bundle
expect 2 "$UNPACKER" twice.bundle --root "$W/troot"
assert_contains last.err "1 distinct trusted signatures, 2 required"
$FORGE --key "$FX/test.key" --key "$FX/other.key" --out both.bundle
expect 0 "$UNPACKER" both.bundle --root "$W/troot" --no-validate

note "a trust directory writable by others is ignored, and its threshold fails closed"
chmod 777 troot/etc/cuferry/trusted-keys
expect 2 "$UNPACKER" verify both.bundle --root "$W/troot" --trust "$FX/test.pub"
assert_contains last.err "the threshold cannot be trusted"
mv troot/etc/cuferry/trusted-keys/threshold threshold.saved
expect 2 "$UNPACKER" verify both.bundle --root "$W/troot"
assert_contains last.err "no trusted key is configured"
mv threshold.saved troot/etc/cuferry/trusted-keys/threshold
chmod 755 troot/etc/cuferry/trusted-keys

note "the directory above it writable by others: the trust directory could be taken away with its"
note "threshold, so neither it nor its absence is believed (exit 2)"
chmod 777 troot/etc/cuferry
expect 2 "$UNPACKER" verify both.bundle --root "$W/troot" --trust "$FX/test.pub"
assert_contains last.err "etc/cuferry is not a directory owned by root"
one_line_reason
mv troot/etc/cuferry/trusted-keys gone
expect 2 "$UNPACKER" verify both.bundle --root "$W/troot" --trust "$FX/test.pub"
assert_contains last.err "nor its absence"
mv gone troot/etc/cuferry/trusted-keys
chmod 755 troot/etc/cuferry
expect 0 "$UNPACKER" verify both.bundle --root "$W/troot"

for c in payload_bitflip appended_byte appended_frame; do
	note "$c: exit 3, nothing installed"
	$FORGE --key "$FX/test.key" --out $c.bundle --case $c
	mkdir -p r-$c
	expect 3 "$UNPACKER" $c.bundle --root "$W/r-$c" --trust "$FX/test.pub"
	one_line_reason
	[ -z "$(find r-$c -name 'cudnn-*')" ] || fail "$c installed something"
	no_staging r-$c
done
assert_contains last.err "unexpected data after the payload"

# ---- the trust verbs (unpacker trust), statements and revocation (DESIGN §10) ----
K1=$FX/test.key; P1=$FX/test.pub; K2=$FX/other.key; P2=$FX/other.pub
F1=$(fp "$P1"); F2=$(fp "$P2")
V=$W/vroot; TD=$V/etc/cuferry/trusted-keys
mkdir -p "$V"
note "trust list with nothing trusted; trust add checks the fingerprint read off paper"
expect 0 "$UNPACKER" trust list --root "$V"
assert_contains last.out "no trusted key"
expect 2 "$UNPACKER" trust add "$P1" --fingerprint "$F2" --root "$V"
one_line_reason
assert_contains last.err "not the one given"
[ -z "$(ls -A "$TD" 2>/dev/null)" ] || fail "a key whose fingerprint did not match was written"
expect 1 "$UNPACKER" trust add "$P1" --fingerprint abc --root "$V"
expect 0 "$UNPACKER" trust add "$P1" --fingerprint "$F1" --root "$V"
expect 0 "$UNPACKER" trust add "$P1" --root "$V"
assert_contains last.out "already trusted"
[ "$(stat -c '%U %a' "$TD/$(echo "$F1" | cut -c1-16).pub")" = "root 644" ] || fail "key file not root's 0644"
assert_contains "$V/var/log/cuferry/unpacker.log" "trust: added $F1"
expect 0 "$UNPACKER" trust list --root "$V"
assert_contains last.out "$F1  file"
assert_contains last.out "threshold 1"
assert_contains last.out "statement threshold 1"

note "trust threshold: not above the keys trusted, not a word; remove: not below the threshold"
expect 1 "$UNPACKER" trust threshold 2 --root "$V"
expect 1 "$UNPACKER" trust threshold two --root "$V"
expect 1 "$UNPACKER" trust remove "$F1" --root "$V"
assert_contains last.err "lower the threshold first"
expect 1 "$UNPACKER" trust remove "$F2" --root "$V"
assert_contains last.err "not trusted here"
expect 1 "$UNPACKER" trust nosuch --root "$V"

note "install --trust K.pub --remember: the key is in the trust directory after the install"
R=$W/rem; mkdir -p "$R"
expect 1 "$UNPACKER" good.bundle --root "$R" --remember --no-validate
expect 0 "$UNPACKER" good.bundle --root "$R" --trust "$P1" --remember --no-validate
expect 0 "$UNPACKER" verify good.bundle --root "$R"
assert_contains "$R/var/log/cuferry/unpacker.log" "trust: added $F1"

note "statements: a key can revoke itself alone, never another key alone, nor add a friend"
expect 0 "$UNPACKER" trust add "$P2" --fingerprint "$F2" --root "$V"
expect 0 "$UNPACKER" trust list --root "$V"
assert_contains last.out "statement threshold 2"
expect 0 "$BUNDLER" trust-statement --revoke "$F2" --counter 10 --key "$K1" -o other.st
expect 2 "$UNPACKER" trust apply other.st --root "$V"
one_line_reason
assert_contains last.err "need 2"
"$BUNDLER" keygen friend >/dev/null
expect 0 "$BUNDLER" trust-statement --add friend.pub --counter 11 --key "$K1" -o friend.st
expect 2 "$UNPACKER" trust apply friend.st --root "$V"
expect 1 "$BUNDLER" trust-statement --revoke "$F2" -o x.st
expect 1 "$BUNDLER" trust-statement --key "$K1" -o x.st
expect 1 "$BUNDLER" trust-statement --revoke nothex --key "$K1" -o x.st

note "the revocation round trip: K1 signed and installed; K2 revokes K1; K1 counts nowhere after"
RT=$W/rt; mkdir -p "$RT"
expect 0 "$BUNDLER" sfx good.bundle --key "$K1" --unpacker "$UNPACKER" -o good.run
expect 0 "$UNPACKER" trust add "$P1" --fingerprint "$F1" --root "$RT"
expect 0 "$UNPACKER" trust add "$P2" --fingerprint "$F2" --root "$RT"
expect 0 "$UNPACKER" good.bundle --root "$RT" --no-validate
$FORGE --key "$K1" --out newer.bundle --counter 2000
expect 0 "$BUNDLER" trust-statement --revoke "$F1" --counter 20 --key "$K2" -o revoke1.st
expect 2 "$UNPACKER" trust apply revoke1.st --root "$RT"
assert_contains last.err "need 2"
expect 0 "$BUNDLER" trust-statement revoke1.st --key "$K1"
expect 1 "$BUNDLER" trust-statement revoke1.st --key "$K1"
assert_contains last.err "already signed"
expect 0 "$UNPACKER" trust apply revoke1.st --root "$RT"
assert_contains last.out "applied revoke1.st: counter 20"
assert_contains "$RT/var/log/cuferry/unpacker.log" "trust: revoked $F1"
expect 0 "$UNPACKER" trust apply revoke1.st --root "$RT"
assert_contains last.out "already applied"
expect 0 "$UNPACKER" trust list --root "$RT"
assert_contains last.out "$F1  revoked"
before=$(tree_listing "$RT/opt")
expect 2 "$UNPACKER" newer.bundle --root "$RT" --no-validate
assert_contains last.err "signed by a revoked key"
expect 2 "$UNPACKER" verify good.bundle --root "$RT"
assert_contains last.err "signed by a revoked key"
expect 2 "$UNPACKER" verify good.bundle --root "$RT" --trust "$P1"
expect 2 "$UNPACKER" verify good.bundle --root "$RT" --trust-fingerprint "$F1"
expect 2 "$UNPACKER" verify good.run --root "$RT"
assert_contains last.err "revoked"
[ "$before" = "$(tree_listing "$RT/opt")" ] || fail "a refused K1 bundle changed the root"
expect 2 "$UNPACKER" validate --root "$RT"
assert_contains last.err "signed by a revoked key"
assert_contains last.out "2    library       skip   not loaded: step 1 failed"
expect 2 "$UNPACKER" trust add "$P1" --root "$RT"
assert_contains last.err "revoked"

note "an older statement replayed is refused (7); one that is not newer either"
expect 0 "$BUNDLER" trust-statement --threshold 1 --counter 15 --key "$K2" -o old.st
expect 7 "$UNPACKER" trust apply old.st --root "$RT"
one_line_reason
assert_contains last.err "replayed"
expect 0 "$BUNDLER" trust-statement --threshold 1 --counter 20 --key "$K2" -o same.st
expect 7 "$UNPACKER" trust apply same.st --root "$RT"

note "a statement file that is not one: exit 2; a bundle given as a statement: exit 2"
printf 'garbage' > bad.st
expect 2 "$UNPACKER" trust apply bad.st --root "$RT"
expect 2 "$UNPACKER" trust apply good.bundle --root "$RT"

note "trust reset-clock: a prefix that recorded a time ahead of the clock goes back, logged"
CK=$W/clock; mkdir -p "$CK"
# As an older unpacker left it: a bundle dated 2099 installed, its time recorded (today's
# unpacker refuses such a bundle and records nothing of it).
expect 0 "$UNPACKER" good.bundle --root "$CK" --trust "$P1" --no-validate
py - "$CK/opt/cudnn/.cuferry/state.json" <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p))
s["newest_created"] = "2099-01-01T00:00:00Z"
json.dump(s, open(p, "w"))
PY
expect 7 "$UNPACKER" newer.bundle --root "$CK" --trust "$P1" --no-validate
assert_contains last.err "clock"
expect 1 "$UNPACKER" trust reset-clock --root "$CK" --fingerprint "$F1"
expect 0 "$UNPACKER" trust reset-clock --root "$CK"
assert_contains last.out "it is now"
grep -q '"newest_created": "2099' "$CK/opt/cudnn/.cuferry/state.json" && fail "still recorded"
assert_contains "$CK/var/log/cuferry/unpacker.log" "reset-clock"
expect 0 "$UNPACKER" trust reset-clock --root "$CK"
assert_contains last.out "nothing to do"
expect 0 "$UNPACKER" newer.bundle --root "$CK" --trust "$P1" --no-validate

note "the stock-tool check of a statement's first signature (openssl, docs/formats.md) verifies"
cp revoke1.st s.st
awk '/^H=\$\(od -An -tu4 -j16/,/^openssl dgst -sha256 -verify <\(openssl pkey/' "$TOP/docs/formats.md" > stock.sh
[ -s stock.sh ] || fail "no stock-tool check of a statement in docs/formats.md"
bash stock.sh > stock.out 2>&1 || { cat stock.out; fail "the openssl check of a statement in docs/formats.md failed"; }
assert_contains stock.out "Verified OK"
assert_contains body.json '"format": "cuferry-trust-statement-1"'

note "bundler kit --statement carries a statement; install DIR applies it before it chooses"
expect 0 "$BUNDLER" kit -o kit --key "$K1" --bundle newer.bundle --unpacker "$UNPACKER" --statement revoke1.st
[ -f kit/trust-statement.cuferry ] || fail "the kit carries no trust-statement.cuferry"
grep -q trust-statement.cuferry kit/SHA256SUMS || fail "SHA256SUMS does not list the statement"
RK=$W/rk; mkdir -p "$RK"
expect 0 "$UNPACKER" trust add "$P1" --root "$RK"
expect 0 "$UNPACKER" trust add "$P2" --root "$RK"
expect 0 "$UNPACKER" install kit --root "$RK" --dry-run
expect 2 "$UNPACKER" install kit --root "$RK" --no-validate
assert_contains last.out "applied kit/trust-statement.cuferry"
assert_contains last.err "signed by a revoked key"
expect 0 "$UNPACKER" trust list --root "$RK"
assert_contains last.out "$F1  revoked"
[ ! -e "$RK/opt/cudnn/current" ] || fail "a bundle of the revoked key was installed from the kit"

note "a kit's trust-statement.cuferry that is a link (off the stick) or a device is never opened"
RL=$W/rl; mkdir -p "$RL"
expect 0 "$UNPACKER" trust add "$P1" --root "$RL"
cp -R kit kit-link && rm kit-link/trust-statement.cuferry
mkfifo kit-link/trust-statement.cuferry
expect 3 "$UNPACKER" install kit-link --root "$RL" --no-validate
one_line_reason
assert_contains last.err "not a plain file on the kit"
rm kit-link/trust-statement.cuferry && ln -s /dev/zero kit-link/trust-statement.cuferry
expect 3 "$UNPACKER" install kit-link --root "$RL" --no-validate
assert_contains last.err "not a plain file on the kit"
[ ! -e "$RL/opt/cudnn/current" ] || fail "installed from a kit whose statement is a link"

note "trust-statement --external: the digest, signed with openssl elsewhere, then added"
d=$(SOURCE_DATE_EPOCH=1790000000 "$BUNDLER" trust-statement --threshold 1 --counter 3 --external -o ext.st 2>/dev/null)
[ ! -e ext.st ] || fail "--external alone wrote a statement"
printf %s "$d" | xxd -r -p > digest.bin
openssl pkeyutl -sign -inkey "$K2" -in digest.bin -out ext.der
SOURCE_DATE_EPOCH=1790000000 expect 0 "$BUNDLER" trust-statement --threshold 1 --counter 3 --external \
	--pub "$P2" --signature ext.der -o ext.st
EX=$W/ext; mkdir -p "$EX"
expect 0 "$UNPACKER" trust add "$P2" --root "$EX"
expect 0 "$UNPACKER" trust apply ext.st --root "$EX"
assert_contains last.out "applied ext.st: counter 3"
