# winlib.sh - Wine for the Windows end-to-end tests (sourced after lib.sh): a private prefix
# under the scratch dir $W, removed with it.
WIN=$B/windows
WINEPREFIX_DIR=$W/wineprefix

# wine_run EXE [ARGS...]: the program's exit code; a test whose Wine cannot start says SKIP.
wine_run() {
	rc=0
	sh "$TOP/tests/tools/winrun.sh" "$WINEPREFIX_DIR" "$@" || rc=$?
	if [ $rc -eq 77 ]; then
		echo "SKIP $NAME: Wine cannot start here"
		exit 0
	fi
	return $rc
}

# The Windows path Wine gives a file of this machine (Z: maps /).
wine_path() { printf 'Z:%s' "$1" | tr / '\\'; }

# wine_stop: end this prefix's wineserver (started by the first wine_run) before $W goes.
wine_stop() {
	WINEPREFIX="$WINEPREFIX_DIR" wineserver -k 2>/dev/null || true
}
CLEANUP="$CLEANUP wine_stop;"

# need_unpacker_exe: EXE is build/windows/unpacker.exe; without it the test says SKIP, the one
# reason a Windows test may skip (make windows builds it).
need_unpacker_exe() {
	EXE=$WIN/unpacker.exe
	if [ ! -f "$EXE" ]; then
		echo "SKIP $NAME: no $EXE (make windows builds it)"
		exit 0
	fi
}
