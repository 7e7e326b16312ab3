#!/bin/sh
# Keys compiled into the unpacker (make TRUSTED_KEYS=...), and the environment modes:
# --no-env writes none, --env=user writes the user's snippet and nothing under /etc.
. "$CUFERRY_TOP/tests/e2e/lib.sh"

note "make TRUSTED_KEYS=a.pub,b.pub: those keys are trusted without --trust"
(cd "$TOP" && make -s B="$W/kb" TRUSTED_KEYS="$FX/other.pub,$FX/test.pub" "$W/kb/unpacker" >/dev/null)
K=$W/kb/unpacker
expect 0 "$K" verify "$FX/small.bundle"
assert_contains last.out "signed by"
note "a bundle by a key that was not compiled in is still refused"
"$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 --key "$FX/third.key" -o third.bundle --level 1 -q >/dev/null
expect 2 "$K" verify third.bundle
note "make TRUSTED_THRESHOLD=2: one compiled-in signer is not enough, two are"
(cd "$TOP" && make -s B="$W/kb" TRUSTED_KEYS="$FX/other.pub,$FX/test.pub" TRUSTED_THRESHOLD=2 "$W/kb/unpacker" >/dev/null)
expect 2 "$K" verify "$FX/small.bundle"
assert_contains last.err "1 distinct trusted signatures, 2 required"
cp "$FX/small.bundle" two.bundle
"$BUNDLER" sign two.bundle --key "$FX/other.key" >/dev/null
expect 0 "$K" verify two.bundle
note "issue 24: compiled-in keys are the build's configuration: a later make without TRUSTED_KEYS keeps them"
fp() { openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -c1-64; }
(cd "$TOP" && make -s B="$W/kb" TRUSTED_KEYS="$FX/test.pub" TRUSTED_THRESHOLD=1 "$W/kb/unpacker" >/dev/null)
# a plain make, and one from a sub-make as make demo runs it, with neither in the environment
(cd "$TOP" && env -u TRUSTED_KEYS -u TRUSTED_THRESHOLD make -s B="$W/kb" "$W/kb/unpacker" >/dev/null)
(cd "$TOP" && env -u TRUSTED_KEYS -u TRUSTED_THRESHOLD sh -c "make -s B='$W/kb' '$W/kb/unpacker'" >/dev/null)
expect 0 "$K" verify "$FX/small.bundle"
(cd "$TOP" && env -u TRUSTED_KEYS make -s B="$W/kb" trusted-keys) > keys.out
assert_contains keys.out "$(fp "$FX/test.pub")"
! grep -q "$(fp "$FX/other.pub")" keys.out || fail "a key no longer given is still trusted"
[ -f "$W/kb/trusted-keys/key-01.pub" ] && cmp -s "$W/kb/trusted-keys/key-01.pub" "$FX/test.pub" ||
	fail "the key bytes are not kept in the build directory"
note "TRUSTED_KEYS= (empty) removes them, and make says so"
(cd "$TOP" && make -s B="$W/kb" TRUSTED_KEYS= "$W/kb/unpacker") > keys.out
assert_contains keys.out "removed the 1 compiled-in key"
expect 2 "$K" verify "$FX/small.bundle"
(cd "$TOP" && make -s B="$W/kb" trusted-keys) > keys.out
assert_contains keys.out "none compiled in"
note "make TRUSTED_STATEMENT_THRESHOLD=2: compiled in beside the keys, kept by a later plain make"
(cd "$TOP" && make -s B="$W/kb" TRUSTED_KEYS="$FX/other.pub,$FX/test.pub" TRUSTED_STATEMENT_THRESHOLD=2 \
	"$W/kb/unpacker") > keys.out
assert_contains keys.out "TRUSTED_STATEMENT_THRESHOLD: 2, kept for later builds"
(cd "$TOP" && env -u TRUSTED_KEYS -u TRUSTED_THRESHOLD -u TRUSTED_STATEMENT_THRESHOLD \
	make -s B="$W/kb" "$W/kb/unpacker" >/dev/null)
