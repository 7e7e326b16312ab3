#!/bin/sh
# The release unpacker on an older Linux: a Debian 11 (bullseye, glibc 2.31) root made with
# debootstrap --variant=minbase (tools/debian-root.sh, cached outside the checkout), copied,
# entered with chroot and /proc mounted. The real install path runs inside it: install,
# re-run, validate with fake libraries (a fake libcuda in the root's own library directory),
# a second version, use, uninstall. Needs root (chroot, mount).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
skip_if_sanitizer "libasan is not in the Debian 11 root (make test runs the release unpacker there)"
[ "$(id -u)" = 0 ] || fail "needs root for chroot and mount"
ROOTFS=$(sh "$TOP/tools/debian-root.sh" bullseye)
DEPS=$(sh "$TOP/tools/deps.sh" --dir linux-x86_64)
C=$W/bullseye
cp -a "$ROOTFS" "$C"
mkdir -p "$C/proc"
mount -t proc proc "$C/proc"
CLEANUP="$CLEANUP umount '$C/proc';"
# in_root CMD...: run in the chroot with a clean environment
in_root() { chroot "$C" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C "$@"; }

note "the root is glibc 2.31, and a binary built here without the floor does not start in it"
in_root ldd --version | head -1 | grep -q ' 2\.31$' || fail "not a glibc 2.31 root: $(in_root ldd --version | head -1)"
printf '#include <sys/stat.h>\nint main(int c, char **v) { struct stat s; return stat(v[0], &s); }\n' > ctl.c
cc -O2 ctl.c -o "$C/ctl"
expect 1 in_root /ctl
assert_contains "$W/last.err" "GLIBC_2.33' not found"

# Fake cuDNN and libcuda (tests/tools/fake*.c), built with the same symbol pins as the
# unpacker so that they, too, load on glibc 2.31.
FLOOR="-include $DEPS/include/cuferry-glibc-floor.h"
mkfake() { # NAME PATCHLEVEL
	d=$W/src-$1
	mkdir -p "$d/lib" "$d/include"
	printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL %s\n' "$2" > "$d/include/cudnn_version.h"
	cc $FLOOR -shared -fPIC -o "$d/lib/libcudnn_graph.so.9" -Wl,-soname,libcudnn_graph.so.9 "$TOP/tests/tools/fakegraph.c"
	cc $FLOOR -shared -fPIC -O2 -I"$TOP" -DFAKE_VERSION=$((91900 + $2)) -o "$d/lib/libcudnn.so.9" \
		-Wl,-soname,libcudnn.so.9 "$TOP/tests/tools/fakecudnn.c" "$TOP/unpacker/validate/convref.c" \
		"$d/lib/libcudnn_graph.so.9" -lm
	ln -sf libcudnn.so.9 "$d/lib/libcudnn.so"
	"$BUNDLER" create --from-dir "$d" --cuda 13 --key "$FX/test.key" -o "$C/tmp/$1.bundle" \
		--counter $((20 + $2)) --level 1 -q >/dev/null
}
mkfake first 0
mkfake second 1
libdir=$C/usr/lib/x86_64-linux-gnu
cc $FLOOR -shared -fPIC -o "$libdir/libcuda.so.580.95.05" -Wl,-soname,libcuda.so.1 "$TOP/tests/tools/fakecuda.c"
ln -sf libcuda.so.580.95.05 "$libdir/libcuda.so.1"
# What step 4 wants beside cuDNN (the bundles list cuBLAS and NVRTC, not included): empty
# libraries under the right names, as a CUDA runtime installed from packages would put them.
: > empty.c
for so in libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13; do
	cc -shared -fPIC -o "$libdir/$so" -Wl,-soname,$so empty.c
done
in_root ldconfig
cp "$UNPACKER" "$C/usr/local/bin/unpacker"
cp "$FX/test.pub" "$C/tmp/test.pub"
U="in_root /usr/local/bin/unpacker"

note "install: six validation steps pass on glibc 2.31"
expect 0 $U install /tmp/first.bundle --trust /tmp/test.pub --quick-validate
assert_contains last.out "5    driver        pass"
assert_contains last.out "6    compute gpu0  pass"
P=$C/opt/cudnn
[ "$(readlink "$P/current")" = cudnn-9.19.0-cuda13 ] || fail "current is not the new install"
cmp "$P/current/lib/libcudnn.so.9" "$W/src-first/lib/libcudnn.so.9" || fail "installed library differs"

note "re-run: a no-op"
expect 0 $U install /tmp/first.bundle --trust /tmp/test.pub --quick-validate
assert_contains last.out "already installed"

note "validate, and the loader of the root finds the install"
expect 0 $U validate --trust /tmp/test.pub --quick-validate
in_root ldconfig -p | grep -q '/opt/cudnn/current/lib/libcudnn.so.9' ||
	fail "ldconfig of the root does not list the installed libcudnn"

note "a second version, list, use the first again, uninstall"
expect 0 $U install /tmp/second.bundle --trust /tmp/test.pub --quick-validate
[ "$(readlink "$P/current")" = cudnn-9.19.1-cuda13 ] || fail "the second install is not current"
expect 0 $U list
assert_contains last.out "cudnn-9.19.0-cuda13"
assert_contains last.out "cudnn-9.19.1-cuda13"
expect 0 $U use cudnn-9.19.0-cuda13
[ "$(readlink "$P/current")" = cudnn-9.19.0-cuda13 ] || fail "use did not switch"
expect 0 $U uninstall cudnn-9.19.1-cuda13
[ ! -e "$P/cudnn-9.19.1-cuda13" ] || fail "uninstall left the directory"
expect 0 $U uninstall cudnn-9.19.0-cuda13 --force
[ ! -e "$P/current" ] || fail "current left after the last uninstall"
echo "ok"
