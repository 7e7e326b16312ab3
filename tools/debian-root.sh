#!/bin/sh
# debian-root.sh SUITE - print the path of a minimal Debian root of SUITE (e.g. bullseye),
# made once with `debootstrap --variant=minbase` from the Debian mirror apt uses
# ($CUFERRY_DEBIAN_MIRROR overrides) and cached beside the libraries of deps.sh, outside the
# checkout: ${CUFERRY_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuferry-deps}/rootfs/.
# The cached root is never modified: tests copy it (cp -a, about 215 MB) and work on the copy.
# Needs root (debootstrap) and about 30 seconds of downloads the first time.
set -eu
suite=${1:?usage: debian-root.sh SUITE}
cache=${CUFERRY_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuferry-deps}
root=$cache/rootfs/$suite-$(dpkg --print-architecture)
mirror=${CUFERRY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [ ! -f "$root/.cuferry-complete" ]; then
	command -v debootstrap >/dev/null || { echo "debian-root.sh: debootstrap not found (make deps)" >&2; exit 1; }
	mkdir -p "$cache/rootfs"
	exec 9>"$cache/rootfs/.lock"
	flock 9
	if [ ! -f "$root/.cuferry-complete" ]; then
		rm -rf "$root.tmp" "$root"
		debootstrap --variant=minbase "$suite" "$root.tmp" "$mirror" >"$cache/rootfs/$suite.log" 2>&1 ||
			{ tail -20 "$cache/rootfs/$suite.log" >&2; echo "debian-root.sh: debootstrap $suite failed" >&2; exit 1; }
		touch "$root.tmp/.cuferry-complete"
		mv "$root.tmp" "$root"
	fi
fi
echo "$root"
