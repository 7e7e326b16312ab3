#!/bin/sh
# fleet-rootfs.sh OUT_DIR - a minimal Debian 12 root for the fleet tests (a chroot host and the
# podman image): debootstrap minbase with python3 (Ansible's modules need it), made once and
# kept under the build directory. Needs the Debian mirror (make deps does too); prints the
# reason and exits 1 when it cannot be made.
set -eu
out=$1
[ -x "$out/usr/bin/python3" ] && exit 0
command -v debootstrap >/dev/null || { echo "debootstrap not installed (make deps installs it)"; exit 1; }
mirror=${CUFERRY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$(dirname "$out")"
rm -rf "$out.tmp"
if ! debootstrap --variant=minbase --include=python3 bookworm "$out.tmp" "$mirror" > "$out.log" 2>&1; then
	rm -rf "$out.tmp"
	echo "debootstrap from $mirror failed (log: $out.log)"
	exit 1
fi
rm -rf "$out.tmp/var/cache/apt/archives"/*.deb
mv "$out.tmp" "$out"
