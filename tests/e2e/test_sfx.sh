#!/bin/sh
# Self-extracting bundles (DESIGN §2, §8): bundler sfx on a signed bundle, create --sfx writing
# the plain bundle and its .run, --external for the stub-signature block (signed by OpenSSL),
# a threshold of two keys, the stub chosen for the bundle's platform (an AArch64 one for
# linux-sbsa, or an early, clear error), and a .run started through the dynamic loader, from
# a file without its x bit and from a noexec mount. The damaged and forged .run files are
# tests/threats/test_sfx_threats.sh.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
LOADER=/lib64/ld-linux-x86-64.so.2
# stand-in stubs carry the marker every cuferry unpacker has (common/bundle/sfx.h)
STUB_MARKER='__attribute__((used)) const char marker[] = "CUFERRY-UNPACKER-STUB/1";'

note "bundler sfx wraps a signed bundle; the .run verifies and installs itself"
cp "$FX/small.bundle" s.bundle
expect 0 "$BUNDLER" sfx s.bundle --key "$FX/test.key" --unpacker "$UNPACKER"
[ -x s.run ] || fail "no executable s.run"
assert_contains last.out "stub-signature 1"
cmp -n "$(stat -c %s "$UNPACKER")" s.run "$UNPACKER" || fail "the .run does not start with the unpacker"
expect 0 "$UNPACKER" verify s.run $T
assert_contains last.out "all hashes match"
assert_contains last.err "stub and its layout are signed by"
expect 0 "$BUNDLER" inspect s.run
assert_contains last.out "stub signer 1"
assert_contains last.out "self-extracting"
(cd / && setsid "$W/s.run" /silent --root "$W/r1" $T --no-validate </dev/null >"$W/run.out" 2>"$W/run.err") ||
	fail "./s.run /silent failed: $(cat run.err)"
[ -f r1/opt/cudnn/current/lib/libcudnn.so.9 ] || fail "the .run installed nothing"
sha256sum -c SHA256SUMS >/dev/null || fail "SHA256SUMS does not match"

note "split takes the plain bundle, not a .run"
expect 1 "$BUNDLER" split s.run --split 1M
assert_contains last.err "plain .bundle"
one_line_reason
[ ! -e s.run.001 ] || fail "split wrote parts of a .run"

note "the stub signature as docs/formats.md documents it, checked by stock OpenSSL"
expect 0 "$BUNDLER" inspect s.run --export exp
python3 - s.run exp/stub-message.bin exp/header.json <<'PY'
import hashlib, struct, sys
run = open(sys.argv[1], 'rb').read()
s, l, k = struct.unpack('<QQQ', run[-24:])
msg = (b'CFSTUB01' + hashlib.sha256(run[:s]).digest()
       + hashlib.sha256(open(sys.argv[3], 'rb').read()).digest() + struct.pack('<QQ', s, l))
assert msg == open(sys.argv[2], 'rb').read(), "stub-message.bin is not the documented message"
PY
openssl dgst -sha256 -verify exp/stub-signer-1.pub -signature exp/stub-signature-1.der exp/stub-message.bin >/dev/null ||
	fail "OpenSSL does not verify the stub signature"

note "from another directory, a read-only source, umask 077: the .run is still 0755"
mkdir -p ro rw
cp s.bundle ro/
chmod 555 ro
(cd rw && umask 077 && expect 0 "$BUNDLER" sfx ../ro/s.bundle --key "$FX/test.key" --unpacker "$UNPACKER" -o "$W/rw/")
[ "$(stat -c %a rw/s.run)" = 755 ] || fail "mode $(stat -c %a rw/s.run) under umask 077"
cmp rw/s.run s.run || fail "the .run depends on where it was made"
[ ! -e ro/SHA256SUMS ] || fail "wrote beside the read-only source"
(cd / && expect 0 "$UNPACKER" verify "$W/rw/s.run" $T)

