#!/bin/sh
# packages.sh - the Debian packages of a list that are not installed, for the Makefile.
#
#   packages.sh missing PKG...   print the missing ones, one line (nothing when all are there)
#   packages.sh check PKG...     the same as one line on stderr that says to run `make deps`,
#                                and exit 1; exit 0 when all are there
#
# Only `make deps` installs (apt-get, as root): a plain `make` never changes the system.
# Where there is no dpkg (not a Debian-like system) nothing can be checked and nothing is
# reported: the compiler's own error names what is missing.
set -eu
mode=${1:-}
[ $# -gt 0 ] && shift
command -v dpkg-query >/dev/null 2>&1 || exit 0
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
missing=${missing# }
case $mode in
missing) [ -z "$missing" ] || echo "$missing" ;;
check)
	[ -z "$missing" ] && exit 0
	echo "make: missing Debian packages: $missing; run \`make deps\` (as root)" >&2
	exit 1 ;;
*) echo "usage: packages.sh missing|check PKG..." >&2; exit 1 ;;
esac
