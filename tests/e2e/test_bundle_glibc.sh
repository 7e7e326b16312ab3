#!/bin/sh
# The libraries' own glibc floor (issue 25, item 11): the bundler records in the manifest the
# newest GLIBC_ symbol version the bundle's ELF libraries need (requires.glibc_min, read from
# .gnu.version_r), inspect shows it, and the unpacker refuses an older C library with exit 4
# before anything is staged; the chooser passes such a bundle over and says why; a bundle
# without the field (older bundlers, or no ELF in it) installs as before.
# No distribution with a glibc older than 2.27 is reachable here: the old system is a
# synthetic --root whose libc.so.6 defines symbol versions only up to GLIBC_2.26 (cuDNN
# 9.19's libcudnn_cnn.so.9 needs GLIBC_2.27; libcudnn.so.9 alone needs only 2.2.5).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
CUDA=$(cat "$FX/cuda_dir")
L=$(dirname "$(ls "$CUDA"/lib*/libcudnn.so.9 | head -1)") # lib64 is often a link to lib
T="--trust $FX/test.pub"

# fake_libc ROOT NEWEST: ROOT/lib/x86_64-linux-gnu/libc.so.6 defining GLIBC_2.2.5 .. NEWEST
fake_libc() {
	mkdir -p "$1/lib/x86_64-linux-gnu"
	{ echo 'GLIBC_2.2.5 { global: gnu_get_libc_version; local: *; };'; prev=2.2.5
	  for v in 2.3 2.4 2.17 2.25 2.26 2.27; do
		echo "GLIBC_$v { } GLIBC_$prev;"; prev=$v
		[ "$v" = "$2" ] && break
	  done; } > "$1.map"
	printf 'const char *gnu_get_libc_version(void) { return "%s"; }\n' "$2" > "$1.c"
	cc -shared -nostdlib -fPIC -Wl,--version-script="$1.map" -Wl,-soname,libc.so.6 \
		-o "$1/lib/x86_64-linux-gnu/libc.so.6" "$1.c" || fail "cannot build the fake libc $2"
}
fake_libc old 2.26
fake_libc new 2.27
readelf -V old/lib/x86_64-linux-gnu/libc.so.6 | grep -q GLIBC_2.26 || fail "the fake libc defines no GLIBC_2.26"
! readelf -V old/lib/x86_64-linux-gnu/libc.so.6 | grep -q GLIBC_2.27 || fail "the old fake libc defines GLIBC_2.27"

note "the bundler reads the floor from the libraries: libcudnn_cnn.so.9 needs GLIBC_2.27"
mkdir -p cnn/include cnn/lib loader/include loader/lib
for t in cnn loader; do cp "$CUDA"/include/cudnn*.h $t/include/; cp "$L/libcudnn.so.9" $t/lib/; done
cp "$L/libcudnn_cnn.so.9" cnn/lib/
want=$(readelf -V "$L/libcudnn_cnn.so.9" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
[ "$want" = 2.27 ] || fail "this cuDNN's libcudnn_cnn.so.9 needs GLIBC_$want, the test expects 2.27"
for t in cnn loader; do
	expect 0 "$BUNDLER" create --from-dir $t --cuda 13 --key "$FX/test.key" -o $t.bundle --level 1 -q
done
expect 0 "$BUNDLER" inspect cnn.bundle
assert_contains last.out "requires    glibc >= 2.27"
expect 0 "$BUNDLER" inspect loader.bundle
assert_contains last.out "requires    glibc >= 2.2.5"
"$BUNDLER" inspect cnn.bundle --export exp >/dev/null
grep -q '"glibc_min": "2.27"' exp/header.json || fail "no requires.glibc_min in the manifest: $(grep -A4 requires exp/header.json)"

note "install on an older C library: exit 4 and the reason, before anything is staged"
expect 4 "$UNPACKER" install cnn.bundle --root "$W/old" $T --no-validate
one_line_reason
assert_contains last.err "needs glibc 2.27"
assert_contains last.err "libc.so.6 offers 2.26"
[ -z "$(find old -path '*cudnn*' -print -quit)" ] || fail "something was written: $(find old -path '*cudnn*')"
[ ! -e old/var/lib/cuferry ] || fail "state was written for a refused bundle"
note "the same bundle on 2.27, and the loader-only bundle (2.2.5) on 2.26: installed"
expect 0 "$UNPACKER" install cnn.bundle --root "$W/new" $T --no-validate
expect 0 "$UNPACKER" install loader.bundle --root "$W/old" $T --no-validate

note "a bundle without the field (older bundlers) still installs on the old system"
mkdir -p nofield/include nofield/lib
cp "$CUDA"/include/cudnn*.h nofield/include/
head -c 4096 /dev/urandom > nofield/lib/libcudnn.so.9 # no ELF: nothing to read a floor from
expect 0 "$BUNDLER" create --from-dir nofield --cuda 13 --platform linux-x86_64 --key "$FX/test.key" -o nofield.bundle --level 1 -q
"$BUNDLER" inspect nofield.bundle --export exp2 >/dev/null
! grep -q glibc_min exp2/header.json || fail "a floor recorded with no ELF file"
expect 0 "$UNPACKER" install nofield.bundle --root "$W/old2" $T --no-validate
rm -rf old2

note "the chooser passes the 2.27 bundle over on 2.26 and says why"
mkdir -p kit
cp cnn.bundle nofield.bundle kit/
fake_libc chooser 2.26
expect 0 "$UNPACKER" install kit --root "$W/chooser" $T --no-validate --dry-run
assert_contains last.out "cnn.bundle: cuDNN 9.19.0 needs glibc 2.27"
assert_contains last.out "chose nofield.bundle"
echo "ok"
