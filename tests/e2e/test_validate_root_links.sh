#!/bin/sh
# Validation step 3 under --root reads the image's loader configuration as files and must
# resolve links the way the image's loader would: a link's absolute target is inside the
# image, never the host's (rootpath.h). Two ways it can go wrong if the host's are followed:
# a copy that shadows the install through an absolute link goes unseen (a false pass), and
# the install reached through an absolute link is not found (a false failure). Real cuDNN
# files (the small bundle); no host path the links name exists.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
R=$W/image
mkdir -p "$R" && R=$(cd "$R" && pwd -P) # as the report names it
ALT=/cuferry-test-alt-$$ # inside the image only
[ ! -e "$ALT" ] || fail "$ALT exists on the host"

note "the small bundle installed into an image (no system library directories: step 4 skipped)"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" --prefix /opt/cudnn $T
assert_contains last.out "3    resolution    pass"
mine=$(readlink -f "$R/opt/cudnn/current/lib/libcudnn.so.9")

note "a copy listed first, through an absolute link inside the image, shadows the install: exit 6, named"
mkdir -p "$R/shadow/lib" "$R$ALT"
cp "$FX/small-src/lib/libcudnn.so.9" "$R$ALT/libcudnn.so.9"
ln -s "$ALT/libcudnn.so.9" "$R/shadow/lib/libcudnn.so.9"
printf '/shadow/lib\ninclude /etc/ld.so.conf.d/*.conf\n' > "$R/etc/ld.so.conf"
expect 6 "$UNPACKER" validate --root "$R" $T
assert_contains last.out "3    resolution    fail"
assert_contains last.out "gets $R$ALT/libcudnn.so.9, not the install"
expect 6 "$UNPACKER" validate --root image $T # relative, from the image's parent directory
assert_contains last.out "gets $R$ALT/libcudnn.so.9, not the install"

note "the same copy by a relative link: the same verdict (the rule is the link's, not the spelling's)"
rm "$R/shadow/lib/libcudnn.so.9"
ln -s "../..$ALT/libcudnn.so.9" "$R/shadow/lib/libcudnn.so.9"
expect 6 "$UNPACKER" validate --root "$R" $T
assert_contains last.out "gets $R$ALT/libcudnn.so.9, not the install"

note "the install itself reached only through an absolute link inside the image: found, pass"
rm -r "$R/shadow" "$R$ALT"
mkdir -p "$R/links"
ln -s /opt/cudnn/current/lib "$R/links/cudnn"
printf '/links/cudnn\n' > "$R/etc/ld.so.conf" # ld.so.conf.d not included: only the link
expect 0 "$UNPACKER" validate --root "$R" $T
assert_contains last.out "3    resolution    pass"
assert_contains last.out "gets the install ($mine)"

note "a link in the image that leads nowhere inside it: no libcudnn on the search path, exit 6"
rm "$R/links/cudnn"
ln -s "$ALT/lib" "$R/links/cudnn"
expect 6 "$UNPACKER" validate --root "$R" $T
assert_contains last.out "3    resolution    fail   no libcudnn on the image's search path"
echo "ok"