(cd "$TOP" && env -u TRUSTED_STATEMENT_THRESHOLD make -s B="$W/kb" trusted-keys) > keys.out
assert_contains keys.out "statement threshold 2;"
S=$W/sroot; mkdir -p "$S"; STD=$S/etc/cuferry/trusted-keys
expect 0 "$K" trust list --root "$S"
assert_contains last.out "statement threshold 2 (compiled in)"
note "the trust directory may raise it, never lower it"
expect 1 "$K" trust statement-threshold 1 --root "$S"
one_line_reason
assert_contains last.err "built with statement threshold 2"
[ ! -e "$STD/statement-threshold" ] || fail "a statement threshold below the compiled-in one was written"
expect 0 "$K" trust add "$FX/third.pub" --root "$S"
expect 0 "$K" trust statement-threshold 3 --root "$S"
expect 0 "$K" trust list --root "$S"
assert_contains last.out "statement threshold 3 (configured)"
note "a file written lower by hand does not lower it: one key cannot add a friend"
echo 1 > "$STD/statement-threshold"
chmod 644 "$STD/statement-threshold"
"$BUNDLER" keygen friend >/dev/null
expect 0 "$BUNDLER" trust-statement --add friend.pub --counter 11 --key "$FX/test.key" -o friend.st
expect 2 "$K" trust apply friend.st --root "$S"
assert_contains last.err "need 2"
[ ! -e "$STD/statement-counter" ] || fail "a statement signed by too few keys was applied"
note "TRUSTED_STATEMENT_THRESHOLD= (empty) goes back to the default rule, and make says so"
(cd "$TOP" && make -s B="$W/kb" TRUSTED_STATEMENT_THRESHOLD= "$W/kb/unpacker") > keys.out
assert_contains keys.out "compiled-in statement threshold removed"
rm "$STD/statement-threshold"
expect 0 "$K" trust list --root "$S"
assert_contains last.out "statement threshold 3 (default"
expect 0 "$K" trust statement-threshold 1 --root "$S"
if (cd "$TOP" && make -s B="$W/kb3" TRUSTED_STATEMENT_THRESHOLD=9 "$W/kb3/trusted_keys.c" >/dev/null 2>&1); then
	fail "a statement threshold out of range was compiled in"
fi
if (cd "$TOP" && make -s B="$W/kb3" TRUSTED_THRESHOLD=two "$W/kb3/trusted_keys.c" >/dev/null 2>&1); then
	fail "a threshold that is not a number was compiled in"
fi
note "an unreadable key list fails the build, not a user"
if (cd "$TOP" && make -s B="$W/kb2" TRUSTED_KEYS="$W/missing.pub" "$W/kb2/unpacker" >/dev/null 2>&1); then
	fail "a missing key file was compiled in"
fi

note "--no-env: no environment files"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$W/ne" --trust "$FX/test.pub" --no-env
[ ! -e "$W/ne/etc/ld.so.conf.d/00-cuferry-cudnn.conf" ] || fail "--no-env wrote ld.so.conf.d"
[ ! -e "$W/ne/etc/profile.d/cuferry-cudnn.sh" ] || fail "--no-env wrote profile.d"

note "--env=user: the user's snippet, nothing under /etc"
mkdir home
HOME=$W/home expect 0 "$UNPACKER" "$FX/small.bundle" --root "$W/ue" --trust "$FX/test.pub" --env=user
assert_contains "$W/home/.config/cuferry/cudnn.sh" 'LD_LIBRARY_PATH="$CUDNN_PATH/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"'
[ ! -e "$W/ue/etc/ld.so.conf.d/00-cuferry-cudnn.conf" ] || fail "--env=user wrote ld.so.conf.d"
out=$(env -i sh -c ". '$W/home/.config/cuferry/cudnn.sh'; printf %s \"\$LD_LIBRARY_PATH\"")
[ "$out" = /opt/cudnn/current/lib ] || fail "user snippet with LD_LIBRARY_PATH unset gave '$out'"
