#!/bin/sh
# Everyday bundler use (issue 13): absolute and relative -o for archive and mirror sources,
# output on another file system, one create for bundle + parts + .run, bundler split, merged
# SHA256SUMS, --split fat32, distinct -cudalibs names, keygen --help, help and --version,
# inspect of a truncated bundle, inputs checked before any work, a failed file:// fetch.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
py "$TOP/tests/tools/make_mirror.py" "$(cat "$FX/cuda_dir")" mirror >/dev/null
A=$W/mirror/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
NAME=cudnn-9.19.0.56-cuda13-linux-x86_64
K=$FX/test.key

note "-o absolute and relative, archive and mirror sources, from another directory"
mkdir -p elsewhere
(cd elsewhere && expect 0 "$BUNDLER" create --from-archive "$A" --key "$K" -o "$W/abs/" --level 1 -q)
[ -f "abs/$NAME.bundle" ] || fail "no bundle under an absolute -o DIR/"
(cd elsewhere && expect 0 "$BUNDLER" create --from-archive ../mirror/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz \
	--key "$K" -o ../rel/x.bundle --level 1 -q)
[ -f rel/x.bundle ] || fail "no bundle under a relative -o"
expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "file://$W/mirror" --cache "$W/cache" \
	--key "$K" -o "$W/absm/m.bundle" --level 1 -q
expect 0 "$BUNDLER" inspect "$W/absm/m.bundle"
# Another file system than the sources and the cache: tmpfs when there is one.
OTHER=""
if [ -d /dev/shm ] && [ -w /dev/shm ]; then OTHER=$(mktemp -d /dev/shm/cuferry-e2e-XXXXXX); fi
[ -n "$OTHER" ] || OTHER=$(mktemp -d /tmp/cuferry-e2e-XXXXXX)
CLEANUP="$CLEANUP rm -rf '$OTHER';"
expect 0 "$BUNDLER" create --from-archive "$A" --key "$K" -o "$OTHER/t/" --level 1 -q
expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "file://$W/mirror" --cache "$W/cache" \
	--key "$K" -o "$OTHER/m/" --level 1 -q
(cd "$OTHER/t" && sha256sum -c SHA256SUMS >/dev/null) || fail "SHA256SUMS on the other file system"
[ -z "$(find "$OTHER" -name '.cuferry-work-*')" ] || fail "work directory left behind"

note "one create writes the bundle, its parts and its .run from the same signed bundle"
expect 0 "$BUNDLER" create --from-archive "$A" --key "$K" -o all/ \
	--level 1 --split 1M --sfx --unpacker "$UNPACKER" -q
b=all/$NAME.bundle
[ -f "$b" ] && [ -f "$b.001" ] && [ -f "$b.002" ] && [ -x "all/$NAME.run" ] || fail "missing artifacts: $(ls all)"
cat "$b".0* | cmp - "$b" || fail "the parts are not the bundle"
assert_contains last.err "no compiled-in key that signed"
for f in "$b" "$b.001" "all/$NAME.run"; do
	expect 0 "$BUNDLER" inspect "$f"
	grep -E '^(format|signer)' last.out >> counters
done
[ "$(sort -u counters | wc -l)" -eq 2 ] || fail "artifacts of one run carry different counters: $(cat counters)"
T="--trust $FX/test.pub"
expect 0 "$UNPACKER" verify "$b.001" $T
expect 0 "$UNPACKER" verify "all/$NAME.run" $T

note "SHA256SUMS is merged: a second bundle in the same directory keeps the first's entry"
expect 0 "$BUNDLER" create --from-archive "$A" --key "$K" -o all/second.bundle --level 1 -q
grep -q " $NAME.bundle\$" all/SHA256SUMS || fail "the first bundle's entry was dropped"
grep -q " second.bundle\$" all/SHA256SUMS || fail "no entry for the second bundle"
[ "$(grep -c " $NAME.bundle\$" all/SHA256SUMS)" -eq 1 ] || fail "duplicate entries"
(cd all && sha256sum -c SHA256SUMS >/dev/null) || fail "sha256sum -c of the merged file"

