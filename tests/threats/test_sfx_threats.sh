#!/bin/sh
# Threats against self-extracting files (issue 11 finding 2): a .run whose stub, layout or
# stub-signature block was changed. Each is run through a trusted unpacker (verify, install
# interactive, install /silent with stdin closed) and, where its stub is still a program, as
# ./x.run /silent; every run must exit 2 with a one-line reason, and the sentinel tree, the
# prefix, state and environment stay as they were, no staging left. Results go to
# $CUFERRY_BUILD/threat-results-sfx.tsv (the same columns as threat-results.tsv).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
RES=$B/threat-results-sfx.tsv
. "$TOP/tests/threats/lib.sh" # snapshot and record, as the other threat scripts use them
: > "$RES"
R=$W/root
TRUST="--trust $FX/test.pub"
mkdir -p outside/sub root
echo target > outside/target
echo data > outside/sub/file
"$UNPACKER" "$FX/small.bundle" --root "$R" $TRUST --no-validate >/dev/null

# run_sfx_case ID "threat" FILE [exec] (the .run modes; lib.sh's run_case is for bundles): exit 2 in every mode, nothing changed
run_sfx_case() {
	id=$1 threat=$2 file=$3 exec=${4:-}
	before=$(snapshot)
	expect 2 "$UNPACKER" verify "$file" $TRUST
	one_line_reason
	expect 2 "$UNPACKER" "$file" --root "$R" $TRUST
	one_line_reason
	expect 2 "$UNPACKER" "$file" --root "$R" $TRUST /silent /log="$W/s.log" </dev/null
	one_line_reason
	grep -q "error" "$W/s.log" || fail "$id: no reason in the silent log"
	modes="verify, both install modes"
	if [ -n "$exec" ]; then
		chmod 755 "$file"
		expect 2 "$W/$file" /silent --root "$R" $TRUST </dev/null
		one_line_reason
		modes="$modes, run as ./x.run /silent"
	fi
	[ "$(snapshot)" = "$before" ] || fail "$id: something changed"
	no_staging "$W"
	record "$id" "$threat" "trust: exit 2, nothing written" "threats/$id" "pass (exit 2: $modes)"
	echo "ok   threat $id"
}

cp "$FX/small.bundle" a.bundle
"$BUNDLER" sfx a.bundle --key "$FX/test.key" --unpacker "$UNPACKER" >/dev/null
"$BUNDLER" sfx a.bundle --key "$FX/other.key" --unpacker "$UNPACKER" -o other.run >/dev/null
python3 "$TOP/tests/tools/forge.py" --key "$FX/test.key" --out "$W/b.bundle" --bundle-id t-other
"$BUNDLER" sfx b.bundle --key "$FX/test.key" --unpacker "$UNPACKER" >/dev/null
expect 0 "$UNPACKER" verify a.run $TRUST

# mutate OUT EXPR: OUT from a.run by a Python expression over d (bytes), s, l, k (layout)
mutate() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
d = open('a.run', 'rb').read()
s, l, k = struct.unpack('<QQQ', d[-24:])
other = open('b.run', 'rb').read()
os_, ol, ok = struct.unpack('<QQQ', other[-24:])
def trailer(s, l, k): return b'CUFERRY1' + struct.pack('<QQQ', s, l, k)
def flip(b, at): return b[:at] + bytes([b[at] ^ 1]) + b[at + 1:]
out = eval(sys.argv[2])
open(sys.argv[1], 'wb').write(out)
PY
}

# the last stub byte: in the section headers, so the changed stub still runs and must refuse itself
mutate stub_byte.run 'flip(d, s - 1)'
run_sfx_case sfx_stub_byte "a changed byte in the .run's stub" stub_byte.run exec
mutate gap_byte.run 'd[:s + l] + b"\0" + d[s + l:]'
run_sfx_case sfx_gap_byte "an extra byte between the bundle and the stub-signature block" gap_byte.run exec
mutate gap_fixed.run 'd[:s + l] + b"\0" + d[s + l:-32] + trailer(s, l + 1, k)'
run_sfx_case sfx_gap_byte_trailer_fixed "an extra byte before the block, the trailer's bundle length raised to match" gap_fixed.run exec
mutate stub_insert.run 'd[:s - 1] + b"\0" + d[s - 1:-32] + trailer(s + 1, l, k)'
run_sfx_case sfx_stub_insert "a byte inserted in the stub, the trailer's offset raised to match" stub_insert.run exec
mutate bundle_insert.run 'd[:s + 100] + b"\0" + d[s + 100:-32] + trailer(s, l + 1, k)'
run_sfx_case sfx_bundle_insert "a byte inserted in the bundle, the trailer's length raised to match" bundle_insert.run exec
mutate end_byte.run 'd + b"\0"'
run_sfx_case sfx_end_byte "an extra byte at the end" end_byte.run exec
mutate trunc_block.run 'd[:s + l + k - 10] + trailer(s, l, k - 10)'
run_sfx_case sfx_truncated_block "a truncated stub-signature block (trailer adjusted)" trunc_block.run exec
mutate trailer.run 'd[:-8] + struct.pack("<Q", k + 1)'
run_sfx_case sfx_trailer_changed "a changed trailer" trailer.run exec
run_sfx_case sfx_wrong_key "the stub signed by a key that is not trusted" other.run exec
mutate swapped.run 'd[:s + l] + other[os_ + ol:os_ + ol + ok] + trailer(s, l, ok)'
run_sfx_case sfx_swapped_block "the stub-signature block of another .run" swapped.run exec
mutate format1.run 'd[:s + l] + d[-32:-8] + bytes(8)'
run_sfx_case sfx_format1 "a format-1 .run (no stub-signature block)" format1.run exec
# the review's attack: the stub replaced by a script, the trailer fixed up
mutate script.run 'b"#!/bin/sh\necho pwned > /tmp/cuferry-pwned\n" + d[s:-32] + trailer(len(b"#!/bin/sh\necho pwned > /tmp/cuferry-pwned\n"), l, k)'
run_sfx_case sfx_script_stub "the stub replaced by a script, the trailer fixed up" script.run

