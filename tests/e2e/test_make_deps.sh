#!/bin/sh
# Plain `make` never installs (issue 9): its recipes hold no apt-get and no dpkg
# --add-architecture, and a missing Debian package stops it before any compile with one line
# that says to run `make deps` (as root). `make deps` is the one target that installs.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
# The suite runs under make test: its -j and jobserver are not this make's.

note "make -n: what plain make would run installs nothing"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" -n B="$W/b" all > all.recipes 2>&1 || { cat all.recipes; fail "make -n all"; }
grep -q 'cc .*-c ' all.recipes || fail "make -n all shows no compile: $(head -5 all.recipes)"
! grep -E 'apt-get|dpkg --add-architecture|sudo' all.recipes || fail "plain make would install"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" -n deps > deps.recipes 2>&1
grep -q 'apt-get install' deps.recipes || fail "make deps does not install: $(cat deps.recipes)"

note "a missing package: one line, make deps named, nothing compiled"
expect 2 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$TOP" -s B="$W/b" BUILD_PACKAGES="gcc cuferry-no-such-package" all
assert_contains last.err "make: missing Debian packages: cuferry-no-such-package; run \`make deps\` (as root)"
[ "$(grep -c 'missing Debian packages' last.err)" -eq 1 ] || fail "more than one line: $(cat last.err)"
[ ! -d "$W/b/obj" ] || fail "objects were compiled though a package is missing"
echo "PASS $NAME"
