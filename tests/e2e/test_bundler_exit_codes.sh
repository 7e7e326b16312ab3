#!/bin/sh
# The bundler's exit codes (DESIGN §9, issue 9): a full disk is "no space" (4) with its cause,
# any other I/O or permission error is 5, a source that is not there or not readable is 9;
# none of them reads as a usage error (1); a bundle that fails the bundler's own read-back is 3,
# a compression failure 5 (both through the test-seam bundler). Each case leaves nothing
# half-written behind, nor an empty -o directory the failed run made.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
K=$FX/test.key
SRC=$FX/small-src

# mount_small DIR SIZE [OPTIONS]: a tmpfs of SIZE at DIR (root only); false where none can be
# mounted, and the case is skipped.
mount_small() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2${3:+,$3}" cuferry-test "$1" 2>/dev/null || return 1
	CLEANUP="umount '$1' 2>/dev/null; $CLEANUP"
}

# Nothing but what was there before: no work directory, temporary, payload or part.
no_leftovers() {
	left=$(find "$1" \( -name '.cuferry-work-*' -o -name '*.tmp-*' -o -name '*.payload-*' \
		-o -name '*.[0-9][0-9][0-9]' \) 2>/dev/null | head -1)
	[ -z "$left" ] || fail "left behind: $left"
}

note "usage errors stay 1"
expect 1 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" --no-such-option
expect 1 "$BUNDLER" create --key "$K" -o x/

note "the product: an unknown name is 1 listing the known ones; --cudnn names cuDNN's version only"
expect 1 "$BUNDLER" create --product bogus --from-dir "$SRC" --key "$K" -o x/
assert_contains last.err "unknown product 'bogus' (products: cudnn nccl cusparselt)"
expect 1 "$BUNDLER" resolve --product bogus --product-version 1.0
assert_contains last.err "unknown product 'bogus'"
expect 1 "$BUNDLER" create --product nccl --cudnn 9.19 --key "$K" -o x/
assert_contains last.err "give --product-version VER"
expect 1 "$BUNDLER" kit --product nccl --cudnn 9.19 --key "$K" -o x/
expect 1 "$BUNDLER" create --product nccl --with-cuda-libs --from-dir "$SRC" --key "$K" -o x/
assert_contains last.err "NCCL opens no CUDA library"
# NCCL has no Windows build: refused before any download, as a platform the mirror lacks.
expect 9 "$BUNDLER" create --product nccl --product-version 2.28.9 --platform windows-x86_64 \
	--offline --key "$K" -o x/
one_line_reason
assert_contains last.err "NCCL has no Windows build"
expect 9 "$BUNDLER" resolve --product nccl --product-version 2.28.9 --platform windows-x86_64 --offline
[ ! -e x ] || fail "a refused create left x/"

note "issue 24, review item 2: created (SOURCE_DATE_EPOCH) over a day ahead is refused (1) unless --allow-future"
future=$(( $(date +%s) + 3 * 86400 ))
SOURCE_DATE_EPOCH=$future expect 1 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" --level 3 -q -o fut/
one_line_reason
assert_contains last.err "SOURCE_DATE_EPOCH=$future"
[ ! -e fut ] || [ -z "$(ls -A fut)" ] || fail "a refused future bundle left $(ls fut)"
SOURCE_DATE_EPOCH=$future expect 0 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" --level 3 -q -o fut/ --allow-future
SOURCE_DATE_EPOCH=$(( $(date +%s) + 3600 )) expect 0 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" --level 3 -q -o soon/
# an explicit --counter is the operator's choice: not checked against the clock
expect 0 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" --level 3 -q -o cnt/ --counter 99999999999
rm -rf fut soon cnt

note "a source named on the command line that is not there is a usage error (checked first)"
expect 1 "$BUNDLER" create --from-dir "$W/nonexistent" --cuda 13 --key "$K" -o out/ --level 1 -q
assert_contains last.err "nonexistent"
[ ! -e out ] || fail "a failed create left its -o directory out/"