# The guide's first-server recipe for a .run on a noexec stick (issue 23 A2), run as written:
# it installs a genuine .run and refuses a forged one before any byte of it runs.
# run_recipe_case ID "threat" FILE: the recipe fails, the stub never ran, nothing changed, no staging
run_recipe_case() {
	id=$1 threat=$2 file=$3
	before=$(snapshot)
	set +e; guide_run_recipe "$W/$file" "$FX/test.pub" "$R" >"$W/last.out" 2>&1; rc=$?; set -e
	[ $rc -ne 0 ] || { cat "$W/last.out"; fail "$id: the guide's recipe accepted it"; }
	[ ! -e "$W/stub-ran" ] || fail "$id: the guide's recipe ran the forged stub"
	[ "$(snapshot)" = "$before" ] || fail "$id: something changed"
	no_staging "$W"
	record "$id" "$threat" "the guide's recipe: refused before the stub runs" "threats/$id" "pass (exit $rc, stub not run)"
	echo "ok   threat $id"
}
mkdir -p recipe-root
guide_run_recipe "$W/a.run" "$FX/test.pub" "$W/recipe-root" >recipe.out 2>&1 || { cat recipe.out; fail "the guide's recipe did not install a genuine .run"; }
[ -f recipe-root/opt/cudnn/current/lib/libcudnn.so.9 ] || fail "the guide's recipe installed nothing"
printf '#!/bin/sh\necho ran > %s/stub-ran\n' "$W" > evil.sh
mutate recipe_trailer.run 'open("evil.sh", "rb").read() + trailer(len(open("evil.sh", "rb").read()), 0, 0)'
run_recipe_case sfx_recipe_forged "the guide's noexec recipe given a program with a .run trailer" recipe_trailer.run
mutate recipe_swap.run 'open("evil.sh", "rb").read() + d[s:-32] + trailer(len(open("evil.sh", "rb").read()), l, k)'
run_recipe_case sfx_recipe_stub_swapped "the guide's noexec recipe given a .run whose stub was replaced" recipe_swap.run
run_recipe_case sfx_recipe_wrong_key "the guide's noexec recipe given a .run signed by another key" other.run
run_recipe_case sfx_recipe_stub_byte "the guide's noexec recipe given a .run with one stub byte changed" stub_byte.run

