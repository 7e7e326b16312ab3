#!/bin/sh
# fresh-ci.sh [--keep] [--rev REV] [--reuse-deps] - run .ci/run on a clean clone of REV (default HEAD) inside
# a freshly debootstrapped Debian 12 root (its own mount namespace), so that a missing install step shows before a
# submission does: CI runs on a used machine, where a package or file someone once installed
# by hand hides it.
#
# The root starts as `debootstrap --variant=minbase bookworm` plus make and git (what every
# machine here starts with and what .ci/run needs before `make deps`); everything else must
# come from `make deps`. The one thing Debian does not package, the CUDA toolkit with its
# cuDNN and NCCL, is brought in as the machines have it: its directory bind-mounted read-only,
# the /usr/local/cuda link, its ld.so.conf.d entry and its bin/ on PATH. ../shared is copied
# beside the clone without write bits, as CI lays it.
#
# Needs root, debootstrap and the network to Debian's mirror. About an hour on 2 cores (most
# of it `make test`); the time is printed at the end. The root lives under ${TMPDIR:-/var/tmp}
# and is removed afterwards unless --keep is given; the log is kept beside it.
#
# --reuse-deps copies this machine's cache of the pinned static libraries (tools/deps.sh,
# keyed by their versions and build scripts) into the root, saving the 20-30 minutes of
# building them; everything else stays fresh. A run that changes tools/deps.sh or its inputs
# gets a new key and builds them anyway.
#
# Exit: .ci/run's status; 2 for a usage or setup error.
set -eu
keep=0 rev=HEAD reuse_deps=0
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1 ;;
	--reuse-deps) reuse_deps=1 ;;
	--rev) rev=${2:?--rev needs a revision}; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "fresh-ci.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "fresh-ci.sh: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot and bind mounts need it)"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
top=$(cd "$(dirname "$0")/.." && pwd)
git -C "$top" rev-parse --verify -q "$rev^{commit}" >/dev/null || die "no commit '$rev' in $top"
cuda=$(readlink -f /usr/local/cuda 2>/dev/null || true)
[ -n "$cuda" ] && [ -x "$cuda/bin/nvcc" ] || die "no CUDA toolkit at /usr/local/cuda (the machines come with one)"
shared=$top/../shared

root=$(mktemp -d "${TMPDIR:-/var/tmp}/cuferry-fresh-ci.XXXXXX")
log=$root.log
chmod 0755 "$root"
mounted=""
cleanup() {
	status=$?
	set +e
	# Unmount in reverse order; a lazy unmount for anything a leftover process still holds.
	for m in $mounted; do umount -R "$m" 2>/dev/null || umount -lR "$m"; done
	if grep -q " $root/" /proc/mounts; then
		echo "fresh-ci.sh: something is still mounted under $root: not removed" >&2
	elif [ "$keep" = 0 ]; then rm -rf --one-file-system "$root"
	else echo "fresh-ci.sh: root kept in $root"; fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# mount_in DIR MOUNT-ARGS: mount onto DIR inside the root, remembered for the cleanup.
mount_in() { d=$root$1; shift; mkdir -p "$d"; mount "$@" "$d" && mounted="$d $mounted"; }

start=$(date +%s)
echo "fresh-ci.sh: debootstrap Debian 12 into $root (log: $log)"
debootstrap --variant=minbase --include=make,git,ca-certificates bookworm "$root" \
	"${CUFERRY_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "debootstrap failed"; }
# The machine's apt settings (its mirror and the security suite), so apt-get reaches what the
# machine reaches; nothing else of the host's configuration.
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null || true
[ ! -f /etc/apt/sources.list ] || cp /etc/apt/sources.list "$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"

# The CUDA toolkit, read-only, as the machines have it.
mount_in "$cuda" --bind "$cuda"
mount -o remount,bind,ro "$root$cuda"
ln -sfn "$(basename "$cuda")" "$root/usr/local/cuda"
echo "$cuda/lib" > "$root/etc/ld.so.conf.d/zz-cuda.conf"
chroot "$root" ldconfig

# The kernel's file systems (the tests use /proc, FUSE, user namespaces and cgroups).
mount_in /proc -t proc proc
mount_in /sys --rbind /sys
mount_in /dev --rbind /dev
mount_in /run -t tmpfs tmpfs

deps_cache=${CUFERRY_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuferry-deps}
if [ "$reuse_deps" = 1 ] && [ -d "$deps_cache" ]; then
	mkdir -p "$root/root/.cache"
	cp -a "$deps_cache" "$root/root/.cache/cuferry-deps"
fi

# A clean clone of REV, as CI makes one, and shared/ beside it without write bits.
mkdir -p "$root/ci"
git clone -q --no-local "$top" "$root/ci/main"
git -C "$root/ci/main" checkout -q --detach "$(git -C "$top" rev-parse "$rev")"
if [ -d "$shared" ]; then
	cp -R "$shared" "$root/ci/shared"
	chmod -R a-w "$root/ci/shared"
fi

echo "fresh-ci.sh: bash .ci/run on $(git -C "$top" rev-parse --short=12 "$rev") inside the root"
set +e
# The root becomes the root of a mount namespace of its own (pivot_root, not chroot): the
# kernel refuses user namespaces to a chrooted process, and the tests make some
# (tests/tools/arm-sandbox.py).
{ unshare --mount --propagation private --fork -- sh -c '
	mount --rbind "$1" "$1" && cd "$1" && mkdir -p .old-root && pivot_root . .old-root &&
		umount -l /.old-root && rmdir /.old-root || exit 2
	exec /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb CI=true \
		PATH="/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		CUDA_HOME=/usr/local/cuda sh -c "cd /ci/main && exec bash .ci/run"' sh "$root" \
	</dev/null 2>&1; echo $? > "$root.rc"; } | tee -a "$log"
status=$(cat "$root.rc"); rm -f "$root.rc"
set -e
elapsed=$(( $(date +%s) - start ))
echo "fresh-ci.sh: $( [ "$status" = 0 ] && echo passed || echo FAILED ) in $((elapsed / 60)) min $((elapsed % 60)) s (log: $log)"
exit "$status"