note "a source without cuDNN in it, a source file that cannot be read: 9"
mkdir -p empty
expect 9 "$BUNDLER" create --from-dir "$W/empty" --cuda 13 --key "$K" -o out/ --level 1 -q
one_line_reason
no_leftovers out
[ ! -e out ] || fail "a failed create left the -o directory it made: $(ls -A out)"
echo plain > afile
cp -r "$SRC" unreadable
chmod 0000 unreadable/lib/libcudnn.so.9
if ! cat unreadable/lib/libcudnn.so.9 >/dev/null 2>&1; then
	expect 9 "$BUNDLER" create --from-dir "$W/unreadable" --cuda 13 --key "$K" -o out/ --level 1 -q
	assert_contains last.err "libcudnn.so.9"
	one_line_reason
	no_leftovers out
elif command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	# root reads any file: run the bundler as nobody, writing into a directory of its own
	mkdir -p nobody-out && chown 65534:65534 nobody-out
	cp "$K" nobody.key && chown 65534:65534 nobody.key
	expect 9 setpriv --reuid=65534 --regid=65534 --clear-groups "$BUNDLER" create \
		--from-dir "$W/unreadable" --cuda 13 --key "$W/nobody.key" -o "$W/nobody-out/" \
		--cache "$W/nobody-out/cache" --level 1 -q
	assert_contains last.err "libcudnn.so.9"
	one_line_reason
	no_leftovers nobody-out
else
	echo "(skipped: cannot make a file unreadable here)"
fi

note "a key that exists is never overwritten: a usage error"
expect 0 "$BUNDLER" keygen site
expect 1 "$BUNDLER" keygen site
assert_contains last.err "already exists, not overwritten"

note "a full output file system: 4, with its cause"
if mount_small "$W/full" 256k; then
	expect 4 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" -o "$W/full/" --level 1 -q
	assert_contains last.err "No space left on device"
	one_line_reason
	no_leftovers "$W/full"
	[ -z "$(ls -A "$W/full")" ] || fail "a full -o keeps files: $(ls -A "$W/full")"
else
	echo "(skipped: cannot mount a tmpfs here)"
fi

note "split onto a file system without room for the parts: 4, the bundle stays"
size=$(stat -c %s "$FX/small.bundle")
if mount_small "$W/split" "$((size + 128 * 1024))"; then
	cp "$FX/small.bundle" split/s.bundle
	before=$(sha256sum < split/s.bundle)
	expect 4 "$BUNDLER" split "$W/split/s.bundle" --split 1M
	assert_contains last.err "No space left on device"
	one_line_reason
	[ "$(sha256sum < split/s.bundle)" = "$before" ] || fail "split changed the bundle"
	no_leftovers "$W/split"
else
	echo "(skipped: cannot mount a tmpfs here)"
fi

note "a directory where a file is expected, a file where a directory is expected: 5"
mkdir -p sums/SHA256SUMS
expect 5 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" -o sums/ --level 1 -q
assert_contains last.err "SHA256SUMS"
one_line_reason
no_leftovers sums
expect 5 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" -o afile/x.bundle --level 1 -q
assert_contains last.err "afile"
one_line_reason
[ "$(cat afile)" = plain ] || fail "the file in the way was changed"

note "a read-only directory: signing a bundle in it is 5, the bundle stays"
mkdir -p ro
cp "$FX/small.bundle" ro/s.bundle
before=$(sha256sum < ro/s.bundle)
if mount --bind ro ro 2>/dev/null && mount -o remount,ro,bind ro 2>/dev/null; then
	CLEANUP="umount '$W/ro' 2>/dev/null; $CLEANUP"
else
	chmod 0555 ro
fi
if ! touch ro/probe 2>/dev/null; then
	expect 5 "$BUNDLER" sign ro/s.bundle --key "$FX/other.key"
	assert_contains last.err "ro/s.bundle"
	one_line_reason
	[ "$(sha256sum < ro/s.bundle)" = "$before" ] || fail "a failed sign changed the bundle"
	expect 5 "$BUNDLER" split ro/s.bundle --split 1M
	one_line_reason
	expect 5 "$BUNDLER" keygen ro/site
	one_line_reason
	[ ! -e ro/site.key ] && [ ! -e ro/site.pub ] || fail "a failed keygen left a key"
