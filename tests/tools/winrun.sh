#!/bin/sh
# winrun.sh PREFIX_DIR EXE [ARGS...] - run a Windows program under Wine in the private prefix
# PREFIX_DIR (created on first use; never ~/.wine), with Wine's own chatter off. The exit
# code is the program's; 77 means Wine itself cannot start here (no wine, no usable prefix),
# which callers report as a skip, never as a pass.
set -u
[ $# -ge 2 ] || { echo "usage: winrun.sh PREFIX_DIR EXE [ARGS...]" >&2; exit 2; }
prefix=$1; shift
wine=$(command -v wine || command -v wine64 || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; }) ||
	{ echo "winrun.sh: wine not found (make deps installs wine64)" >&2; exit 77; }
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEARCH=win64
# No Mono or Gecko installer dialogs, no desktop integration: a test prefix needs neither.
# A caller's WINEDLLOVERRIDES (a test forcing native DLLs) comes after these.
export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d${WINEDLLOVERRIDES:+;$WINEDLLOVERRIDES}"
unset DISPLAY WAYLAND_DISPLAY
if [ ! -f "$prefix/system.reg" ]; then
	mkdir -p "$prefix"
	"$wine" wineboot.exe --init >"$prefix.init.log" 2>&1
	wineserver -w 2>/dev/null || true
	[ -f "$prefix/system.reg" ] ||
		{ echo "winrun.sh: Wine cannot create a prefix here (log: $prefix.init.log)" >&2; exit 77; }
fi
# Keep this prefix's wineserver 60 s after its last client instead of Wine's 3: a program
# started just as the server is going away loses its connection ("wine client error:0:
# recvmsg: Connection reset by peer", exit 1), which a loaded machine's pauses between two
# runs of a test hit (seen in tools/fresh-ci.sh). With a server already up this start fails
# and changes nothing; the one started here ends by itself, or at winlib.sh's wine_stop.
wineserver -p60 2>/dev/null || true
exec "$wine" "$@"
