#!/bin/sh
# Decode in parallel (issue 29): the payload as independent zstd frames indexed in the signed
# manifest, decoded by a pool of workers. Stock zstd | tar still lists it; a bundle without an
# index (one stream, as before) still installs; an interrupt, a corrupt chunk in the middle
# and a failing install leave nothing behind while the workers run; peak RSS of an install
# stays under the documented bound with 1 MiB and with 64 MiB chunks (the format's largest).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
CUDA=$(cat "$FX/cuda_dir")
SRC=$FX/small-src
mk() { # OUT COUNTER [ENV=VALUE...]: the small tree bundled by the seams bundler so
	out=$1 counter=$2; shift 2
	(cd "$FX" && env SOURCE_DATE_EPOCH=1760486400 "$@" "$BUNDLER_SEAMS" create --from-dir small-src \
		--cuda 13 --key test.key -o "$W/$out" --level 3 --counter "$counter" -q)
}
frames() { # BUNDLE: how many frames its signed manifest indexes (0: none, one stream)
	rm -rf exp && "$BUNDLER" inspect "$1" --export exp >/dev/null &&
		py -c "import json,sys; print(len(json.load(open(sys.argv[1]))['payload'].get('frames', [])))" exp/header.json
}

note "the default bundle is indexed frames, and the seams bundler makes the same bytes by default"
mk seams.bundle 100
cmp seams.bundle "$FX/small.bundle" || fail "the seams bundler differs at its defaults"
[ "$(frames "$FX/small.bundle")" -ge 1 ] || fail "no frame index in a new bundle"
[ "$(frames "$FX/real.bundle")" -gt 20 ] || fail "the real cuDNN's 494 MB in fewer than 20 frames"

note "many small frames: stock zstd | tar lists them, the unpacker installs them"
mk many.bundle 100 CUFERRY_PACK_FRAME_SIZE=65536
[ "$(frames many.bundle)" -gt 40 ] || fail "expected more than 40 frames of 64 KiB"
zstd -dc many.bundle | tar -t > many.list
zstd -dc "$FX/small.bundle" | tar -t > small.list
cmp many.list small.list || fail "zstd | tar lists the frames differently"
grep -qx lib/libcudnn_graph.so.9 many.list || fail "not listed by zstd | tar"
expect 0 "$UNPACKER" install many.bundle --root "$W/r-many" $T --no-validate
cmp "$W/r-many/opt/cudnn/current/lib/libcudnn_graph.so.9" "$SRC/lib/libcudnn_graph.so.9"

note "a bundle without an index (one zstd stream, as bundles were made before) still installs"
mk one.bundle 100 CUFERRY_PACK_FRAME_SIZE=0
[ "$(frames one.bundle)" -eq 0 ] || fail "CUFERRY_PACK_FRAME_SIZE=0 still wrote an index"
zstd -dc one.bundle | tar -t | cmp - small.list || fail "zstd | tar lists the single stream differently"
expect 0 "$UNPACKER" install one.bundle --root "$W/r-one" $T --no-validate
cmp "$W/r-one/opt/cudnn/current/lib/libcudnn_graph.so.9" "$SRC/lib/libcudnn_graph.so.9"
expect 0 "$UNPACKER" verify one.bundle $T

note "one worker or many: the same install"
CUFERRY_DECODE_WORKERS=1 expect 0 "$UNPACKER_SEAMS" install many.bundle --root "$W/r-w1" $T --no-validate
CUFERRY_DECODE_WORKERS=7 expect 0 "$UNPACKER_SEAMS" install many.bundle --root "$W/r-w7" $T --no-validate
diff -r "$W/r-w1/opt/cudnn/current/lib" "$W/r-w7/opt/cudnn/current/lib" || fail "workers change the install"

note "a corrupt chunk in the middle: exit 3, naming it, nothing installed, no staging left"
R=$W/r-bad
mkdir -p "$R"
cp many.bundle bad.bundle
size=$(stat -c %s bad.bundle)
py - bad.bundle $((size / 2)) <<'PY'
import sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0x40]))
PY
expect 3 "$UNPACKER" install bad.bundle --root "$R" $T --no-validate
assert_contains last.err "does not match its signed SHA-256"
one_line_reason
[ ! -e "$R/opt/cudnn/current" ] || fail "something was installed from a corrupt bundle"
no_staging "$R"

note "SIGINT while the workers decode (paused after the first file): exit 5, nothing left"
R=$W/r-int
expect 0 "$UNPACKER" install one.bundle --root "$R" $T --no-validate
before=$(tree_listing "$R")
mk int.bundle 200 CUFERRY_PACK_FRAME_SIZE=65536
for s in INT TERM; do
	CUFERRY_FAULT=extract:pause "$UNPACKER_SEAMS" install int.bundle --root "$R" $T --no-validate \
		>int.out 2>int.err &
	pid=$!
	wait_paused $pid "the end of the first file"
	kill -$s $pid; kill -CONT $pid
	set +e; wait $pid; rc=$?; set -e
	[ $rc -eq 5 ] || { cat int.err; fail "SIG$s: exit $rc, expected 5"; }
	grep -q "interrupted by SIG$s" int.err || { cat int.err; fail "SIG$s not named"; }
	no_staging "$R"
	[ "$(tree_listing "$R")" = "$before" ] || fail "SIG$s: previous state not restored"
done

note "a failure in the middle of the payload (the disk, injected) while the workers run: rolled back"
CUFERRY_FAULT=extract expect 5 "$UNPACKER_SEAMS" install int.bundle --root "$R" $T --no-validate
assert_contains last.err "injected failure at extract"
no_staging "$R"
[ "$(tree_listing "$R")" = "$before" ] || fail "a failed install changed the previous state"

note "peak RSS of an install of the real cuDNN with 1 MiB and 64 MiB chunks: under 256 MiB"
SOURCE_DATE_EPOCH=1760486400 CUFERRY_PACK_CHUNK_SIZE=67108864 "$BUNDLER_SEAMS" create --from-dir "$CUDA" \
	--key "$FX/test.key" -o big-chunks.bundle --level 1 --counter 100 -q
for b in "$FX/real.bundle" big-chunks.bundle; do
	rm -rf "$W/r-rss"
	/usr/bin/time -f '%M' -o rss.txt "$UNPACKER" install "$b" --root "$W/r-rss" $T --no-validate \
		>/dev/null 2>rss.err || { cat rss.err; fail "$b did not install"; }
	kb=$(tail -1 rss.txt)
	echo "peak RSS $kb KiB: $b"
	[ "$kb" -lt $((256 * 1024)) ] || fail "$b: peak RSS $kb KiB, over 256 MiB"
done
rm -rf "$W/r-rss" big-chunks.bundle
