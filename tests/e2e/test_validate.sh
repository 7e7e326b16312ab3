#!/bin/sh
# Validation (DESIGN.md §7). On this machine, without a GPU: steps 1-4 against the real cuDNN
# 9.19 and a decoy that shadows it. With a fake libcudnn and libcuda built here (CPU
# convolution): every failure path, each rolled back to the previous install.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"

note "the real cuDNN 9.19: steps 1-4 pass, 5-6 are skipped without a driver"
expect 0 "$UNPACKER" "$FX/real.bundle" --root "$W/real" $T
assert_contains last.out "2    library       pass   cuDNN 9.19.0"
assert_contains last.out "3    resolution    pass"
assert_contains last.out "4    dependencies  pass"
assert_contains last.out "5    driver        skip   no NVIDIA driver"
rep=$W/real/opt/cudnn/current/.cuferry/report.json
py - "$rep" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
assert v["result"] == "pass", v
st = {c["check"]: c["status"] for c in v["checks"]}
assert st["files"] == st["library"] == st["resolution"] == st["dependencies"] == "pass", st
assert st["driver"] == st["compute"] == "skip", st
lib = [c for c in v["checks"] if c["check"] == "library"][0]
assert all("/opt/cudnn/cudnn-9.19.0.56-cuda13/lib/" in p for p in lib["loaded"]), lib
PY
expect 0 "$UNPACKER" validate --root "$W/real"

note "a file changed after the install (same size): validate names it, exit 6"
f=$W/real/opt/cudnn/current/include/cudnn_version.h
cp "$f" saved.h
py -c "import sys; b = bytearray(open(sys.argv[1],'rb').read()); b[10] ^= 1; open(sys.argv[1],'wb').write(b)" "$f"
expect 6 "$UNPACKER" validate --root "$W/real"
assert_contains last.out "include/cudnn_version.h: SHA-256 differs from the manifest (changed after install)"
cp saved.h "$f"

note "--require-gpu without a GPU: exit 4, and nothing stays installed"
expect 4 "$UNPACKER" "$FX/small.bundle" --root "$W/nogpu" $T --require-gpu
[ ! -e "$W/nogpu/opt/cudnn/current" ] || fail "installed without the GPU it required"

# ---- fakes ----
header() { printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n'; }
mkfake() { # NAME CFLAGS...
	d=$W/src-$1; shift
	mkdir -p "$d/lib" "$d/include"
	header > "$d/include/cudnn_version.h"
	cc -shared -fPIC -o "$d/lib/libcudnn_graph.so.9" -Wl,-soname,libcudnn_graph.so.9 "$TOP/tests/tools/fakegraph.c"
	cc -shared -fPIC -O2 -I"$TOP" "$@" -o "$d/lib/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 \
		"$TOP/tests/tools/fakecudnn.c" "$TOP/unpacker/convref.c" "$d/lib/libcudnn_graph.so.9" -lm
	ln -sf libcudnn.so.9 "$d/lib/libcudnn.so"
}
counter=10
mkbundle() { # NAME
	counter=$((counter + 1))
	"$BUNDLER" create --from-dir "$W/src-$1" --cuda 13 --key "$FX/test.key" -o "$W/$1.bundle" \
		--counter $counter --level 1 -q >/dev/null
}
mkfake good;       mkbundle good
mkfake version -DFAKE_VERSION=91400;  mkbundle version
mkfake nocudart -DFAKE_NO_CUDART;     mkbundle nocudart
mkfake wrong -DFAKE_WRONG;            mkbundle wrong
mkfake crash -DFAKE_CRASH;            mkbundle crash
mkfake again;      mkbundle again

R=$W/fake
libdir=$R/usr/lib/x86_64-linux-gnu
mkdir -p "$libdir"
cc -shared -fPIC -o "$libdir/libcuda.so.580.95.05" -Wl,-soname,libcuda.so.1 "$TOP/tests/tools/fakecuda.c"
ln -sf libcuda.so.580.95.05 "$libdir/libcuda.so.1"
V="--quick-validate"

note "the fake cuDNN on the fake driver: all six steps pass"
expect 0 "$UNPACKER" good.bundle --root "$R" $T $V
assert_contains last.out "5    driver        pass   driver 580.95.05 (>= 580.65.06); GPU 0 Fake GPU (CPU), 1 GiB, sm 9.0"
assert_contains last.out "6    compute gpu0  pass"
assert_contains last.out "forward         algo 1"
snap=$(tree_listing "$R/opt/cudnn")

rolled_back() { # CASE: the good install is current again, unchanged
	[ "$(tree_listing "$R/opt/cudnn")" = "$snap" ] || fail "$1: the previous install was not restored"
	no_staging "$R"
}

note "wrong version: exit 6, rolled back"
expect 6 "$UNPACKER" version.bundle --root "$R" $T $V
assert_contains last.out "cudnnGetVersion() says 9.14.0, the manifest 9.19.0"
rolled_back version

note "a missing symbol: exit 6, rolled back"
expect 6 "$UNPACKER" nocudart.bundle --root "$R" $T $V
assert_contains last.out "does not export cudnnGetCudartVersion"
rolled_back nocudart

note "wrong numbers: exit 6, rolled back"
expect 6 "$UNPACKER" wrong.bundle --root "$R" $T $V
assert_contains last.out "MISMATCH"
assert_contains last.out "6    compute gpu0  fail"
rolled_back wrong

note "a crash inside cuDNN: the probe dies, the unpacker rolls back (exit 6)"
expect 6 "$UNPACKER" crash.bundle --root "$R" $T $V
assert_contains last.out "crashed inside the library (signal 11"
rolled_back crash

note "a sub-library loaded from elsewhere: exit 6, rolled back"
mkdir -p "$R/elsewhere"
cp "$W/src-good/lib/libcudnn_graph.so.9" "$R/elsewhere/"
echo /elsewhere > "$R/etc/ld.so.conf.d/00-aaa-elsewhere.conf"
snap=$(tree_listing "$R/opt/cudnn")
expect 6 "$UNPACKER" again.bundle --root "$R" $T $V
assert_contains last.out "$R/elsewhere/libcudnn_graph.so.9 was loaded from outside the install"
rolled_back elsewhere
rm "$R/etc/ld.so.conf.d/00-aaa-elsewhere.conf"

note "a driver too old for CUDA 13: exit 4, rolled back"
cp "$libdir/libcuda.so.580.95.05" "$libdir/libcuda.so.550.54.14"
ln -sf libcuda.so.550.54.14 "$libdir/libcuda.so.1"
expect 4 "$UNPACKER" again.bundle --root "$R" $T $V
assert_contains last.out "driver 550.54.14 is older than 580.65.06"
rolled_back driver
ln -sf libcuda.so.580.95.05 "$libdir/libcuda.so.1"

note "--keep-failed keeps a failing install, and still says so (exit 6)"
expect 6 "$UNPACKER" wrong.bundle --root "$R" $T $V --keep-failed --allow-downgrade
grep -q . "$R/opt/cudnn/current/lib/libcudnn.so.9" || fail "not kept"

note "a decoy earlier in the search path shadows the real install: named, with its version"
mkdir -p "$W/real/old"
cp "$W/src-version/lib/libcudnn.so.9" "$W/src-version/lib/libcudnn_graph.so.9" "$W/real/old/"
echo /old > "$W/real/etc/ld.so.conf.d/00-aaa-old.conf"
expect 6 "$UNPACKER" validate --root "$W/real"
assert_contains last.out "gets $W/real/old/libcudnn.so.9 (cuDNN 9.14.0), not the install"