note "sfx refuses what it cannot wrap: a wrong --platform, a foreign stub, an unsigned input"
# an ELF of the right machine type that is not a cuferry unpacker (the bundler itself, ls)
for other in /bin/ls "$BUNDLER"; do
	expect 4 "$BUNDLER" sfx s.bundle --key "$FX/test.key" --unpacker "$other" -o other.run
	assert_contains last.err "not a cuferry unpacker"
	one_line_reason
	[ ! -e other.run ] || fail "a .run was written with $other as its stub"
done
mkdir -p lsdir
cp /bin/ls lsdir/unpacker
cp "$BUNDLER" lsdir/bundler
expect 4 lsdir/bundler sfx s.bundle --key "$FX/test.key" -o other.run
assert_contains last.err "not a cuferry unpacker"
expect 4 "$BUNDLER" sfx s.bundle --key "$FX/test.key" --platform linux-sbsa -o w.run
one_line_reason
expect 1 "$BUNDLER" sfx s.bundle
head -c 100000 "$FX/small.bundle" > cut.bundle
expect 3 "$BUNDLER" sfx cut.bundle --key "$FX/test.key" -o cut.run
[ ! -e cut.run ] || fail "a .run was written from a truncated bundle"
ls | grep -q 'tmp-' && fail "temporary left: $(ls | grep tmp-)"

note "create --sfx writes the plain bundle and the .run from it, one SHA256SUMS for both"
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 \
	--key "$FX/test.key" -o out/ --level 3 --counter 100 --sfx --unpacker "$UNPACKER" -q
ls out/cudnn-9.19.0-cuda13-linux-x86_64.bundle out/cudnn-9.19.0-cuda13-linux-x86_64.run >/dev/null
python3 - out/cudnn-9.19.0-cuda13-linux-x86_64.run out/cudnn-9.19.0-cuda13-linux-x86_64.bundle <<'PY'
import struct, sys
run = open(sys.argv[1], 'rb').read()
s, l, k = struct.unpack('<QQQ', run[-24:])
assert run[-32:-24] == b'CUFERRY1' and s + l + k + 32 == len(run)
assert run[s:s + l] == open(sys.argv[2], 'rb').read(), "the .run does not hold the plain bundle"
assert run[s + l:s + l + 8] == b'CFSTUB01'
PY
(cd out && sha256sum -c SHA256SUMS >/dev/null) || fail "SHA256SUMS of create --sfx"
[ "$(wc -l < out/SHA256SUMS)" -eq 2 ] || fail "SHA256SUMS should list the bundle and the .run"
expect 0 "$UNPACKER" verify out/cudnn-9.19.0-cuda13-linux-x86_64.run $T

note "create --split --sfx: the parts and the .run, both from the one signed bundle"
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 \
	--key "$FX/test.key" -o parts/ --level 3 --counter 100 --split 1M --sfx --unpacker "$UNPACKER" -q
p=parts/cudnn-9.19.0-cuda13-linux-x86_64
(cd parts && sha256sum -c SHA256SUMS >/dev/null) || fail "SHA256SUMS of --split --sfx"
[ "$(wc -l < parts/SHA256SUMS)" -eq 4 ] || fail "SHA256SUMS should list the bundle, two parts and the .run"
cat $p.bundle.001 $p.bundle.002 > joined.bundle
cmp joined.bundle out/cudnn-9.19.0-cuda13-linux-x86_64.bundle || fail "the parts are not the bundle"
cmp $p.run out/cudnn-9.19.0-cuda13-linux-x86_64.run || fail "the .run differs from the one made without --split"
expect 0 "$UNPACKER" verify $p.run $T
ls parts | grep -q tmp- && fail "temporary left in parts/"