note "bundler split cuts a bundle signed earlier; a shorter split removes stale parts"
cp "$FX/small.bundle" s.bundle
expect 0 "$BUNDLER" split s.bundle --split 1M
[ -f s.bundle.002 ] && [ -f s.bundle ] || fail "no parts"
cat s.bundle.0* | cmp - s.bundle || fail "split parts differ from the bundle"
note "inspect of a middle part says which part to give, as unpacker verify does"
expect 1 "$BUNDLER" inspect s.bundle.002
assert_contains last.err "s.bundle.002 is part 2 of a split bundle"
assert_contains last.err "give s.bundle.001"
! grep -q "not a cuferry bundle" last.err || fail "a middle part called not a bundle"
note "inspect --export DIR/ prints a check command with single slashes, against the site's own key"
expect 0 "$BUNDLER" inspect s.bundle --export exp/
assert_contains last.out "-verify site.pub -signature exp/signature-1.der exp/header.json"
# the exported signer-1.pub came out of the bundle: a check against it proves nothing
! grep -q -- '-verify exp/signer-1.pub' last.out || fail "tells to check with the bundle's own key"
! grep -q 'exp//' last.out || fail "double slash: $(cat last.out)"
expect 0 "$UNPACKER" verify s.bundle.001 $T
expect 0 "$BUNDLER" split s.bundle --split fat32
[ -f s.bundle.001 ] && [ ! -f s.bundle.002 ] || fail "stale part .002 kept"
(sha256sum -c SHA256SUMS >/dev/null) || fail "SHA256SUMS after split"
! grep -q 's.bundle.002' SHA256SUMS || fail "SHA256SUMS names a removed part"
expect 1 "$BUNDLER" split s.bundle
assert_contains last.err "--split SIZE"
head -c 300000 "$FX/small.bundle" > cut.bundle
expect 3 "$BUNDLER" split cut.bundle --split 1M
[ ! -f cut.bundle.001 ] || fail "a truncated bundle was split"

note "--split fat32 is 4 GiB - 1; more than that warns"
expect 0 "$BUNDLER" create --from-archive "$A" --key "$K" -o big.bundle --level 1 --split 5G -q
assert_contains last.err "FAT32"
expect 0 "$BUNDLER" create --from-archive "$A" --key "$K" -o f32.bundle --level 1 --split fat32
assert_contains last.out "4294967295"
[ -f f32.bundle.001 ] || fail "no part with --split fat32"

note "--with-cuda-libs gets its own id and file name"
expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "file://$W/mirror" --cache "$W/cache" \
	--key "$K" -o libs/ --with-cuda-libs --level 1 -q
expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 --mirror "file://$W/mirror" --cache "$W/cache" \
	--key "$K" -o libs/ --level 1 -q
[ -f "libs/cudnn-9.19.0.56-cuda13-cudalibs-linux-x86_64.bundle" ] && [ -f "libs/$NAME.bundle" ] ||
	fail "the two builds share a name: $(ls libs)"
expect 0 "$BUNDLER" inspect "libs/cudnn-9.19.0.56-cuda13-cudalibs-linux-x86_64.bundle"
assert_contains last.out "cudnn-9.19.0.56-cuda13-cudalibs-linux-x86_64"
expect 0 "$BUNDLER" resolve --cudnn 9.19 --cuda 13 --mirror "file://$W/mirror" --with-cuda-libs
assert_contains last.out "cudalibs"

note "keygen --help and -h print help and make no key"
mkdir -p kg && cd kg
expect 0 "$BUNDLER" keygen --help
assert_contains "$W/last.out" "usage: bundler keygen NAME"
expect 0 "$BUNDLER" keygen -h
expect 1 "$BUNDLER" keygen -x
[ -z "$(ls)" ] || fail "keygen made files: $(ls)"
cd "$W"

note "help for every command, help COMMAND, --version"
for c in keygen create resolve inspect sign split help; do
	expect 0 "$BUNDLER" help $c
	assert_contains last.out "usage: bundler $c"
done
for c in create resolve inspect sign split; do
	expect 0 "$BUNDLER" $c --help
	assert_contains last.out "usage: bundler $c"
done
expect 1 "$BUNDLER" help nosuch
assert_contains last.err "unknown command"
# The usage and every command's help fit 80 columns as printed ({products} filled in), as
# the unpacker's do; the commands are the ones the usage lists, so a new one is checked too.
expect 0 "$BUNDLER" --help
! awk 'length > 80 { print; bad = 1 } END { exit !bad }' last.out || fail "bundler --help: a line over 80 columns"
commands=$(sed -n '/^commands:$/,$p' last.out | tail -n +2 | awk '{ print $1 }')
[ "$(echo "$commands" | wc -l)" -ge 11 ] || fail "bundler --help lists only: $commands"
for c in $commands; do
	expect 0 "$BUNDLER" help "$c"
	! awk 'length > 80 { print; bad = 1 } END { exit !bad }' last.out || fail "bundler help $c: a line over 80 columns"
done
expect 0 "$BUNDLER" --version
for w in "bundler " commit "bundle format cuferry-bundle-1" libarchive zstd mbedTLS jansson libcurl; do
	assert_contains last.out "$w"
done
! grep -q "commit *unknown" last.out || fail "no commit in --version"

note "inspect of a truncated or corrupt bundle is exit 3"
expect 3 "$BUNDLER" inspect cut.bundle
cp "$FX/small.bundle" flip.bundle
py -c "
f = open('flip.bundle', 'r+b'); f.seek(200000); b = f.read(1); f.seek(200000); f.write(bytes([b[0] ^ 1]))"
expect 3 "$BUNDLER" inspect flip.bundle