if [ "$(id -u)" = 0 ]; then
	# fewer than T: a threshold of 2 in a root of its own; header by two keys, stub by one
	R2=$W/troot
	mkdir -p "$R2/etc/cuferry/trusted-keys"
	cp "$FX/test.pub" "$FX/other.pub" "$R2/etc/cuferry/trusted-keys/"
	echo 2 > "$R2/etc/cuferry/trusted-keys/threshold"
	chmod 755 "$R2" "$R2/etc" "$R2/etc/cuferry" "$R2/etc/cuferry/trusted-keys"
	chmod 644 "$R2"/etc/cuferry/trusted-keys/*
	cp "$FX/small.bundle" two.bundle
	"$BUNDLER" sign two.bundle --key "$FX/other.key" >/dev/null
	"$BUNDLER" sfx two.bundle --key "$FX/test.key" --unpacker "$UNPACKER" >/dev/null
	for mode in verify install silent exec; do
		case $mode in
		verify) expect 2 "$UNPACKER" verify two.run --root "$R2" ;;
		install) expect 2 "$UNPACKER" two.run --root "$R2" ;;
		silent) expect 2 "$UNPACKER" two.run --root "$R2" /silent /log="$W/t.log" </dev/null ;;
		exec) expect 2 ./two.run /silent --root "$R2" /log="$W/t.log" </dev/null ;;
		esac
		one_line_reason
		assert_contains last.err "1 distinct trusted signatures, 2 required"
	done
	[ ! -e "$R2/opt" ] || fail "fewer than T: something was written"
	printf '%s\t%s\t%s\t%s\t%s\n' sfx_below_threshold "a .run whose stub has fewer than T signatures" \
		"trust: exit 2, nothing written" threats/sfx_below_threshold "pass (exit 2: all four modes)" >> "$RES"
	echo "ok   threat sfx_below_threshold"
else
	echo "SKIP sfx_below_threshold: a root-owned trust directory needs root"
fi
# F2 of issue 23's follow-up review: a .run started through the dynamic loader (the README's
# recipe for a stick without the x bit) is verified, then paused before its probe; meanwhile a
# user who can write the stick's directory renames another program over the .run's name. The
# probe must execute the image that was verified (held open since start-up), never the file
# the name gives by then: validation passes and the replacement, which leaves a marker and
# says so on its output when it runs, never ran.
LOADER=/lib64/ld-linux-x86-64.so.2
if [ -x "$LOADER" ]; then
	id=sfx_loader_renamed_before_probe
	mkdir -p ldstick mark
	chmod 1777 mark
	cp "$FX/small.bundle" ld.bundle
	"$BUNDLER" sfx ld.bundle --key "$FX/test.key" --unpacker "$UNPACKER_SEAMS" -o ldstick/x.run >/dev/null
	chmod 644 ldstick/x.run # no x bit, as on the stick: only the loader starts it
	cat > replaced.c <<EOF
#include <stdio.h>
int main(void)
{
	FILE *f = fopen("$W/mark/replaced-ran", "w");
	if (f)
		fclose(f);
	puts("the replacement program ran");
	return 0;
}
EOF
	gcc -o ldstick/replaced replaced.c
	rm -f mark/replaced-ran
	CUFERRY_FAULT=verified:pause "$LOADER" "$W/ldstick/x.run" /silent --root "$W/ldroot" $TRUST \
		/log="$W/ld.log" </dev/null >"$W/last.out" 2>"$W/last.err" &
	pid=$!
	wait_paused $pid verified
	mv ldstick/replaced ldstick/x.run
	kill -CONT $pid
	set +e; wait $pid; rc=$?; set -e
	[ ! -e mark/replaced-ran ] || fail "$id: the probe executed the program renamed over the .run"
	[ $rc -eq 0 ] || { cat last.err ld.log; fail "$id: exit $rc, expected 0 (the probe of the verified image)"; }
	grep -q "library *pass" ld.log || { cat ld.log; fail "$id: validation's probe did not pass"; }
	! grep -q "the replacement program ran" ld.log last.err last.out || fail "$id: the replacement's output"
	record "$id" "a .run started through the loader, another program renamed over its name between verification and the probe" \
		"the probe executes the verified image held open since start-up" "threats/$id" "pass (exit 0, the replacement never ran)"
	echo "ok   threat $id"
	# The same start, but the .run is a file another user may write (a stick mounted for the
	# desktop user): the kernel does not keep a file the loader maps from being written while
	# it runs, so that user could change root's running code in place. Refused before
	# anything is read, exit 4, one line; as root only (another user runs their own file).
	if [ "$(id -u)" = 0 ]; then
		for how in mode owner; do
			id=sfx_loader_writable_$how
			cp "$FX/small.bundle" ldw.bundle
			"$BUNDLER" sfx ldw.bundle --key "$FX/test.key" --unpacker "$UNPACKER" -o ldstick/w.run >/dev/null
			if [ $how = mode ]; then chmod 666 ldstick/w.run; else chmod 644 ldstick/w.run; chown 65534 ldstick/w.run; fi
			rm -rf "$W/ldwroot"
			set +e; "$LOADER" "$W/ldstick/w.run" /silent --root "$W/ldwroot" $TRUST </dev/null >"$W/last.out" 2>"$W/last.err"; rc=$?; set -e
			[ $rc -eq 4 ] || { cat last.err; fail "$id: exit $rc, expected 4"; }
			[ "$(wc -l < last.err)" -eq 1 ] && grep -q "started through the dynamic loader" last.err ||
				{ cat last.err; fail "$id: not one line naming the loader start"; }
			[ ! -e "$W/ldwroot/opt" ] || fail "$id: something was installed"
			record "$id" "root starts, through the loader, a .run another user may write ($how)" \
				"refused before anything is read: exit 4, one line" "threats/$id" "pass (exit 4)"
			echo "ok   threat $id"
		done
	fi
else
	echo "SKIP sfx_loader_renamed_before_probe: no $LOADER"
fi
[ ! -e /tmp/cuferry-pwned ] || fail "a replaced stub ran"
echo "ok"
