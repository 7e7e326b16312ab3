#!/bin/sh
# tools/deps.sh fails closed on its sources: a source file that does not match its .dsc, a
# .dsc without its signature, or one that differs from the pinned SHA-256 stops the build
# before anything is compiled, and leaves no cache entry behind. Works on a copy of the
# sources make already fetched, with an unreachable mirror: nothing is downloaded.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
real=$(dirname "$(sh "$TOP/tools/deps.sh" --dir linux-x86_64)")/src
[ -f "$real/libzstd_1.5.4+dfsg2-5.dsc" ] || fail "no fetched sources in $real (make runs deps.sh)"
export CUFERRY_DEBIAN_MIRROR=http://127.0.0.1:9/debian   # the discard port: nothing answers
fresh_cache() {
	rm -rf cache && mkdir -p cache/src
	cp "$real"/libzstd_* cache/src/
	export CUFERRY_DEPS_CACHE=$W/cache
}
no_entry() { ! ls cache | grep -q "^linux-x86_64-" || fail "a cache entry was left: $(ls cache)"; }

note "control: the untouched sources pass the checks (the build then goes on; stopped here)"
fresh_cache
out=$(sh "$TOP/tools/deps.sh" --dir linux-x86_64)
case $out in "$W/cache/linux-x86_64-"*) ;; *) fail "--dir ignores CUFERRY_DEPS_CACHE: $out" ;; esac
dscverify --no-conf cache/src/libzstd_1.5.4+dfsg2-5.dsc >/dev/null 2>&1 || fail "dscverify rejects the real source"

note "a source tarball changed after the .dsc was signed: dscverify stops the build"
fresh_cache
printf 'x' >> cache/src/libzstd_1.5.4+dfsg2.orig.tar.xz
expect 1 sh "$TOP/tools/deps.sh" linux-x86_64
assert_contains last.err "libzstd 1.5.4+dfsg2-5: dscverify failed"
no_entry

note "the .dsc without its signature: not the pinned file, and the mirror cannot replace it"
fresh_cache
sed -n '/^Format:/,/^$/p' "$real/libzstd_1.5.4+dfsg2-5.dsc" > cache/src/libzstd_1.5.4+dfsg2-5.dsc
expect 1 sh "$TOP/tools/deps.sh" linux-x86_64
assert_contains last.err "deps.sh:"
no_entry
cmp -s cache/src/libzstd_1.5.4+dfsg2-5.dsc "$real/libzstd_1.5.4+dfsg2-5.dsc" && fail "the unsigned .dsc was replaced from nowhere"

note "a re-signed or edited .dsc with the right files: the pinned SHA-256 rejects it"
fresh_cache
sed 's/^Maintainer: .*/Maintainer: Someone Else <x@example.org>/' "$real/libzstd_1.5.4+dfsg2-5.dsc" > d.tmp
mv d.tmp cache/src/libzstd_1.5.4+dfsg2-5.dsc
expect 1 sh "$TOP/tools/deps.sh" linux-x86_64
no_entry
echo "ok"
