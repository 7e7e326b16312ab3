#!/bin/sh
# A --root laid out like a server NVIDIA's packages touched (issue 10 item 3): CUDA's
# ld.so.conf.d files pointing at a CUDA tree with an older cuDNN copied in, NVIDIA's
# libcudnn9-cuda-12 deb, a pip wheel, a conda environment, LD_LIBRARY_PATH set by someone else.
# The real cuDNN 9.19 installs, validates and wins; glibc's own ldconfig proves the order;
# doctor names every other copy, where it came from, what puts it on the search path and the
# command that removes it; the old ld.so.conf.d name is renamed by an upgrade, restored by a
# rollback, removed by uninstall.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
R=$W/root
T="--trust $FX/test.pub"
CUDA=/usr/local/cuda-12.8
TLIB=$CUDA/targets/x86_64-linux/lib
DEB=/usr/lib/x86_64-linux-gnu
VENV=/opt/venv
SITE=$VENV/lib/python3.11/site-packages
CONDA=/opt/conda/envs/old
LDCONF=$R/etc/ld.so.conf.d/00-cuferry-cudnn.conf
LEGACY=$R/etc/ld.so.conf.d/cuferry-cudnn.conf
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)

# An older cuDNN that reports its own version when loaded (a real file renamed would still
# say 9.19): the fake libcudnn and its libcudnn_graph, NVIDIA's file names and soname links.
version_header() { # MAJOR MINOR PATCH
	printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$1" "$2" "$3"
}
old_cudnn() { # DIR VERSION (x.y.z) [PLAIN]: PLAIN puts libcudnn.so.9 itself, as wheels do
	d=$R$1 v=$2
	mkdir -p "$d" "$d/../include"
	num=$(echo "$v" | awk -F. '{ printf "%d%02d%02d", $1, $2, $3 }')
	cc -shared -fPIC -o "$d/libcudnn_graph.so.$v" -Wl,-soname,libcudnn_graph.so.9 "$TOP/tests/tools/fakegraph.c"
	ln -sf "libcudnn_graph.so.$v" "$d/libcudnn_graph.so.9"
	name=libcudnn.so.$v
	[ $# -lt 3 ] || name=libcudnn.so.9
	cc -shared -fPIC -O2 -I"$TOP" -DFAKE_VERSION="$num" -o "$d/$name" -Wl,-soname,libcudnn.so.9 \
		"$TOP/tests/tools/fakecudnn.c" "$TOP/unpacker/validate/convref.c" "$d/libcudnn_graph.so.9" -lm
	[ "$name" = libcudnn.so.9 ] || ln -sf "$name" "$d/libcudnn.so.9"
	version_header $(echo "$v" | tr . ' ') > "$d/../include/cudnn_version.h"
}

note "a root laid out like a machine NVIDIA's packages touched"
mkdir -p "$R/etc/ld.so.conf.d" "$R/etc/profile.d" "$R/etc/alternatives" "$R/var/lib/dpkg/info" \
	"$R/var/cache/ldconfig" "$R/usr/local/lib" "$R$CUDA/bin"
echo 'include /etc/ld.so.conf.d/*.conf' > "$R/etc/ld.so.conf"
printf '# libc default configuration\n/usr/local/lib\n' > "$R/etc/ld.so.conf.d/libc.conf"
printf '# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n%s\n' "$DEB" \
	> "$R/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
# cuda-toolkit-config-common and cuda-toolkit-12-config-common; /usr/local/cuda goes through
# the alternatives system, links absolute inside the root (NVIDIA's 988 file names
# /usr/local/cuda-12, another such link; the direct name keeps the copy visible to
# validation, which cannot follow a link that is absolute inside the root).
echo /usr/local/cuda/targets/x86_64-linux/lib > "$R/etc/ld.so.conf.d/000_cuda.conf"
echo "$TLIB" > "$R/etc/ld.so.conf.d/988_cuda-12.conf"
# nvidia-container-toolkit's file, named to sort early for the same reason as ours
echo "$DEB" > "$R/etc/ld.so.conf.d/00-nvcr-2134569872.conf"
ln -s "$CUDA" "$R/etc/alternatives/cuda"
ln -s /etc/alternatives/cuda "$R/usr/local/cuda"
ln -s targets/x86_64-linux/lib "$R$CUDA/lib64"
# CUDA 13's cuBLAS and NVRTC (NVIDIA's libcublas-13-0 and cuda-nvrtc-13-0 packages) and the
# system's zlib, as files of the image: step 4 looks them up there and never loads them.
mkdir -p "$R$DEB"
for l in libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13 libz.so.1; do
	echo 'int cuferry_stand_in;' | cc -shared -fPIC -x c -o "$R$DEB/$l" -Wl,-soname,$l -
done
# the older cuDNN copied into the CUDA tree, as the seeds' guides say
old_cudnn "$TLIB" 9.1.0
: > "$R$TLIB/libcudart.so.12.8.90"
ln -s libcudart.so.12.8.90 "$R$TLIB/libcudart.so.12"
printf '/.\n/usr\n/usr/local\n%s\n%s/targets/x86_64-linux/lib\n%s/libcudart.so.12.8.90\n%s/libcudart.so.12\n' \
	"$CUDA" "$CUDA" "$TLIB" "$TLIB" > "$R/var/lib/dpkg/info/cuda-cudart-12-8.list"
# NVIDIA's libcudnn9-cuda-12 deb in the multiarch directory, with dpkg's list of its files
old_cudnn "$DEB" 9.8.0
printf '/.\n/usr\n/usr/lib\n%s\n%s/libcudnn.so.9.8.0\n%s/libcudnn.so.9\n%s/libcudnn_graph.so.9.8.0\n%s/libcudnn_graph.so.9\n' \
	"$DEB" "$DEB" "$DEB" "$DEB" "$DEB" > "$R/var/lib/dpkg/info/libcudnn9-cuda-12.list"
# a pip wheel in a virtual environment
old_cudnn "$SITE/nvidia/cudnn/lib" 9.5.1 plain
mkdir -p "$R$SITE/nvidia_cudnn_cu12-9.5.1.17.dist-info" "$R$VENV/bin"
printf 'Name: nvidia-cudnn-cu12\nVersion: 9.5.1.17\n' > "$R$SITE/nvidia_cudnn_cu12-9.5.1.17.dist-info/METADATA"
: > "$R$VENV/bin/python3.11"
ln -s python3.11 "$R$VENV/bin/python3"
# a conda environment
old_cudnn "$CONDA/lib" 9.3.0
mkdir -p "$R$CONDA/conda-meta"
echo '{"name": "cudnn", "version": "9.3.0.75"}' > "$R$CONDA/conda-meta/cudnn-9.3.0.75-h93e8bbd_0.json"
# LD_LIBRARY_PATH and PATH set by someone else, for login sessions (pam_env and profile.d)
printf 'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\nLD_LIBRARY_PATH="/usr/local/cuda/extras/CUPTI/lib64"\n' \
	> "$R/etc/environment"
printf 'export PATH=%s/bin${PATH:+:${PATH}}\n' "$CUDA" > "$R/etc/profile.d/cuda-path.sh"

# ldconfig_first: the file glibc's real ldconfig puts first in the root's cache for
# libcudnn.so.9 (the loader takes the first entry); -X: no links made, only the cache.
ldconfig_first() {
	rm -f "$R/etc/ld.so.cache"
	LC_ALL=C.UTF-8 "$LDCONFIG" -X -r "$R" 2>"$W/ldconfig.err" || { cat "$W/ldconfig.err" >&2; fail "ldconfig -r failed"; }
	"$LDCONFIG" -p -r "$R" > "$W/cache.txt"
	sed -n 's/^[[:space:]]*libcudnn\.so\.9 (.*) => //p' "$W/cache.txt" | head -1
}

note "an earlier unpacker's install, under the old name (cuferry-cudnn.conf): NVIDIA's files win"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate
mv "$LDCONF" "$LEGACY"
printf '# written by an earlier unpacker\n' >> "$LEGACY"
cp "$LEGACY" legacy.saved
first=$(ldconfig_first)
# 00-nvcr-… sorts first and names the deb's directory; 000_cuda.conf's copy comes next (the
# same directory through 988_cuda-12.conf is taken once); ours last.
[ "$first" = $DEB/libcudnn.so.9 ] || { cat "$W/cache.txt" >&2; fail "with the old name ldconfig puts $first first"; }
sed -n 's/^[[:space:]]*libcudnn\.so\.9 (.*) => //p' "$W/cache.txt" > order.txt
printf '%s\n' $DEB/libcudnn.so.9 /usr/local/cuda/targets/x86_64-linux/lib/libcudnn.so.9 \
	/opt/cudnn/current/lib/libcudnn.so.9 | cmp - order.txt || { cat "$W/cache.txt" >&2; fail "ldconfig's order"; }
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
assert_contains last.err "shadowed by $R$DEB/libcudnn.so.9.8.0 (cuDNN 9.8.0, deb package libcudnn9-cuda-12)"
assert_contains last.err "put on the search path by $R/etc/ld.so.conf.d/00-nvcr-2134569872.conf (ld cache); fix: chroot $R apt-get remove libcudnn9-cuda-12"
one_line_reason
expect 6 "$UNPACKER" validate --root "$R" $T --quick-validate
assert_contains last.out "9.8.0"

note "a failed install puts back exactly what was there (the old name, its bytes)"
mkdir -p bad/lib bad/include
version_header 9 19 1 > bad/include/cudnn_version.h
cc -shared -fPIC -o bad/lib/libcudnn_graph.so.9 -Wl,-soname,libcudnn_graph.so.9 "$TOP/tests/tools/fakegraph.c"
cc -shared -fPIC -O2 -I"$TOP" -DFAKE_VERSION=91400 -o bad/lib/libcudnn.so.9 -Wl,-soname,libcudnn.so.9 \
	"$TOP/tests/tools/fakecudnn.c" "$TOP/unpacker/validate/convref.c" bad/lib/libcudnn_graph.so.9 -lm
"$BUNDLER" create --from-dir "$W/bad" --cuda 13 --key "$FX/test.key" -o bad.bundle --counter 5 --level 1 -q >/dev/null
expect 6 "$UNPACKER" bad.bundle --root "$R" $T --quick-validate
cmp "$LEGACY" legacy.saved || fail "the old file was not restored byte for byte"
[ ! -e "$LDCONF" ] || fail "the new name is left after the rollback"
[ ! -e "$R/opt/cudnn/.cuferry/env-before.json" ] || fail "the snapshot is left after the rollback"

note "killed (-9) right after the environment was written: the next command puts the old file back"
CUFERRY_FAULT=env:pause "$UNPACKER_SEAMS" bad.bundle --root "$R" $T --quick-validate >/dev/null 2>&1 &
pid=$!
wait_paused $pid "the env step"
[ -f "$LDCONF" ] && [ ! -e "$LEGACY" ] || fail "the install had not renamed the old file when paused"
kill -9 $pid; wait $pid 2>/dev/null || true
expect 0 "$UNPACKER" use cudnn-9.19.0-cuda13 --root "$R" --no-env
cmp "$LEGACY" legacy.saved || fail "the old file was not restored after the kill"
[ ! -e "$LDCONF" ] || fail "the new name is left after the kill"

note "the upgrade to the real cuDNN 9.19 renames the old file, passes validation 1-4, wins"
expect 0 "$UNPACKER" "$FX/real.bundle" --root "$R" $T
for step in "1    files         pass" "2    library       pass" "3    resolution    pass" \
	"4    dependencies  pass"; do
	assert_contains last.out "$step"
done
[ ! -e "$LEGACY" ] || fail "the old name is still there after the upgrade"
[ ! -e "$R/opt/cudnn/.cuferry/env-before.json" ] || fail "the snapshot is left after the install"
assert_contains "$LDCONF" "^/opt/cudnn/current/lib$"

note "glibc's ldconfig, on this root, puts the install first (byte order: 00- before 000_)"
first=$(ldconfig_first)
[ "$first" = /opt/cudnn/current/lib/libcudnn.so.9 ] || { cat "$W/cache.txt" >&2; fail "ldconfig puts $first first"; }
sed -n 's/^[[:space:]]*libcudnn\.so\.9 (.*) => //p' "$W/cache.txt" > order.txt
printf '%s\n' /opt/cudnn/current/lib/libcudnn.so.9 $DEB/libcudnn.so.9 \
	/usr/local/cuda/targets/x86_64-linux/lib/libcudnn.so.9 | cmp - order.txt || { cat "$W/cache.txt" >&2; fail "ldconfig's order"; }

note "doctor names every other copy, its origin, its version, what puts it on the path, the fix"
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
out=last.out
assert_contains $out "=> 9.19.0     $R/opt/cudnn/cudnn-9.19.0.56-cuda13/lib/libcudnn.so.9"
assert_contains $out "9.1.0      $R$TLIB/libcudnn.so.9.1.0"
assert_contains $out "from: copied into a CUDA toolkit directory (no package owns it)"
assert_contains $out "through: $R/etc/ld.so.conf.d/000_cuda.conf (ld cache); $R/etc/ld.so.conf.d/988_cuda-12.conf (ld cache)"
assert_contains $out "fix: rm $R$TLIB/libcudnn\*"
assert_contains $out "9.8.0      $R$DEB/libcudnn.so.9.8.0"
assert_contains $out "from: deb package libcudnn9-cuda-12"
assert_contains $out "through: $R/etc/ld.so.conf.d/00-nvcr-2134569872.conf (ld cache); $R/etc/ld.so.conf.d/x86_64-linux-gnu.conf (ld cache); a default library directory"
assert_contains $out "fix: chroot $R apt-get remove libcudnn9-cuda-12"
assert_contains $out "9.5.1      $R$SITE/nvidia/cudnn/lib/libcudnn.so.9"
assert_contains $out "from: pip wheel nvidia-cudnn-cu12 9.5.1.17 in $SITE"
assert_contains $out "fix: chroot $R $VENV/bin/python3 -m pip uninstall nvidia-cudnn-cu12"
assert_contains $out "9.3.0      $R$CONDA/lib/libcudnn.so.9.3.0"
assert_contains $out "from: conda package cudnn in the old environment ($CONDA)"
assert_contains $out "fix: chroot $R conda remove -p $CONDA cudnn"
assert_contains $out "from: cuferry install cudnn-9.19.0-cuda13 in /opt/cudnn"
assert_contains $out "fix: unpacker uninstall cudnn-9.19.0-cuda13 --root $R"
[ "$(grep -c 'through: nothing' $out)" -eq 3 ] || fail "the wheel, conda and the older install are on no search path"
assert_contains $out "a login shell (LD_LIBRARY_PATH set in /etc/environment or profile.d) gets $R/opt/cudnn/"
assert_contains $out "the installed copy wins"
grep -q 'zz-cuda-13-0\|fakeroot' $out && fail "doctor read the host's ld.so.conf.d"

note "the same with a relative --root, from the directory above it"
(cd "$W" && expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root root)
assert_contains last.out "=> 9.19.0     root/opt/cudnn/cudnn-9.19.0.56-cuda13/lib/libcudnn.so.9"
assert_contains last.out "from: deb package libcudnn9-cuda-12"
assert_contains last.out "through: root/etc/ld.so.conf.d/000_cuda.conf (ld cache); root/etc/ld.so.conf.d/988_cuda-12.conf (ld cache)"

note "someone's profile.d script puts the CUDA library directory first: doctor says so (exit 6)"
printf 'export LD_LIBRARY_PATH=%s/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}\n' "$CUDA" > "$R/etc/profile.d/cuda-libs.sh"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
assert_contains last.err "shadowed by $R$TLIB/libcudnn.so.9.1.0 (cuDNN 9.1.0, copied into a CUDA toolkit directory"
assert_contains last.err "for a login shell"
assert_contains last.err "put on the search path by LD_LIBRARY_PATH in $R/etc/profile.d/cuda-libs.sh; fix: rm $R$TLIB/libcudnn"
one_line_reason
rm "$R/etc/profile.d/cuda-libs.sh"

note "LD_LIBRARY_PATH in /etc/environment naming the conda environment: exit 6, named"
cp "$R/etc/environment" environment.saved
printf 'LD_LIBRARY_PATH="/usr/local/cuda/extras/CUPTI/lib64:%s/lib"\n' "$CONDA" > "$R/etc/environment"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
assert_contains last.err "shadowed by $R$CONDA/lib/libcudnn.so.9.3.0 (cuDNN 9.3.0, conda package cudnn"
assert_contains last.err "by LD_LIBRARY_PATH in $R/etc/environment; fix: chroot $R conda remove -p $CONDA cudnn"
one_line_reason
cp environment.saved "$R/etc/environment"

note "a re-run of the same install (nothing to do) renames the old file too, from / with umask 077"
mv "$LDCONF" "$LEGACY"
(cd / && umask 077 && expect 0 "$UNPACKER" "$FX/real.bundle" --root "$R" $T)
[ ! -e "$LEGACY" ] && [ -f "$LDCONF" ] || fail "the re-run did not rename the old file"
[ "$(stat -c %a "$LDCONF")" = 644 ] || fail "$LDCONF is not 0644"
(cd / && umask 077 && expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R")

note "use renames the old file too; uninstall --force of current hands over (renaming it too); the last one removes both names"
mv "$LDCONF" "$LEGACY"
expect 0 "$UNPACKER" use cudnn-9.19.0-cuda13 --root "$R"
[ ! -e "$LEGACY" ] && [ -f "$LDCONF" ] || fail "use did not rename the old file"
cp "$LDCONF" "$LEGACY"
# cuDNN 9.19.0.56 is still installed: it becomes current, the environment stays (issue 25).
expect 0 "$UNPACKER" uninstall cudnn-9.19.0-cuda13 --force --root "$R"
[ ! -e "$LEGACY" ] && [ -f "$LDCONF" ] || fail "uninstall --force with an install left: not one ld.so.conf.d file"
cp "$LDCONF" "$LEGACY"
expect 0 "$UNPACKER" uninstall cudnn-9.19.0.56-cuda13 --force --root "$R"
[ ! -e "$LEGACY" ] && [ ! -e "$LDCONF" ] || fail "uninstall left an ld.so.conf.d file"