else
	echo "(skipped: no read-only location available)"
fi
note "a failed create takes back the -o directories it made, and only those"
expect 9 "$BUNDLER" create --from-dir "$W/empty" --cuda 13 --key "$K" -o new/deeper/ --level 1 -q
[ ! -e new ] || fail "a failed create left directories it made: $(find new)"
mkdir -p existing/kept
echo mine > existing/kept/file
expect 9 "$BUNDLER" create --from-dir "$W/empty" --cuda 13 --key "$K" -o existing/made/ --level 1 -q
[ ! -e existing/made ] || fail "a failed create left existing/made/"
[ -d existing/kept ] && [ "$(cat existing/kept/file)" = mine ] || fail "a failed create touched existing/"
mkdir -p was-empty
expect 9 "$BUNDLER" create --from-dir "$W/empty" --cuda 13 --key "$K" -o was-empty/ --level 1 -q
[ -d was-empty ] || fail "a failed create removed a directory that existed before"

note "the self-check reads back other bytes than were written: 3, naming the bundle, nothing kept"
[ -x "$B/bundler-test-seams" ] || fail "the test-seam bundler is not built"
SEAMS=$B/bundler-test-seams
ID=cudnn-9.19.0-cuda13-linux-x86_64
# a payload byte (near the end): the chunk with its offset; a header byte: the signature
CUFERRY_BUNDLE_FLIP=-100 expect 3 "$SEAMS" create --from-dir "$SRC" --cuda 13 --key "$K" -o flip/ --level 1 -q
assert_contains last.err "flipped the byte"
assert_contains last.err "flip/$ID.bundle: the new bundle failed its own check, nothing written: payload chunk .*offset [0-9]"
one_line_reason
[ ! -e flip ] || fail "a bundle that failed its own check left: $(find flip)"
mkdir -p flip2
echo "0000000000000000000000000000000000000000000000000000000000000000  other.bundle" > flip2/SHA256SUMS
sums_before=$(cat flip2/SHA256SUMS)
CUFERRY_BUNDLE_FLIP=100 expect 3 "$SEAMS" create --from-dir "$SRC" --cuda 13 --key "$K" -o flip2/ --level 1 -q
assert_contains last.err "flip2/$ID.bundle: the new bundle failed its own check"
one_line_reason
[ ! -e "flip2/$ID.bundle" ] || fail "a bundle that failed its own check is under its final name"
[ "$(cat flip2/SHA256SUMS)" = "$sums_before" ] || fail "SHA256SUMS changed: $(cat flip2/SHA256SUMS)"
no_leftovers flip2
[ "$(ls -A flip2)" = SHA256SUMS ] || fail "left in flip2: $(ls -A flip2)"
# The release bundler has no seam: the same variable changes nothing.
CUFERRY_BUNDLE_FLIP=100 expect 0 "$BUNDLER" create --from-dir "$SRC" --cuda 13 --key "$K" -o flip3/ --level 1 -q
[ -f "flip3/$ID.bundle" ] || fail "the release bundler did not write the bundle"

note "zstd fails while compressing: 5, one line, nothing half-written"
CUFERRY_ZSTD_FAIL=100000 expect 5 "$SEAMS" create --from-dir "$SRC" --cuda 13 --key "$K" -o zfail/ --level 1 -q
assert_contains last.err "zstd: "
one_line_reason
[ ! -e zfail ] || fail "a failed compression left: $(find zfail)"
mkdir -p zfail2
CUFERRY_ZSTD_FAIL=0 expect 5 "$SEAMS" create --from-dir "$SRC" --cuda 13 --key "$K" -o zfail2/ --level 1 -q
one_line_reason
no_leftovers zfail2
[ -z "$(ls -A zfail2)" ] || fail "a failed compression left: $(ls -A zfail2)"
echo "PASS $NAME"