note "--external: the digest printed, signed by OpenSSL (DER), converted, verified, added"
expect 0 "$BUNDLER" sfx s.bundle --external --unpacker "$UNPACKER" -o ext.run
digest=$(head -1 last.out)
# the steps come a line each, not escaped into one line
! grep -q 'x0a' last.out last.err || fail "escaped newlines in the steps: $(cat last.err)"
assert_contains last.err "then: bundler sfx s.bundle --external"
cp s.bundle ext-sign.bundle
expect 0 "$BUNDLER" sign ext-sign.bundle --external
! grep -q 'x0a' last.out last.err || fail "escaped newlines in sign's steps: $(cat last.err)"
assert_contains last.err "then: bundler sign ext-sign.bundle --external"
[ ${#digest} -eq 64 ] || fail "no digest printed: $digest"
[ ! -e ext.run ] || fail "--external without a signature wrote a file"
printf %s "$digest" | xxd -r -p > digest.bin
openssl pkeyutl -sign -inkey "$FX/other.key" -in digest.bin -out sig.der
expect 2 "$BUNDLER" sfx s.bundle --external --pub "$FX/test.pub" --signature sig.der --unpacker "$UNPACKER" -o ext.run
[ ! -e ext.run ] || fail "a signature by the wrong key was added"
openssl pkeyutl -sign -inkey "$FX/test.key" -in digest.bin -out sig.der
expect 0 "$BUNDLER" sfx s.bundle --external --pub "$FX/test.pub" --signature sig.der --unpacker "$UNPACKER" -o ext.run
expect 0 "$UNPACKER" verify ext.run $T
# a second signature on the .run, made elsewhere too, given as 128 hex digits
expect 0 "$BUNDLER" sfx ext.run --external
printf %s "$(head -1 last.out)" | xxd -r -p > digest2.bin
openssl pkeyutl -sign -inkey "$FX/other.key" -in digest2.bin -out sig2.der
python3 -c "
import sys
d = open('sig2.der', 'rb').read()
r_len = d[3]; r = int.from_bytes(d[4:4 + r_len], 'big')
s_len = d[5 + r_len]; s = int.from_bytes(d[6 + r_len:6 + r_len + s_len], 'big')
open('sig2.hex', 'w').write((r.to_bytes(32, 'big') + s.to_bytes(32, 'big')).hex() + '\n')"
expect 0 "$BUNDLER" sfx ext.run --external --pub "$FX/other.pub" --signature sig2.hex
assert_contains last.out "stub-signature 2"

note "issue 24, review item 5: a stub signed by a key that did not sign the header is not co-signed (2) unless --force"
expect 0 "$BUNDLER" sfx s.bundle --key "$FX/other.key" --unpacker "$UNPACKER" -o unknown.run
cp unknown.run unknown-before.run
expect 2 "$BUNDLER" sfx unknown.run --key "$FX/test.key"
one_line_reason
assert_contains last.err "did not sign the bundle's header"
cmp -s unknown.run unknown-before.run || fail "the refused co-signature changed the .run"
expect 0 "$BUNDLER" sfx unknown.run --key "$FX/test.key" --force
assert_contains last.err "--force"
assert_contains last.out "stub-signature 2"

note "a threshold of two keys holds for the stub as for the header"
if [ "$(id -u)" = 0 ]; then
	R=$W/troot
	mkdir -p "$R/etc/cuferry/trusted-keys"
	cp "$FX/test.pub" "$FX/other.pub" "$R/etc/cuferry/trusted-keys/"
	echo 2 > "$R/etc/cuferry/trusted-keys/threshold"
	chmod 755 "$R" "$R/etc" "$R/etc/cuferry" "$R/etc/cuferry/trusted-keys"
	chmod 644 "$R"/etc/cuferry/trusted-keys/*
	cp s.bundle two.bundle
	expect 0 "$BUNDLER" sign two.bundle --key "$FX/other.key"
	expect 0 "$BUNDLER" sfx two.bundle --key "$FX/test.key" --unpacker "$UNPACKER"
	expect 2 "$UNPACKER" verify two.run --root "$R"
	one_line_reason
	assert_contains last.err "stub"
	expect 0 "$BUNDLER" sfx two.run --key "$FX/other.key"
	expect 1 "$BUNDLER" sfx two.run --key "$FX/other.key"
	assert_contains last.err "already signed"
	expect 0 "$UNPACKER" verify two.run --root "$R"
else
	echo "SKIP threshold of two keys: the trust directory counts only when root owns it (not root)"
fi

note "the stub for the platform: AArch64 for linux-sbsa, found or refused before any work"
python3 "$TOP/tests/tools/forge.py" --key "$FX/test.key" --out "$W/sbsa.bundle" --platform linux-sbsa --bundle-id t-sbsa
expect 4 "$BUNDLER" sfx sbsa.bundle --key "$FX/test.key" --unpacker "$UNPACKER"
assert_contains last.err "AArch64"
one_line_reason
mkdir -p bin
cp "$BUNDLER" bin/bundler
expect 4 bin/bundler sfx sbsa.bundle --key "$FX/test.key"
assert_contains last.err "make aarch64"
one_line_reason
# create --sfx with no AArch64 stub stops before the download (the mirror is unreachable:
# reaching for it would be exit 9)
expect 4 bin/bundler create --cudnn 9.19 --cuda 13 --platform linux-sbsa --sfx --key "$FX/test.key" \
	-o out2/ --mirror http://127.0.0.1:9/
assert_contains last.err "make aarch64"
[ ! -e out2 ] || [ -z "$(ls out2)" ] || fail "create wrote something"
if [ -x "$B/linux-sbsa/unpacker" ]; then
	cp "$B/linux-sbsa/unpacker" arm-stub
else
	printf '%s\nint main(void) { return 0; }\n' "$STUB_MARKER" > tiny.c
	aarch64-linux-gnu-gcc -static -O2 tiny.c -o arm-stub
fi
# create --sfx from a tree of AArch64 libraries: its platform is known only from the source,
# and the missing stub is reported before compression, nothing written
mkdir -p arm/include arm/lib
cp "$FX/small-src/include/cudnn_version.h" arm/include/
printf 'int cudnnGetVersion(void) { return 91900; }\n' > fake.c
aarch64-linux-gnu-gcc -shared -fPIC fake.c -o arm/lib/libcudnn.so.9
ln -s libcudnn.so.9 arm/lib/libcudnn.so
echo "licence" > arm/LICENSE
expect 4 bin/bundler create --from-dir arm --cuda 12 --key "$FX/test.key" -o out3/ --sfx
assert_contains last.err "no unpacker for linux-sbsa"
one_line_reason
[ ! -e out3 ] || [ -z "$(ls -A out3)" ] || fail "create wrote something: $(ls -A out3)"
expect 0 bin/bundler create --from-dir arm --cuda 12 --key "$FX/test.key" -o out3/ --sfx --unpacker arm-stub
cmp -n "$(stat -c %s arm-stub)" out3/cudnn-9.19.0-cuda12-linux-sbsa.run arm-stub || fail "create --sfx: no AArch64 stub in front"
expect 0 "$UNPACKER" verify out3/cudnn-9.19.0-cuda12-linux-sbsa.run $T
mkdir -p bin/linux-sbsa inst/bin inst/lib/cuferry/linux-sbsa
cp arm-stub bin/linux-sbsa/unpacker
expect 0 bin/bundler sfx sbsa.bundle --key "$FX/test.key" -o beside.run
cmp -n "$(stat -c %s arm-stub)" beside.run arm-stub || fail "the AArch64 stub found beside the bundler is not in front"
cp "$BUNDLER" inst/bin/bundler
cp arm-stub inst/lib/cuferry/linux-sbsa/unpacker
expect 0 inst/bin/bundler sfx sbsa.bundle --key "$FX/test.key" -o installed.run
cmp -n "$(stat -c %s arm-stub)" installed.run arm-stub || fail "the installed AArch64 stub is not in front"
expect 0 "$BUNDLER" sfx sbsa.bundle --key "$FX/test.key" --unpacker arm-stub -o given.run
[ "$(head -c 20 given.run | od -An -tx1 -j18 -N2 | tr -d ' ')" = "b700" ] || fail "e_machine is not AArch64"
expect 0 "$UNPACKER" verify given.run $T
if [ -x "$B/linux-sbsa/unpacker" ] && command -v qemu-aarch64 >/dev/null; then
	expect 0 run_aarch64 ./given.run verify $T
	echo "the AArch64 .run verified itself under qemu-aarch64"
fi

note "windows-x86_64 takes an x86-64 PE stub and makes an .exe"
python3 "$TOP/tests/tools/forge.py" --key "$FX/test.key" --out "$W/win.bundle" --platform windows-x86_64 --bundle-id t-win
expect 4 "$BUNDLER" sfx win.bundle --key "$FX/test.key" --unpacker "$UNPACKER"
assert_contains last.err "PE"
if command -v x86_64-w64-mingw32-gcc >/dev/null; then
	printf '%s\nint main(void) { return 0; }\n' "$STUB_MARKER" > tiny-win.c
	x86_64-w64-mingw32-gcc -O2 tiny-win.c -o tiny-win.exe
	expect 4 "$BUNDLER" sfx sbsa.bundle --key "$FX/test.key" --unpacker tiny-win.exe
	expect 0 "$BUNDLER" sfx win.bundle --key "$FX/test.key" --unpacker tiny-win.exe
	[ -f win.exe ] || fail "no win.exe"
	expect 0 "$UNPACKER" verify win.exe $T
else
	echo "SKIP the PE stub: no x86_64-w64-mingw32-gcc"
fi

note "started through the dynamic loader: a .run without its x bit"
cp s.run nox.run
chmod 644 nox.run
expect 126 sh -c "./nox.run verify $T"
assert_contains last.err "Permission denied"
(cd / && "$LOADER" "$W/nox.run" /silent --root "$W/r2" $T </dev/null >"$W/ld.out" 2>"$W/ld.err") ||
	fail "the loader start failed: $(cat ld.err ld.out)"
[ -f r2/opt/cudnn/current/lib/libcudnn.so.9 ] || fail "the loader start installed nothing"
# validation's probe ran through the loader too: step 2 loaded the installed library
grep -q "library *pass" r2/var/log/cuferry/unpacker.log || fail "validation through the loader: $(cat r2/var/log/cuferry/unpacker.log)"
expect 0 "$LOADER" ./nox.run verify $T
# the loader starts the file it was given; a swapped or damaged one must not pass
cp nox.run bad.run
python3 -c "
f = open('bad.run', 'r+b'); f.seek(4096); b = f.read(1); f.seek(4096); f.write(bytes([b[0] ^ 1]))"
set +e; "$LOADER" ./bad.run verify $T >/dev/null 2>&1; rc=$?; set -e
[ $rc -ne 0 ] || fail "a damaged stub started through the loader verified"

note "a noexec mount: the guide's way (check a private copy of the stub, run the copy) works"
if [ "$(id -u)" = 0 ] && mkdir -p nx && mount -t tmpfs -o noexec,size=64m tmpfs nx 2>/dev/null; then
	CLEANUP="$CLEANUP umount '$W/nx' 2>/dev/null;"
	cp s.run nx/s.run
	expect 126 sh -c "nx/s.run verify $T"
	set +e; "$LOADER" nx/s.run verify $T >/dev/null 2>&1; rc=$?; set -e
	[ $rc -ne 0 ] || echo "note: this kernel lets the loader map code from a noexec mount"
	mkdir -p r3
	guide_run_recipe "$W/nx/s.run" "$FX/test.pub" "$W/r3" >recipe.out 2>&1 || { cat recipe.out; fail "the guide's recipe failed on a noexec mount"; }
	[ -f r3/opt/cudnn/current/lib/libcudnn.so.9 ] || fail "nothing installed from the noexec mount"
	umount nx
else
	echo "SKIP noexec mount: cannot mount a tmpfs here (the x-bit case above covers the loader)"
fi
echo "ok"
