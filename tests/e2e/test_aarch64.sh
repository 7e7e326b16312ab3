#!/bin/sh
# The linux-sbsa (aarch64) unpacker, build/linux-sbsa/unpacker, under qemu-aarch64-static:
# a linux-sbsa bundle of fake aarch64 libraries (tests/tools/fake*.c, cross-built) installed
# into --root, validated (the probe is the unpacker executing itself, so the run goes
# through tests/tools/arm-sandbox.py: binfmt_misc in a private user namespace), uninstalled.
# The tree it runs in holds Debian's aarch64 C library (libc6-arm64-cross) and nothing else.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
SBSA=$B/linux-sbsa/unpacker
ACC=${SBSA_CC:-aarch64-linux-gnu-gcc}
[ -x "$SBSA" ] || fail "$SBSA missing (make builds it)"
A=$W/aroot
mkdir -p "$A/lib" "$A/usr/lib/aarch64-linux-gnu" "$A/usr/local/bin" "$A/tmp" "$A/proc" "$A/etc"
cp -a /usr/aarch64-linux-gnu/lib "$A/lib/aarch64-linux-gnu"
ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$A/lib/ld-linux-aarch64.so.1"
cp "$SBSA" "$A/usr/local/bin/unpacker"
cp "$FX/test.pub" "$A/tmp/test.pub"
arm() { py "$TOP/tests/tools/arm-sandbox.py" "$A" "$@"; }

note "the sandbox runs aarch64 programs that execute themselves"
expect 0 arm /usr/local/bin/unpacker --help
assert_contains last.out "usage: unpacker"

# Fake cuDNN (aarch64) in a linux-sbsa bundle; fake libcuda, and empty libraries under the
# names step 4 wants (cuBLAS, NVRTC, zlib: this machine has no aarch64 builds of them), in
# the root's library directory and in the machine's (whichever validation reads).
mkdir -p src/lib src/include
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > src/include/cudnn_version.h
$ACC -shared -fPIC -o src/lib/libcudnn_graph.so.9 -Wl,-soname,libcudnn_graph.so.9 "$TOP/tests/tools/fakegraph.c"
# $ORIGIN: the probe loads libcudnn.so.9 by its absolute path with no LD_LIBRARY_PATH, and the
# sub-library is found beside it, as the real cuDNN 9 finds its own.
$ACC -shared -fPIC -O2 -I"$TOP" -o src/lib/libcudnn.so.9 -Wl,-soname,libcudnn.so.9 -Wl,-rpath,'$ORIGIN' \
	"$TOP/tests/tools/fakecudnn.c" "$TOP/unpacker/validate/convref.c" src/lib/libcudnn_graph.so.9 -lm
ln -sf libcudnn.so.9 src/lib/libcudnn.so
# The CUDA component list for linux-sbsa: the fixtures' file:// mirror (made from this
# x86_64 toolkit) with each CUDA 13 component also published for linux-sbsa.
cp -R "$FX/file-mirror" mirror
py - mirror/cuda/redist <<'PY'
import glob, json, os, sys
for f in glob.glob(os.path.join(sys.argv[1], "redistrib_13*.json")):
    d = json.load(open(f))
    for v in d.values():
        if isinstance(v, dict) and "linux-x86_64" in v:
            v.setdefault("linux-sbsa", dict(v["linux-x86_64"]))
    json.dump(d, open(f, "w"), indent=1)
PY
"$BUNDLER" create --from-dir src --platform linux-sbsa --cuda 13 --key "$FX/test.key" \
	--mirror "file://$W/mirror" -o "$A/tmp/fake-sbsa.bundle" --counter 30 --level 1 -q >/dev/null
: > empty.c
for d in "$A/usr/lib/aarch64-linux-gnu" "$A/r/usr/lib/aarch64-linux-gnu"; do
	mkdir -p "$d"
	$ACC -shared -fPIC -o "$d/libcuda.so.580.95.05" -Wl,-soname,libcuda.so.1 "$TOP/tests/tools/fakecuda.c"
	ln -sf libcuda.so.580.95.05 "$d/libcuda.so.1"
	for so in libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13 libz.so.1; do
		$ACC -shared -fPIC -o "$d/$so" -Wl,-soname,$so empty.c
	done
done
U="arm /usr/local/bin/unpacker"

note "install into --root: all six validation steps pass on aarch64"
expect 0 $U install /tmp/fake-sbsa.bundle --root /r --trust /tmp/test.pub --quick-validate
assert_contains last.out "5    driver        pass"
assert_contains last.out "6    compute gpu0  pass"
P=$A/r/opt/cudnn
[ "$(readlink "$P/current")" = cudnn-9.19.0-cuda13 ] || fail "current is not the new install"
cmp "$P/current/lib/libcudnn.so.9" src/lib/libcudnn.so.9 || fail "installed library differs"

note "verify and validate again"
expect 0 $U verify /tmp/fake-sbsa.bundle --trust /tmp/test.pub
expect 0 $U validate --root /r --trust /tmp/test.pub --quick-validate

note "uninstall"
expect 0 $U uninstall cudnn-9.19.0-cuda13 --root /r --force
[ ! -e "$P/current" ] || fail "current left after the uninstall"
[ ! -e "$P/cudnn-9.19.0-cuda13" ] || fail "uninstall left the directory"
echo "ok"