note "inputs are checked before any work"
expect 1 "$BUNDLER" create --from-archive "$A" --key "$K" -o stub/ --sfx --unpacker /nonexistent
assert_contains last.err "/nonexistent"
assert_contains last.err "--unpacker"
one_line_reason
[ -z "$(ls stub 2>/dev/null)" ] || fail "output left: $(ls stub)"
# A read-only file system (a read-only bind mount where this runs as root; else a 0555
# directory, which a non-root user cannot write either).
mkdir -p ro
if mount --bind ro ro 2>/dev/null && mount -o remount,ro,bind ro 2>/dev/null; then
	CLEANUP="$CLEANUP umount '$W/ro' 2>/dev/null;"
else
	chmod 0555 ro
fi
if ! touch ro/probe 2>/dev/null; then
	expect 5 "$BUNDLER" create --from-archive "$A" --key "$K" -o ro/new/ --level 1
	assert_contains last.err "ro/new"
	! grep -q "No such file" last.err || fail "a read-only output says 'No such file'"
	one_line_reason
else
	echo "(skipped: no read-only location available)"
fi
umount ro 2>/dev/null || chmod 0755 ro

note "a failed file:// fetch leaves no empty .part and does not claim to resume"
cp -r mirror broken
rm broken/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
CUFERRY_FETCH_NO_BACKOFF=1 expect 9 "$BUNDLER_SEAMS" create --cudnn 9.19 --cuda 13 --mirror "file://$W/broken" \
	--cache "$W/cache-broken" --key "$K" -o broken-out/ --level 1
! grep -q "resuming" last.err || fail "a failed fetch says it resumes"
[ -z "$(find cache-broken -name '*.part' -size 0)" ] || fail "an empty .part was left"
note "messages say what is wrong and what to do, in one line"
expect 1 "$BUNDLER" create --cudnn 9.19 --key nosuch.key -o k/
assert_contains last.err "nosuch.key: No such file"
assert_contains last.err "bundler keygen"
! grep -q PKCS last.err || fail "a missing key blamed on PKCS#8"
expect 1 "$BUNDLER" create --form-dir x --key "$K" -o k/
[ "$(grep -c -- '--form-dir' last.err)" -eq 1 ] || fail "two lines for one bad option: $(cat last.err)"
expect 4 "$BUNDLER" create --cudnn 8.2.2 --cuda 12 --key "$K" -o k/
assert_contains last.err "11.4"
expect 9 "$BUNDLER" create --cudnn 8.2.2 --cuda 11.4 --key "$K" -o k/ --mirror "file://$W/mirror"
assert_contains last.err "--from-archive"
[ -z "$(ls k 2>/dev/null)" ] || fail "output left: $(ls k)"
note "SIGTERM and SIGHUP during create: exit 5, no temporaries left"
for s in TERM HUP; do
	mkdir -p "sig$s"
	"$BUNDLER" create --from-dir "$(cat "$FX/cuda_dir")" --key "$K" -o "sig$s/" --threads 1 -q \
		>sig.out 2>sig.err &
	pid=$!
	i=0
	until [ -n "$(find "sig$s" -name '*.payload-*' 2>/dev/null)" ]; do
		i=$((i + 1)); [ $i -lt 1200 ] || fail "create did not start compressing"; sleep 0.05
	done
	kill -$s $pid
	set +e; wait $pid; rc=$?; set -e
	[ $rc -eq 5 ] || { cat sig.err; fail "SIG$s: exit $rc, expected 5"; }
	grep -q "interrupted by SIG$s" sig.err || { cat sig.err; fail "SIG$s not named"; }
	[ -z "$(ls -A "sig$s")" ] || fail "SIG$s left: $(ls -A "sig$s")"
done
note "make prints one short line per object (V=1 the full command) and a closing line"
make -s -C "$TOP" B="$W/qbuild" "$W/qbuild/obj/common/err.o" >make.out 2>&1 || { cat make.out; fail "make of one object"; }
grep -qx '  CC     common/err.c' make.out || { cat make.out; fail "no quiet compile line"; }
! grep -q -- '-Wall' make.out || fail "a full compiler line without V=1"
make --no-print-directory -C "$TOP" B="$W/qbuild" V=1 -W common/err.c "$W/qbuild/obj/common/err.o" >make.out 2>&1 || fail "make V=1"
grep -q -- '-Wall.*-c common/err.c' make.out || { cat make.out; fail "V=1 does not print the command"; }
# the release build only: make with the sanitizer build's B but not its SAN=1 would rebuild it
if ! readelf -d "$UNPACKER" | grep -q libasan; then
	make -s -C "$TOP" B="$B" all >make.out 2>&1 || { cat make.out; fail "make all"; }
	tail -1 make.out | grep -q "^built $B/bundler, $B/unpacker and $B/linux-sbsa/unpacker" ||
		{ cat make.out; fail "no closing line naming what make built"; }
fi
echo "ok"
