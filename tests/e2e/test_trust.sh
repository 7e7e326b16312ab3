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
