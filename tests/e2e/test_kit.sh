#!/bin/sh
# The USB leg (issue 18): bundler kit writes a kit of fake-library bundles for two platforms
# and two CUDA variants, split, read back from the device (a flipped byte is caught, exit 3),
# copied into a FAT32 image (mtools: this machine cannot mount one); unpacker install KIT on
# fake machines (driver, architecture and CUDA libraries faked under --root) picks the
# expected bundle each time, exits 4 with the list when nothing fits, and copies nothing.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
TRUST="--trust $FX/test.pub"
SPLIT=1M

# A fake cuDNN tree: headers of version 9.MINOR and incompressible "libraries", so the
# bundles are a few MiB and split into several 1 MiB parts.
fake_tree() { # DIR MINOR SIZE [CUDA_MAJOR_OF_PACKED_CUBLAS]
	mkdir -p "$1/include" "$1/lib"
	printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL 0\n' "$2" \
		> "$1/include/cudnn_version.h"
	head -c "$3" /dev/urandom > "$1/lib/libcudnn.so.9"
	ln -s libcudnn.so.9 "$1/lib/libcudnn.so"
	if [ $# -ge 4 ]; then
		head -c 100000 /dev/urandom > "$1/lib/libcublas.so.$4.1.0.3"
		ln -s "libcublas.so.$4.1.0.3" "$1/lib/libcublas.so.$4"
		head -c 1000 /dev/urandom > "$1/lib/libnvrtc.so.$4.0.88"
		ln -s "libnvrtc.so.$4.0.88" "$1/lib/libnvrtc.so.$4"
	fi
}
make_bundle() { # OUT TREE CUDA PLATFORM [more create options]
	out=$1 tree=$2 cuda=$3 platform=$4; shift 4
	"$BUNDLER" create --from-dir "$tree" --cuda "$cuda" --platform "$platform" --key "$FX/test.key" \
		--level 1 -q -o "$out" "$@" >/dev/null
}

note "fake bundles: 9.19 for CUDA 12 and 13 on x86_64, 9.19 for CUDA 12 on sbsa, an older 9.18"
fake_tree t19 19 2500000
fake_tree t18 18 300000
mkdir -p in
make_bundle in/ t19 12 linux-x86_64
make_bundle in/ t19 13 linux-x86_64
make_bundle in/ t19 12 linux-sbsa
make_bundle in/ t18 13 linux-x86_64 2>/dev/null || true
[ -f in/cudnn-9.18.0-cuda13-linux-x86_64.bundle ] || fail "9.18 bundle not made"
BUNDLES=$(for f in in/*.bundle; do printf -- '--bundle %s ' "$W/$f"; done)
# The sbsa unpacker is built by another part of the project; a static aarch64 program stands
# in for it (the kit checks the machine type of each unpacker it carries, and the marker
# every cuferry unpacker has).
printf '__attribute__((used)) const char marker[] = "CUFERRY-UNPACKER-STUB/1";\nint main(void){return 0;}\n' > stand-in.c
aarch64-linux-gnu-gcc -static -O1 -o sbsa-unpacker stand-in.c
SBSA="--unpacker linux-sbsa=$W/sbsa-unpacker"

note "the kit written through a FAT32 driver (fusefat): whole and checked, or refused, never a broken kit"
mkfs.vfat -C -F 32 fuse.img 40000 >/dev/null 2>&1 || fail "mkfs.vfat"
mkdir -p fusefat
if command -v fusefat >/dev/null && fusefat -o rw+ fuse.img fusefat >/dev/null 2>&1; then
	CLEANUP="$CLEANUP fusermount -u '$W/fusefat' 2>/dev/null;"
	set +e
	"$BUNDLER" kit --key "$FX/test.key" -o "$W/fusefat/kit" $BUNDLES --split $SPLIT $SBSA >fuse.out 2>fuse.err
	got=$?
	set -e
	assert_contains fuse.err "FUSE (possibly FAT)"
	if [ $got = 0 ]; then
		(cd fusefat/kit && sha256sum -c --quiet SHA256SUMS) || fail "the kit on FAT does not check"
	else
		# fusefat 0.1a loses a directory's entries when the directory is renamed: the kit must
		# say so (exit 3) and leave nothing under its name.
		[ $got = 3 ] || { cat fuse.err; fail "exit $got on fusefat"; }
		assert_contains fuse.err "lost or changed when the kit was renamed into place"
		[ ! -e fusefat/kit ] || fail "a broken kit was left on the FAT file system"
	fi
else
	echo "skipped: cannot mount a FAT image with fusefat here"
fi

# Fake machines: the driver in ROOT/proc/driver/nvidia/version (a root with its own proc/
# never reads the host's driver), CUDA libraries in the root's library directories; the
# architecture with --platform, which only a dry run accepts.
machine() { # NAME DRIVER [CUBLAS_MAJOR]
	mkdir -p "$W/$1/proc/driver/nvidia"
	echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  $2  Sun Jul 27 07:09:14 UTC 2025" \
		> "$W/$1/proc/driver/nvidia/version"
	if [ $# -ge 3 ]; then
		mkdir -p "$W/$1/usr/lib/x86_64-linux-gnu"
		: > "$W/$1/usr/lib/x86_64-linux-gnu/libcublas.so.$3"
	fi
}
machine m580 580.65.06
machine m550 550.54.15
machine m470 470.82.01
machine m580cu12 580.95.05 12
machine m580cu13 580.95.05 13

note "no unpacker for a platform is an error naming it, before anything is written"
# A bundler with no linux-sbsa/unpacker beside it (make builds one beside build/bundler).
mkdir -p "$W/lonely" && cp "$BUNDLER" "$UNPACKER" "$W/lonely/"
expect 4 "$W/lonely/bundler" kit --key "$FX/test.key" -o "$W/kit" $BUNDLES --split $SPLIT
assert_contains last.err "no unpacker for linux-sbsa"
one_line_reason
[ ! -e kit ] && [ -z "$(ls -d kit.partial-* 2>/dev/null)" ] || fail "a failed kit left files"

note "an unpacker of the wrong machine type is refused"
expect 4 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit" $BUNDLES --split $SPLIT --unpacker "linux-sbsa=$UNPACKER"
assert_contains last.err "a linux-sbsa bundle needs an AArch64 ELF program"

note "a kit in a directory, from another directory, with a relative -o and umask 077"
mkdir -p elsewhere
(cd elsewhere && umask 077 && "$BUNDLER" kit --key "$FX/test.key" -o ../kit $BUNDLES --split $SPLIT $SBSA) >kit.out 2>kit.err \
	|| { cat kit.out kit.err; fail "bundler kit failed"; }
assert_contains kit.out "read back from the device: all match"
# The bundler and unpacker verify say what each counts (issue 25: "11 files" against "9 files").
all=$(find kit -type f | wc -l)
assert_contains kit.out "($all files, read back from the device: all match; the signed index lists $((all - 2)), all but itself and its signature)"
for f in README.txt SHA256SUMS linux-x86_64/unpacker linux-sbsa/unpacker \
	cudnn-9.19.0-cuda13-linux-x86_64.bundle.001 cudnn-9.19.0-cuda13-linux-x86_64.bundle.003 \
	cudnn-9.19.0-cuda12-linux-sbsa.bundle.003 cudnn-9.18.0-cuda13-linux-x86_64.bundle; do
	[ -f "kit/$f" ] || { ls -R kit; fail "kit/$f missing"; }
done
[ -z "$(ls -d kit.partial-* 2>/dev/null)" ] || fail "partial directory left"
# Parts stay under the split size; only the programs, which cannot be cut, are larger.
big=$(find kit -type f -size +1048576c ! -name unpacker)
[ -z "$big" ] || fail "over the split size: $big"
[ "$(stat -c %a kit/linux-x86_64/unpacker)" = 755 ] || fail "unpacker mode"
[ "$(stat -c %a kit/README.txt)" = 644 ] || fail "README mode under umask 077"
(cd kit && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not check"
[ "$(wc -l < kit/SHA256SUMS)" = "$(find kit -type f ! -name 'SHA256SUMS*' ! -name 'cuferry-kit.*' | wc -l)" ] || fail "SHA256SUMS does not list every file"
# The README names the signing key's fingerprint and never carries a key.
fp=$(openssl pkey -pubin -in "$FX/test.pub" -outform DER | sha256sum | cut -d' ' -f1)
assert_contains kit/README.txt "fingerprint $fp"
assert_contains kit/README.txt "no trusted key on purpose"
assert_contains kit/README.txt "unpacker install /media/usb/kit --dry-run"
! grep -q "BEGIN PUBLIC KEY" kit/README.txt kit/SHA256SUMS || fail "a key travels in the README"
# the noexec advice copies the unpacker into a private directory, never a fixed /tmp name
assert_contains kit/README.txt 'k=$PWD d=$(mktemp -d) && cp SHA256SUMS SHA256SUMS.sig "$d/"'
! grep -q '/tmp/' kit/README.txt || fail "the README names a fixed path under /tmp"
[ -z "$(find kit -name '*.pub')" ] || fail "a .pub in the kit"
cmp -s -n "$(stat -c %s "$UNPACKER")" kit/linux-x86_64/unpacker "$UNPACKER" || fail "the kit's unpacker is not this unpacker"

note "re-running into an existing kit replaces it whole; a directory that is not a kit is refused"
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit" $BUNDLES --split $SPLIT $SBSA
mkdir -p notakit && echo precious > notakit/file
expect 1 "$BUNDLER" kit --key "$FX/test.key" -o "$W/notakit" $BUNDLES --split $SPLIT $SBSA
assert_contains last.err "exists and is not a kit"
[ "$(cat notakit/file)" = precious ] || fail "a foreign directory was touched"

note "the matrix from a mirror: --cudnn 9.19 --cuda 12,13, built, checked and written in one run"
fake_tree fakecuda 19 1500000
cp fakecuda/lib/libcudnn.so.9 fakecuda/lib/libcudnn_graph.so.9
head -c 50000 /dev/urandom > fakecuda/lib/libcublas.so.13
head -c 5000 /dev/urandom > fakecuda/lib/libnvrtc-builtins.so.13.0
py "$TOP/tests/tools/make_mirror.py" "$W/fakecuda" mirror
cp "$FX"/file-mirror/cuda/redist/redistrib_12.8.0.json mirror/cuda/redist/
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-matrix" --cudnn 9.19 --cuda 12,13 --platform linux-x86_64 \
	--mirror "file://$W/mirror" --cache "$W/cache" --level 1 --split $SPLIT
for v in 12 13; do
	[ -f "kit-matrix/cudnn-9.19.0.56-cuda$v-linux-x86_64.bundle.001" ] || { ls kit-matrix; fail "CUDA $v bundle missing"; }
done
(cd kit-matrix && sha256sum -c --quiet SHA256SUMS) || fail "matrix kit SHA256SUMS"
[ -z "$(ls cache | grep '^kit-')" ] || fail "the matrix work directory was left"

note "one kit mixing 9.19.0 (a tree without metadata) and 9.19.0.56 (NVIDIA's archive) says which is which"
expect 0 "$BUNDLER" kit -o "$W/kit-mixed" --bundle "$W/in/cudnn-9.19.0-cuda12-linux-sbsa.bundle" \
	--bundle "$W/kit-matrix/cudnn-9.19.0.56-cuda13-linux-x86_64.bundle.001" $SBSA --split $SPLIT \
	--key "$FX/test.key"
assert_contains last.out "cuDNN 9.19.0 from its headers: its source named no build number; the kit's 9.19.0.56 bundles are the same 9.19.0 release"
assert_contains kit-mixed/README.txt "the kit's 9.19.0.56 bundles are the same 9.19.0 release"
[ "$(grep -c 'no build number' kit-mixed/README.txt)" -eq 1 ] || fail "the 9.19.0.56 bundle got a note too"

note "the whole matrix is resolved first: a platform the mirror lacks is named before any download"
expect 9 "$BUNDLER" kit -o "$W/kit-nosbsa" --cudnn 9.19 --cuda 12,13 --platform linux-x86_64,linux-sbsa \
	--key "$FX/test.key" --mirror "file://$W/mirror" --cache "$W/cache-nosbsa" --level 1 --split $SPLIT
assert_contains last.err "nothing downloaded: the mirror lacks part of the matrix: linux-sbsa CUDA 12: "
assert_contains last.err "; linux-sbsa CUDA 13: "
! grep -q "linux-x86_64 CUDA" last.err || fail "a pair the mirror has is named missing: $(cat last.err)"
[ -z "$(find cache-nosbsa -name '*.tar.xz*' 2>/dev/null)" ] || fail "downloaded before the matrix was resolved"
[ ! -e kit-nosbsa ] || fail "a kit was written"

note "a CUDA variant the mirror lacks (NVIDIA supports the pair) is exit 9 too, like a platform"
cp -a mirror mirror-no12
py - mirror-no12/cudnn/redist/redistrib_9.19.0.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
del j["cudnn"]["linux-x86_64"]["cuda12"]
json.dump(j, open(sys.argv[1], "w"))
PY
expect 9 "$BUNDLER" kit -o "$W/kit-no12" --cudnn 9.19 --cuda 12,13 --platform linux-x86_64 \
	--key "$FX/test.key" --mirror "file://$W/mirror-no12" --cache "$W/cache-no12" --level 1 --split $SPLIT
assert_contains last.err "nothing downloaded: the mirror lacks part of the matrix: linux-x86_64 CUDA 12: .*not on this mirror"
! grep -q "CUDA 13" last.err || fail "a pair the mirror has is named missing: $(cat last.err)"
[ ! -e kit-no12 ] || fail "a kit was written"

note "archives are extracted below an absolute work directory; their own names still may not leave it"
for bad in ../escaped /tmp/cuferry-kit-test-absolute hardlink; do
	rm -rf evil && mkdir -p evil/work
	python3 - "$bad" <<'PY'
import io, sys, tarfile
bad = sys.argv[1]
stem = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive"
with tarfile.open("evil/" + stem + ".tar.xz", "w:xz") as t:
    def add(name, data=b"x", link=None):
        info = tarfile.TarInfo(name)
        if link:
            info.type, info.linkname = tarfile.LNKTYPE, link
        else:
            info.size = len(data)
        t.addfile(info, None if link else io.BytesIO(data))
    add(stem + "/include/cudnn_version.h", b"#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n")
    if bad == "hardlink":
        add(stem + "/lib/libcudnn.so.9", link="../../../escaped")
    else:
        add(bad if bad.startswith("/") else stem + "/" + bad + "/../../../escaped", b"evil")
PY
	expect 9 "$BUNDLER" create --from-archive "$W/evil/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz" \
		--key "$FX/test.key" -o "$W/evil/work/" -q
	assert_contains last.err "unsafe entry name"
	[ ! -e escaped ] && [ ! -e evil/escaped ] && [ ! -e /tmp/cuferry-kit-test-absolute ] || fail "an entry left the work directory ($bad)"
done

note "a damaged --bundle is refused before anything is written (exit 3); parts (.001) are taken whole"
cp in/cudnn-9.19.0-cuda12-linux-x86_64.bundle damaged.bundle
size=$(stat -c %s damaged.bundle)
printf 'X' | dd of=damaged.bundle bs=1 seek=$((size - 5000)) conv=notrunc 2>/dev/null
expect 3 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-damaged" --bundle "$W/damaged.bundle" $SBSA
assert_contains last.err "damaged.bundle"
[ ! -e kit-damaged ] && [ -z "$(ls -d kit-damaged.partial-* 2>/dev/null)" ] || fail "a damaged bundle left a kit"
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-from-parts" --bundle "$W/kit/cudnn-9.19.0-cuda13-linux-x86_64.bundle.001"
cmp -s kit-from-parts/cudnn-9.19.0-cuda13-linux-x86_64.bundle in/cudnn-9.19.0-cuda13-linux-x86_64.bundle \
	|| fail "a kit made from parts does not hold the whole bundle"

note "a .run in a kit keeps its x bit"
"$BUNDLER" sfx in/cudnn-9.19.0-cuda13-linux-x86_64.bundle --key "$FX/test.key" --unpacker "$UNPACKER" -o "$W/k.run" >/dev/null
(umask 077 && expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-run" --bundle "$W/k.run")
[ "$(stat -c %a kit-run/k.run)" = 755 ] || fail "the .run in the kit is mode $(stat -c %a kit-run/k.run)"

note "--no-unpacker: the README says to bring one"
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-noarm" $BUNDLES --split $SPLIT --no-unpacker linux-sbsa
[ ! -e kit-noarm/linux-sbsa ] || fail "an sbsa unpacker was written"
assert_contains kit-noarm/README.txt "none for linux-sbsa"

note "space (bytes and inodes) is checked before anything is written; a mount point gets cuferry-kit/"
mkdir -p small-stick tiny-inodes mounted-stick
if mount -t tmpfs -o size=4m tmpfs small-stick 2>/dev/null; then
	CLEANUP="$CLEANUP umount '$W/small-stick' 2>/dev/null;"
	expect 4 "$BUNDLER" kit --key "$FX/test.key" -o "$W/small-stick/kit" $BUNDLES --split $SPLIT $SBSA
	assert_contains last.err "not enough space for the kit"
	one_line_reason
	[ -z "$(ls -A small-stick)" ] || fail "a kit without space wrote something"
	mount -t tmpfs -o size=64m,nr_inodes=8 tmpfs tiny-inodes
	CLEANUP="$CLEANUP umount '$W/tiny-inodes' 2>/dev/null;"
	expect 4 "$BUNDLER" kit --key "$FX/test.key" -o "$W/tiny-inodes/kit" $BUNDLES --split $SPLIT $SBSA
	assert_contains last.err "not enough inodes for the kit"
	[ -z "$(ls -A tiny-inodes)" ] || fail "a kit without inodes wrote something"
	mount -t tmpfs -o size=64m tmpfs mounted-stick
	CLEANUP="$CLEANUP umount '$W/mounted-stick' 2>/dev/null;"
	expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/mounted-stick" $BUNDLES --split $SPLIT $SBSA
	[ -f mounted-stick/cuferry-kit/README.txt ] || fail "no kit in cuferry-kit/ on the mount point"
	expect 0 "$UNPACKER" install "$W/mounted-stick" --root "$W/m580" $TRUST --dry-run
	assert_contains last.out "would install $W/mounted-stick/cuferry-kit/"
else
	echo "skipped: cannot mount tmpfs here"
fi

note "read-back from the device: a byte flipped between write and verify is exit 3 with its offset"
[ -x "$B/bundler-test-seams" ] || fail "the test-seam bundler is not built"
CUFERRY_KIT_FLIP=cudnn-9.19.0-cuda13-linux-x86_64.bundle.002@12345 \
	expect 3 "$B/bundler-test-seams" kit --key "$FX/test.key" -o "$W/kit-bad" $BUNDLES --split $SPLIT $SBSA
assert_contains last.err "cudnn-9.19.0-cuda13-linux-x86_64.bundle.002: the device returned other bytes"
assert_contains last.err "first at byte offset 12345"
[ ! -e kit-bad ] && [ -z "$(ls -d kit-bad.partial-* 2>/dev/null)" ] || fail "a kit that failed read-back was left"
CUFERRY_KIT_FLIP=README.txt@3 expect 3 "$B/bundler-test-seams" kit --key "$FX/test.key" -o "$W/kit-bad" $BUNDLES --split $SPLIT $SBSA
assert_contains last.err "README.txt: the device returned other bytes.*offset 3 "
# The release bundler has no seam: the same variable changes nothing.
CUFERRY_KIT_FLIP=README.txt@3 expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-release" $BUNDLES --split $SPLIT $SBSA

note "kill -9 between writing and reading back: no kit under the name; the next run cleans up"
rm -rf kit-killed
# wait_stopped PID: until the test seam has stopped it (SIGSTOP).
wait_stopped() {
	i=0
	until [ "$(awk '{print $3}' /proc/$1/stat 2>/dev/null)" = T ]; do
		i=$((i + 1)); [ $i -lt 600 ] || { kill -9 $1; fail "the kit never paused"; }; sleep 0.1
	done
}
CUFERRY_KIT_PAUSE=written "$B/bundler-test-seams" kit --key "$FX/test.key" -o "$W/kit-killed" $BUNDLES --split $SPLIT $SBSA >/dev/null 2>killed.err &
pid=$!
wait_stopped $pid
kill -9 $pid; wait $pid 2>/dev/null || true
[ ! -e kit-killed ] || fail "a killed run left a kit under its name"
[ -n "$(ls -d kit-killed.partial-* 2>/dev/null)" ] || fail "expected the killed run's partial directory"
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-killed" $BUNDLES --split $SPLIT $SBSA
assert_contains last.err "left by an interrupted run"
[ -z "$(ls -d kit-killed.partial-* 2>/dev/null)" ] || fail "the stale partial directory is still there"
(cd kit-killed && sha256sum -c --quiet SHA256SUMS) || fail "the kit after a kill does not check"

note "a bundle changed after its check and before it is copied: exit 3, no kit"
cp in/cudnn-9.19.0-cuda13-linux-x86_64.bundle moving.bundle
CUFERRY_KIT_PAUSE=checked "$B/bundler-test-seams" kit --key "$FX/test.key" -o "$W/kit-moving" --bundle "$W/moving.bundle" \
	--split $SPLIT >moving.out 2>moving.err &
pid=$!
wait_stopped $pid
printf 'X' | dd of=moving.bundle bs=1 seek=2000000 conv=notrunc 2>/dev/null
kill -CONT $pid
set +e; wait $pid; got=$?; set -e
[ $got = 3 ] || { cat moving.err; fail "exit $got, expected 3"; }
assert_contains moving.err "moving.bundle changed while the kit was being written"
[ ! -e kit-moving ] && [ -z "$(ls -d kit-moving.partial-* 2>/dev/null)" ] || fail "a changed bundle left a kit"

note "the kit on a FAT32 file system (mkfs.vfat + mtools), read back from the image"
mkfs.vfat -C -F 32 fat.img 40000 >/dev/null 2>&1 || fail "mkfs.vfat"
mmd -i fat.img ::/kit
mcopy -s -i fat.img kit/* ::/kit/
fsck.vfat -n fat.img >/dev/null || fail "the FAT image does not check"
mdir -i fat.img ::/kit > fat.list
assert_contains fat.list "cudnn-9.19.0-cuda13-linux-x86_64.bundle.003"
mcopy -s -n -i fat.img ::/kit "$W/fromfat"
(cd fromfat && sha256sum -c --quiet SHA256SUMS) || fail "the kit read back from FAT does not check"
big=$(find fromfat -type f -size +1048576c ! -name unpacker)
[ -z "$big" ] || fail "over the split size on FAT: $big"

note "driver 580: the newest cuDNN for CUDA 13 (9.18 passed over as older)"
expect 0 "$UNPACKER" install kit --root "$W/m580" $TRUST --dry-run
assert_contains last.out "driver 580.65.06 (CUDA 13 and older)"
assert_contains last.out "chose cudnn-9.19.0-cuda13-linux-x86_64.bundle.001"
assert_contains last.out "cudnn-9.18.0-cuda13-linux-x86_64.bundle: cuDNN 9.18.0 is older than 9.19.0"
assert_contains last.out "cudnn-9.19.0-cuda12-linux-sbsa.bundle.001: for linux-sbsa, this machine is linux-x86_64"
assert_contains last.out "dry run: would install"
[ ! -e m580/opt ] || fail "a dry run wrote something"

note "driver 550: CUDA 12 (the CUDA 13 bundles need 580)"
expect 0 "$UNPACKER" install kit --root "$W/m550" $TRUST --dry-run
assert_contains last.out "chose cudnn-9.19.0-cuda12-linux-x86_64.bundle.001"
assert_contains last.out "cudnn-9.19.0-cuda13-linux-x86_64.bundle.001: needs driver >= 580.65.06, this machine has 550.54.15"

note "--cuda 12 on a 580 driver; --platform linux-sbsa (dry run) picks the sbsa bundle"
expect 0 "$UNPACKER" install kit --root "$W/m580" $TRUST --dry-run --cuda 12
assert_contains last.out "chose cudnn-9.19.0-cuda12-linux-x86_64.bundle.001"
expect 0 "$UNPACKER" install kit --root "$W/m580" $TRUST --dry-run --platform linux-sbsa
assert_contains last.out "chose cudnn-9.19.0-cuda12-linux-sbsa.bundle.001"
expect 1 "$UNPACKER" install kit --root "$W/m580" $TRUST --platform linux-sbsa
assert_contains last.err "only goes with --dry-run"

note "a machine with only CUDA 12's cuBLAS takes the CUDA 12 bundle"
expect 0 "$UNPACKER" install kit --root "$W/m580cu12" $TRUST --dry-run
assert_contains last.out "libcublas.so.12"
assert_contains last.out "chose cudnn-9.19.0-cuda12-linux-x86_64.bundle.001"

note "packed CUDA libraries are preferred where the machine has none, and not where it has them"
fake_tree tlibs 19 200000 13
mkdir -p pair
make_bundle pair/with-cuda-libs.bundle tlibs 13 linux-x86_64 --with-cuda-libs
make_bundle pair/without.bundle tlibs 13 linux-x86_64
expect 0 "$UNPACKER" install pair --root "$W/m580" $TRUST --dry-run
assert_contains last.out "chose with-cuda-libs.bundle"
assert_contains last.out "without.bundle: needs libcublas.so.13, which this machine does not have"
expect 0 "$UNPACKER" install pair --root "$W/m580cu13" $TRUST --dry-run
assert_contains last.out "chose without.bundle"

note "no driver on the machine (a root with its own proc/ and no NVIDIA entry): the newest CUDA"
mkdir -p "$W/nodriver/proc"
expect 0 "$UNPACKER" install kit --root "$W/nodriver" $TRUST --dry-run
assert_contains last.out "no NVIDIA driver found"
assert_contains last.out "chose cudnn-9.19.0-cuda13-linux-x86_64.bundle.001"

note "nothing fits: exit 4 naming what the machine has and what the kit offers"
expect 4 "$UNPACKER" install kit --root "$W/m470" $TRUST
one_line_reason
assert_contains last.err "driver 470.82.01"
assert_contains last.err "it offers: cudnn-9.18.0-cuda13-linux-x86_64.bundle (needs driver >= 580.65.06"
assert_contains last.out "the kit offers:"
[ ! -e m470/opt ] || fail "a refused install wrote something"
note "nothing trusted: exit 2, every bundle passed over with the reason"
expect 2 "$UNPACKER" install kit --root "$W/m580" --trust "$FX/other.pub" --dry-run
assert_contains last.err "the kit's index (cuferry-kit.json): no valid signature by a trusted key"
# A directory of bundles without an index: each bundle passed over with the reason.
mkdir -p plain && cp in/cudnn-9.19.0-cuda12-linux-x86_64.bundle plain/
expect 2 "$UNPACKER" install plain --root "$W/m580" --trust "$FX/other.pub" --dry-run
assert_contains last.out "not trusted"

note "the install streams from the kit (here: the copy read back from FAT): nothing is copied"
before=$(cd fromfat && find . -printf '%p %s %Y %C@\n' | sort)
mkdir -p tmp
TMPDIR="$W/tmp" expect 0 "$UNPACKER" install "$W/fromfat" --root "$W/m580" $TRUST --no-validate
assert_contains last.out "chose cudnn-9.19.0-cuda13-linux-x86_64.bundle.001"
assert_contains last.out "installed cudnn-9.19.0-cuda13-linux-x86_64"
cmp -s m580/opt/cudnn/current/lib/libcudnn.so.9 t19/lib/libcudnn.so.9 || fail "installed library differs"
[ "$(cd fromfat && find . -printf '%p %s %Y %C@\n' | sort)" = "$before" ] || fail "the kit changed"
[ -z "$(ls -A tmp)" ] || fail "something was written to TMPDIR"
# No copy of the bundle (or of a part) anywhere on the target.
big=$(find m580 -type f -size +1000000c ! -name libcudnn.so.9)
[ -z "$big" ] || fail "a copy on the target: $big"
no_staging "$W/m580"
note "a stick's root: a kit in cuferry-kit/ below it is found"
mkdir -p stick && mv kit-noarm stick/cuferry-kit
expect 0 "$UNPACKER" install "$W/stick" --root "$W/m550" $TRUST --dry-run
assert_contains last.out "chose cudnn-9.19.0-cuda12-linux-x86_64.bundle.001"

note "the kit is signed: openssl checks SHA256SUMS.sig with the site's key; unpacker verify KIT checks it all"
openssl dgst -sha256 -verify "$FX/test.pub" -signature kit/SHA256SUMS.sig kit/SHA256SUMS >/dev/null \
	|| fail "openssl does not verify SHA256SUMS.sig"
! openssl dgst -sha256 -verify "$FX/other.pub" -signature kit/SHA256SUMS.sig kit/SHA256SUMS >/dev/null 2>&1 \
	|| fail "SHA256SUMS.sig verifies with another key"
assert_contains kit/cuferry-kit.json '"valid_until"'
assert_contains kit/cuferry-kit.json '"path": "linux-sbsa/unpacker"'
expect 0 "$UNPACKER" verify kit $TRUST
assert_contains last.out "verified kit kit: $(($(find kit -type f | wc -l) - 2)) files, every one as its signed index lists it (the index and its signature not counted)"
assert_contains last.out "unpacker  linux-x86_64/unpacker: signed by"
assert_contains last.out "unpacker  linux-sbsa/unpacker: signed by"
fp=$(openssl pkey -pubin -in "$FX/test.pub" -outform DER | sha256sum | cut -d' ' -f1)
expect 0 "$UNPACKER" verify kit --trust-fingerprint "$fp"
expect 2 "$UNPACKER" verify kit --trust "$FX/other.pub"
# The README leads with the installed unpacker and gives the first-server bootstrap.
[ "$(grep -n 'unpacker install /media/usb/kit' kit/README.txt | head -1 | cut -d: -f1)" -lt \
  "$(grep -n 'sha256sum -c SHA256SUMS' kit/README.txt | cut -d: -f1)" ] || fail "README.txt does not lead with the installed unpacker"
assert_contains kit/README.txt "openssl dgst -sha256 -verify site.pub -signature SHA256SUMS.sig SHA256SUMS"
assert_contains kit/README.txt "./linux-x86_64/unpacker self-install ./linux-x86_64/unpacker --trust-fingerprint HEX"
# two Linux platforms: pasted whole, the other one's line fails, so the README says which to run
assert_contains kit/README.txt "run only this machine's self-install line"
# bundler kit names the keys each unpacker trusts, and warns loudly when none of the kit's.
assert_contains kit.out "unpacker  linux-x86_64/unpacker sha256 $(sha256sum kit/linux-x86_64/unpacker | cut -d' ' -f1)"
assert_contains kit.out "valid     until"
assert_contains kit.err "linux-sbsa/unpacker trusts NONE of the keys that signed this kit"

note "the stick's unpacker runs as it is; started bare it is a usage error, not an install of itself"
expect 0 kit/linux-x86_64/unpacker --version
expect 1 kit/linux-x86_64/unpacker
assert_contains last.err "no bundle given"

note "two keys: SHA256SUMS.sig by the first, SHA256SUMS.<short id>.sig by the second; the index by both"
mkdir -p two
cp in/cudnn-9.19.0-cuda12-linux-x86_64.bundle two/
"$BUNDLER" sign two/cudnn-9.19.0-cuda12-linux-x86_64.bundle --key "$FX/other.key" >/dev/null
expect 0 "$BUNDLER" kit --key "$FX/test.key" --key "$FX/other.key" -o "$W/kit-two" --bundle "$W/two/cudnn-9.19.0-cuda12-linux-x86_64.bundle"
other_id=$(openssl pkey -pubin -in "$FX/other.pub" -outform DER | sha256sum | cut -c1-16)
openssl dgst -sha256 -verify "$FX/test.pub" -signature kit-two/SHA256SUMS.sig kit-two/SHA256SUMS >/dev/null || fail "first key's SHA256SUMS.sig"
openssl dgst -sha256 -verify "$FX/other.pub" -signature "kit-two/SHA256SUMS.$other_id.sig" kit-two/SHA256SUMS >/dev/null \
	|| { ls kit-two; fail "second key's SHA256SUMS.$other_id.sig"; }
expect 0 "$UNPACKER" verify kit-two --trust "$FX/other.pub"
expect 0 "$UNPACKER" verify kit-two --trust "$FX/test.pub" --trust "$FX/other.pub"

note "a kit needs --key, and only keys that signed its bundles; --valid-days sets the validity"
expect 1 "$BUNDLER" kit -o "$W/kit-nokey" $BUNDLES $SBSA
assert_contains last.err "a kit is signed: give --key"
expect 1 "$BUNDLER" kit --key "$FX/other.key" -o "$W/kit-otherkey" $BUNDLES $SBSA
assert_contains last.err "signed none of the kit's bundles"
[ ! -e kit-nokey ] && [ ! -e kit-otherkey ] || fail "a refused kit was written"
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-30" $BUNDLES --split $SPLIT $SBSA --valid-days 30
until=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["valid_until"])' kit-30/cuferry-kit.json)
created=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["created"])' kit-30/cuferry-kit.json)
[ $(( $(date -d "$until" +%s) - $(date -d "$created" +%s) )) = $((30 * 86400)) ] || fail "--valid-days 30: $created .. $until"
assert_contains last.out "valid     until $until (--valid-days 30)"
assert_contains kit-30/README.txt "valid until $until"

note "any file changed, added or swapped: refused by openssl and sha256sum, and by unpacker verify KIT"
changed() { # NAME: a fresh copy of the kit in $W/NAME
	rm -rf "$W/$1" && cp -a kit "$W/$1"
}
changed k-readme && printf 'x' >> k-readme/README.txt
! (cd k-readme && sha256sum -c --quiet SHA256SUMS >/dev/null 2>&1) || fail "sha256sum passes a changed README"
expect 3 "$UNPACKER" verify k-readme $TRUST
assert_contains last.err "README.txt: .* the kit's signed index says"
# The stick attacker: another program as the unpacker, SHA256SUMS and README.txt made to match.
changed k-swap
cp /bin/true k-swap/linux-x86_64/unpacker
echo "run ./linux-x86_64/unpacker as root" > k-swap/README.txt
(cd k-swap && grep -v ' README.txt$\| linux-x86_64/unpacker$' SHA256SUMS > S; sha256sum README.txt linux-x86_64/unpacker >> S; mv S SHA256SUMS)
(cd k-swap && sha256sum -c --quiet SHA256SUMS) || fail "the swapped kit's SHA256SUMS was not made to match"
! openssl dgst -sha256 -verify "$FX/test.pub" -signature k-swap/SHA256SUMS.sig k-swap/SHA256SUMS >/dev/null 2>&1 \
	|| fail "openssl verifies a swapped SHA256SUMS"
expect 3 "$UNPACKER" verify k-swap $TRUST
# ... and the index made to match too: its signature fails (exit 2).
python3 - k-swap <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
x = json.load(open(d + "/cuferry-kit.json"))
for f in x["files"]:
    b = open(os.path.join(d, f["path"]), "rb").read()
    f["size"], f["sha256"] = len(b), hashlib.sha256(b).hexdigest()
open(d + "/cuferry-kit.json", "w").write(json.dumps(x, indent=1) + "\n")
PY
expect 2 "$UNPACKER" verify k-swap $TRUST
assert_contains last.err "the kit's index (cuferry-kit.json): signature 1 by trusted key .* does not verify"
expect 2 "$UNPACKER" install k-swap --root "$W/m580" $TRUST --dry-run
# A kit whose index was removed cannot be proven: exit 2 for verify and install alike (any
# other directory: usage, 1, for verify; a directory of bundles for install).
changed k-noindex && rm k-noindex/cuferry-kit.json k-noindex/cuferry-kit.sig
expect 2 "$UNPACKER" verify k-noindex $TRUST
assert_contains last.err "without its signed index"
expect 2 "$UNPACKER" install k-noindex --root "$W/m580" $TRUST --dry-run
assert_contains last.err "is a kit (it has SHA256SUMS.sig) without its signed index"
# A bundle planted beside the signed ones is on the kit but not in its index.
changed k-added && cp in/cudnn-9.18.0-cuda13-linux-x86_64.bundle k-added/planted.bundle
expect 3 "$UNPACKER" verify k-added $TRUST
assert_contains last.err "planted.bundle: a file on the kit but not in its signed index"
# An unpacker container whose program changed (its block kept) is refused on its own.
cp kit/linux-x86_64/unpacker lone-unpacker
printf 'X' | dd of=lone-unpacker bs=1 seek=1000 conv=notrunc 2>/dev/null
mkdir -p selfroot
expect 2 "$UNPACKER" self-install "$W/lone-unpacker" --root "$W/selfroot" $TRUST
assert_contains last.err "signature 1 by trusted key .* does not verify"
[ ! -e selfroot/usr/local/sbin/unpacker ] || fail "a changed unpacker was installed"
expect 2 "$UNPACKER" verify "$W/lone-unpacker" $TRUST
expect 0 "$UNPACKER" verify kit/linux-x86_64/unpacker $TRUST
assert_contains last.out "a signed unpacker"

note "a linked cuferry-kit/ is refused (exit 2), never followed"
mkdir -p linked-stick && ln -s "$W/kit" linked-stick/cuferry-kit
expect 2 "$UNPACKER" install "$W/linked-stick" --root "$W/m580" $TRUST --dry-run
assert_contains last.err "cuferry-kit is a link"
expect 2 "$UNPACKER" verify "$W/linked-stick" $TRUST
assert_contains last.err "cuferry-kit is a link"

note "an expired kit: install DIR is exit 7 unless --allow-expired"
CUFERRY_KIT_CREATED=$(( $(date +%s) - 100 * 86400 )) \
	expect 0 "$B/bundler-test-seams" kit --key "$FX/test.key" -o "$W/kit-old" $BUNDLES --split $SPLIT $SBSA
expect 7 "$UNPACKER" install kit-old --root "$W/m580" $TRUST --dry-run
assert_contains last.err "the kit expired on"
one_line_reason
expect 7 "$UNPACKER" verify kit-old $TRUST
expect 0 "$UNPACKER" install kit-old --root "$W/m580" $TRUST --dry-run --allow-expired
assert_contains last.err "used anyway (--allow-expired)"

note "self-install: the kit's verified unpacker becomes the server's own; an older one does not replace it"
expect 0 "$UNPACKER" self-install kit --root "$W/selfroot" $TRUST
assert_contains last.out "installed the unpacker"
sbin=selfroot/usr/local/sbin/unpacker
[ "$(stat -c '%a %u %g' $sbin)" = "755 0 0" ] || fail "self-install: $(stat -c '%a %u %g' $sbin)"
cmp -s "$sbin" "$UNPACKER" || fail "self-install did not install the program itself (without its block)"
"$sbin" --version >/dev/null || fail "the installed unpacker does not run"
expect 0 "$UNPACKER" self-install kit/linux-x86_64/unpacker --root "$W/selfroot" $TRUST
assert_contains last.out "already installed"
# An older unpacker: the same program with a lower version marker, carried on its own kit.
python3 - "$UNPACKER" older-unpacker <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
m = re.search(rb"CUFERRY-UNPACKER-VERSION=([0-9.]+)\0", b)
old = m.group(1)
new = b"0.0.1".ljust(len(old), b"\0")[:len(old)]
open(sys.argv[2], "wb").write(b[:m.start(1)] + new + b[m.end(1):])
PY
chmod 755 older-unpacker
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-older" --bundle "$W/in/cudnn-9.19.0-cuda12-linux-x86_64.bundle" --unpacker "linux-x86_64=$W/older-unpacker"
expect 7 "$UNPACKER" self-install kit-older --root "$W/selfroot" $TRUST
assert_contains last.err "older than the installed"
cmp -s "$sbin" "$UNPACKER" || fail "an older unpacker replaced a newer one"
expect 0 "$UNPACKER" self-install kit-older --root "$W/selfroot" $TRUST --allow-downgrade
cmp -s "$sbin" older-unpacker || fail "--allow-downgrade did not install the older unpacker"
expect 0 "$UNPACKER" self-install kit --root "$W/selfroot" $TRUST
cmp -s "$sbin" "$UNPACKER" || fail "a newer unpacker did not replace the older one"
# The Linux unpacker of the stick verifies under the other key: trust failure, nothing written.
expect 2 "$UNPACKER" self-install kit --root "$W/selfroot2" --trust "$FX/other.pub"
[ ! -e selfroot2/usr/local/sbin ] || fail "an untrusted self-install wrote something"
# A --root image whose usr/local/sbin is a link never gets the program.
mkdir -p selfroot3/usr/local && ln -s "$W/outside-sbin" selfroot3/usr/local/sbin && mkdir -p outside-sbin
expect 4 "$UNPACKER" self-install kit --root "$W/selfroot3" $TRUST
[ -z "$(ls -A outside-sbin)" ] || fail "self-install wrote through a link"

echo "ok"
