#!/bin/sh
# test_windows_unit.sh - the Windows builds under Wine: every cross-built unit test
# (build/windows/tests/*.exe: the portable modules and the Windows platform layer) and the
# fake NVIDIA DLLs, loaded by full path with the unpacker's search flags; the registry PATH the
# environment test leaves, read back with Wine's own `reg query`.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/winlib.sh"

# The platform test writes its scratch files under $W and loads the fakes (Z: is / in Wine).
export CUFERRY_WIN_SCRATCH="$(wine_path "$W")" CUFERRY_WIN_FAKES="$(wine_path "$WIN/fakes")"
# ... and a tree whose bin is a link to a directory outside it (Wine shows it as a reparse point)
mkdir -p "$W/planted" "$W/outside"
ln -s "$W/outside" "$W/planted/bin"
export CUFERRY_WIN_PLANTED="$(wine_path "$W/planted")"
n=0
for t in "$WIN"/tests/test_*.exe; do
	[ -f "$t" ] || fail "no Windows unit tests in $WIN/tests (make test builds them)"
	note "$(basename "$t") under Wine"
	wine_run "$t" > "$W/unit.log" 2>&1 ||
		{ cat "$W/unit.log"; fail "$(basename "$t") failed under Wine"; }
	grep -q 'PASSED' "$W/unit.log" || { cat "$W/unit.log"; fail "$(basename "$t"): no cmocka summary"; }
	n=$((n + 1))
done
[ $n -ge 4 ] || fail "only $n Windows unit tests ran"
[ -z "$(ls -A "$W/outside")" ] || fail "written through the planted link: $(ls -A "$W/outside")"

note "the user's PATH as test_platform_win_env.exe left it: REG_EXPAND_SZ, every character kept"
[ -f "$W/long-path.txt" ] || fail "test_platform_win_env.exe wrote no long-path.txt"
wine_run reg.exe query 'HKCU\Environment' /v Path > "$W/reg.out" 2>&1 ||
	{ cat "$W/reg.out"; fail "reg query HKCU\\Environment /v Path failed"; }
tr -d '\r' < "$W/reg.out" | sed -n 's/^ *Path *REG_EXPAND_SZ *//p' > "$W/reg.value"
[ -s "$W/reg.value" ] || { cat "$W/reg.out"; fail "Path is not REG_EXPAND_SZ after add and remove"; }
printf '%s\n' "$(cat "$W/long-path.txt")" | cmp -s - "$W/reg.value" ||
	fail "Path changed: $(wc -c < "$W/long-path.txt") characters written, reg query shows $(wc -c < "$W/reg.value")"
[ "$(wc -c < "$W/long-path.txt")" -gt 1024 ] || fail "the PATH tested is not longer than 1024 characters"

note "fake DLLs load by full path, their imports from their own directory"
F=$WIN/fakes
wine_run "$F/loadfakes.exe" "$(wine_path "$F/nvcuda.dll")" cuDriverGetVersion 13000 ||
	fail "nvcuda.dll"
wine_run "$F/loadfakes.exe" "$(wine_path "$F/cudnn64_9.dll")" cudnnGetVersion 91900 ||
	fail "cudnn64_9.dll"
wine_run "$F/loadfakes.exe" "$(wine_path "$F/cudnn64_8.dll")" cudnnGetVersion 8907 ||
	fail "cudnn64_8.dll"
# The stale and the wrong ones, each beside the sub-library it imports: the wrong one answers
# like the good one (only its numbers are wrong).
mkdir -p "$W/stale" "$W/wrong"
cp "$F/stale/cudnn64_8.dll" "$F/cudnn_ops_infer64_8.dll" "$W/stale/"
cp "$F/wrong/cudnn64_9.dll" "$F/cudnn_graph64_9.dll" "$W/wrong/"
wine_run "$F/loadfakes.exe" "$(wine_path "$W/stale/cudnn64_8.dll")" cudnnGetVersion 8202 ||
	fail "stale/cudnn64_8.dll"
wine_run "$F/loadfakes.exe" "$(wine_path "$W/wrong/cudnn64_9.dll")" cudnnGetVersion 91900 ||
	fail "wrong/cudnn64_9.dll"
# Without its sub-library beside it, cuDNN does not load: the search really is the DLL's
# directory, not ours or the PATH.
mkdir -p "$W/alone"
cp "$F/cudnn64_9.dll" "$W/alone/"
rc=0
wine_run "$F/loadfakes.exe" "$(wine_path "$W/alone/cudnn64_9.dll")" cudnnGetVersion 91900 > "$W/alone.log" || rc=$?
[ $rc -eq 2 ] || { cat "$W/alone.log"; fail "cudnn64_9.dll without cudnn_graph64_9.dll: exit $rc, expected 2"; }
echo "ok: $n Windows unit tests and the fake DLLs under Wine"
