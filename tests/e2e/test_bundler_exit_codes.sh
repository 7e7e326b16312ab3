#!/bin/sh
# The bundler's exit codes (DESIGN §9, issue 9): a full disk is "no space" (4) with its cause,
# any other I/O or permission error is 5, a source that is not there or not readable is 9;
# none of them reads as a usage error (1). Each case leaves nothing half-written behind.
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

note "a source named on the command line that is not there is a usage error (checked first)"
expect 1 "$BUNDLER" create --from-dir "$W/nonexistent" --cuda 13 --key "$K" -o out/ --level 1 -q
assert_contains last.err "nonexistent"

note "a source without cuDNN in it, a source file that cannot be read: 9"
mkdir -p empty
expect 9 "$BUNDLER" create --from-dir "$W/empty" --cuda 13 --key "$K" -o out/ --level 1 -q
one_line_reason
no_leftovers out
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
echo "PASS $NAME"
