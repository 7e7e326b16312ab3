#!/bin/sh
# The threat table (issue 6) as tests. Each case runs twice, interactive and /silent with
# stdin closed, and asserts: the documented exit code and a one-line reason; the sentinel tree
# outside the prefix unchanged; no staging leftovers; state.json, ld.so.conf.d and profile.d
# unchanged (and the prior install with them). Results: $CUFERRY_BUILD/threat-results.tsv,
# from which tests/threats/security_md.py writes docs/SECURITY.md.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
RES=$B/threat-results.tsv
. "$TOP/tests/threats/lib.sh"
: > "$RES"
R=$W/root
mkdir -p outside/sub root
echo target > outside/target
echo data > outside/sub/file
"$UNPACKER" "$FX/small.bundle" --root "$R" --trust "$FX/test.pub" >/dev/null

forge() { $FORGE --key "$FX/test.key" --outside "$W/outside" --out "$W/$1.bundle" --case "$2"; }
for c in header_bitflip truncated_frame unsigned frame_over_cap sig_len63 sig_len65 sig_r0 sig_s0 \
	 sig_r_ge_n payload_bitflip appended_byte appended_frame dotdot absolute symlink_then_write \
	 symlink_out hardlink_abs hardlink_dotdot chardev fifo setuid duplicate dir_then_file extra \
	 missing sparse bomb size_lie hash_lie truncated_zstd case_collision frames_valid frames_gap \
	 frames_overlap frames_sum frames_merged frames_size_moved; do forge $c $c; done

T2="trust: exit 2, nothing read past the frame"
run_case header_bitflip "a flipped bit in the signed header" "$T2" 2 header_bitflip.bundle
# review item 7: a trusted key's signature that fails is a changed header, not a trust problem
assert_contains last.err "does not verify: the header was changed after signing"
run_case truncated_frame "a truncated frame" "$T2" 2 truncated_frame.bundle
run_case zero_signatures "zero signatures" "$T2" 2 unsigned.bundle
run_case frame_over_cap "a frame length over the 16 MiB cap" "$T2" 2 frame_over_cap.bundle
$FORGE --key "$FX/other.key" --out "$W/untrusted.bundle"
run_case untrusted_key "a key that is not trusted" "$T2" 2 untrusted.bundle
run_case sig_len63 "a signature of 63 bytes" "$T2" 2 sig_len63.bundle
run_case sig_len65 "a signature of 65 bytes" "$T2" 2 sig_len65.bundle
run_case sig_r0 "r = 0" "$T2" 2 sig_r0.bundle
run_case sig_s0 "s = 0" "$T2" 2 sig_s0.bundle
run_case sig_r_ge_n "r >= n (r + n, same value mod n)" "$T2" 2 sig_r_ge_n.bundle
# review item 6: a key id that lies is a malformed frame, even beside a valid trusted signature
$FORGE --key "$FX/test.key" --key "$FX/other.key" --out "$W/keyid_lie_second.bundle" --case keyid_lie_second
run_case keyid_lie_second "a lying key id beside a valid signature by a trusted key" "the frame is malformed: $T2" 2 keyid_lie_second.bundle
assert_contains last.err "key id does not match its key"
# High-S, by decision, is accepted: (r, n - s) is the same statement by the same key, and
# nothing keys on signature bytes (docs/guide.md, "Trust")
$FORGE --key "$FX/test.key" --out "$W/high_s.bundle" --case sig_high_s --bundle-id t-high-s
expect 0 "$UNPACKER" verify high_s.bundle --trust "$FX/test.pub"
record sig_high_s "a high-S signature (r, n - s) of a valid one" "accepted by decision: the same signer and statement; signers count by key id, replay by the signed counter" "threats/sig_high_s" "pass (exit 0)"

echo "== issue 24, review item 2: a bundle created in the future never bricks the host"
R=$W/future-root
"$UNPACKER" "$FX/small.bundle" --root "$R" --trust "$FX/test.pub" --no-validate >/dev/null
$FORGE --key "$FX/test.key" --out "$W/future.bundle" --created 2099-01-01T00:00:00Z --bundle-id t-future
run_case created_future "a bundle created in 2099 (a SOURCE_DATE_EPOCH typo)" "policy: exit 7 'created in the future: check the clock'; nothing of it recorded" 7 future.bundle --no-validate
assert_contains last.err "created in the future"
! grep -q 2099 "$R/opt/cudnn/.cuferry/state.json" || fail "created_future: its time was recorded"
$FORGE --key "$FX/test.key" --out "$W/soon.bundle" --created "$(date -u -d '+2 hours' +%Y-%m-%dT%H:%M:%SZ)" --bundle-id t-soon
expect 0 "$UNPACKER" soon.bundle --root "$R" --trust "$FX/test.pub" --no-validate
record created_soon "a bundle created 2 hours ahead of the host clock, after one from 2099 was refused" "installed: a day of grace; nothing of the refused one was kept" "threats/created_soon" "pass (exit 0)"
R=$W/root

T3="integrity: exit 3, staging discarded"
run_case payload_bitflip "a flipped byte in payload chunk k" "chunk hash checked before zstd sees it; $T3" 3 payload_bitflip.bundle
run_case appended_byte "one byte appended" "$T3" 3 appended_byte.bundle
run_case appended_frame "a second zstd frame appended" "$T3" 3 appended_frame.bundle

$FORGE --key "$FX/test.key" --out "$W/c500.bundle" --counter 500 --bundle-id t-replay
$FORGE --key "$FX/test.key" --out "$W/c400.bundle" --counter 400 --bundle-id t-replay
"$UNPACKER" c500.bundle --root "$R" --trust "$FX/test.pub" --no-validate >/dev/null
run_case replay_lower_counter "a replay of a lower counter" "policy: exit 7" 7 c400.bundle --no-validate
run_case same_counter "the same counter again" "nothing to do: exit 0, nothing changes" 0 c500.bundle --no-validate
$FORGE --key "$FX/test.key" --out "$W/expired.bundle" --expires 2020-01-01T00:00:00Z --bundle-id t-exp
run_case expired "an expired bundle" "policy: exit 7" 7 expired.bundle --no-validate
$FORGE --key "$FX/test.key" --out "$W/sbsa.bundle" --platform linux-sbsa --bundle-id t-plat
run_case wrong_platform "the wrong platform" "incompatible: exit 4" 4 sbsa.bundle

for c in dotdot absolute symlink_then_write symlink_out hardlink_abs hardlink_dotdot chardev fifo \
	 setuid duplicate dir_then_file extra missing sparse; do
	run_case $c "signed entry: $c" "the entry does not match the signed manifest; $T3" 3 $c.bundle --no-validate
done
run_case bomb "an entry claiming 4 GiB of zeros (150 KB compressed)" "refused at its header, nothing of it written; $T3" 3 bomb.bundle --no-validate
run_case size_lie "a size lie" "$T3" 3 size_lie.bundle --no-validate
run_case hash_lie "a hash lie" "$T3" 3 hash_lie.bundle --no-validate
# issue 29: the frame index is signed, and still checked before any frame is used
expect 0 "$UNPACKER" verify frames_valid.bundle --trust "$FX/test.pub"
run_case frames_gap "a signed frame index with a gap" "checked against the chunk plan before use; $T3" 3 frames_gap.bundle --no-validate
assert_contains last.err "(a gap or an overlap)"
run_case frames_overlap "a signed frame index with an overlap" "checked against the chunk plan before use; $T3" 3 frames_overlap.bundle --no-validate
run_case frames_sum "signed frame sizes that do not add up to uncompressed_size" "checked before use; $T3" 3 frames_sum.bundle --no-validate
assert_contains last.err "uncompressed_size says"
run_case frames_merged "two zstd frames indexed as one" "each frame must be exactly one zstd frame; $T3" 3 frames_merged.bundle --no-validate
assert_contains last.err "is not one zstd frame"
run_case frames_size_moved "tar bytes moved between two indexed frames (the sums still match)" "each frame must decode to its indexed size; $T3" 3 frames_size_moved.bundle --no-validate
assert_contains last.err "decodes to more than its"
run_case truncated_zstd "a truncated zstd stream (signed as is)" "$T3" 3 truncated_zstd.bundle --no-validate

n=0
for name in "include/bad
name" 'include/a\b' 'include/x:y' include/CON.txt include/aux include/trailing. include/GIT~1; do
	n=$((n + 1))
	$FORGE --key "$FX/test.key" --out "$W/name$n.bundle" --name "$name"
	shown=$(printf '%s' "$name" | tr '\n' '?')
	run_case "hostile_name_$n" "hostile name '$shown'" "the manifest is refused on every OS; $T3" 3 name$n.bundle
done
run_case hostile_name_case "F.dll beside f.dll" "the manifest is refused on every OS; $T3" 3 case_collision.bundle

# An installed tree whose directory became a file or a link (or a file a directory): the
# re-run moves the entry aside without following it and puts the bundle's back (issue 25).
I=$R/opt/cudnn/cudnn-9.19.0-cuda13
dir_to_file() { rm -rf "$I/include"; echo junk > "$I/include"; }
dir_to_link() { rm -rf "$I/include"; ln -s "$W/outside/sub" "$I/include"; }
lib_to_link() { rm -rf "$I/lib"; ln -s "$W/outside" "$I/lib"; }
file_to_dir() {
	rm "$I/lib/libcudnn.so.9"; mkdir "$I/lib/libcudnn.so.9"
	echo junk > "$I/lib/libcudnn.so.9/junk"; ln -s "$W/outside/target" "$I/lib/libcudnn.so.9/link"
}
R3="repaired: moved aside (not followed), restored from the bundle, exit 0"
run_repair_case repair_dir_to_file "an installed directory replaced by a file" "$R3" dir_to_file "$FX/small.bundle" --no-validate
run_repair_case repair_dir_to_symlink "an installed directory replaced by a link pointing outside" "$R3; nothing written through the link" dir_to_link "$FX/small.bundle" --no-validate
run_repair_case repair_lib_to_symlink "lib/ replaced by a link to a directory outside" "$R3; nothing written through the link" lib_to_link "$FX/small.bundle" --no-validate
run_repair_case repair_file_to_dir "an installed file replaced by a directory (holding a link outside)" "$R3; the link inside removed, not followed" file_to_dir "$FX/small.bundle" --no-validate --repair

echo "== the clock earlier than the newest install's creation"
py - "$R/opt/cudnn/.cuferry/state.json" <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p)); s["newest_created"] = "2099-01-01T00:00:00Z"
json.dump(s, open(p, "w"), indent=2)
PY
$FORGE --key "$FX/test.key" --out "$W/later.bundle" --bundle-id t-clock
run_case clock_behind "a clock earlier than the last install's created" "policy: exit 7" 7 later.bundle --no-validate
py - "$R/opt/cudnn/.cuferry/state.json" <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p)); s["newest_created"] = "2026-01-01T00:00:00Z"
json.dump(s, open(p, "w"), indent=2)
PY

echo "== threshold 2 met by one key twice"
TR=$W/troot
mkdir -p "$TR/etc/cuferry/trusted-keys"
cp "$FX/test.pub" "$FX/other.pub" "$TR/etc/cuferry/trusted-keys/"
echo 2 > "$TR/etc/cuferry/trusted-keys/threshold"
chmod -R go-w "$TR"
$FORGE --key "$FX/test.key" --key "$FX/test.key" --out "$W/twice.bundle"
for mode in interactive silent; do
	expect 2 "$UNPACKER" twice.bundle --root "$TR" $( [ $mode = silent ] && echo /silent ) </dev/null
	one_line_reason
	[ ! -e "$TR/opt" ] || fail "threshold: something was written"
done
record threshold_same_key "a threshold of 2 met by one key twice" "distinct key ids only: exit 2" "threats/threshold_same_key" "pass (exit 2, both modes)"

echo "== the bundle rewritten after its header was verified"
$FORGE --key "$FX/test.key" --out "$W/toctou.bundle" --bundle-id t-toctou --salt signed
$FORGE --key "$FX/test.key" --out "$W/evil.bundle" --bundle-id t-toctou --salt EVIL
for how in in_place rename; do
	cp toctou.bundle t.bundle
	CUFERRY_FAULT=verified:pause "$UNPACKER_SEAMS" t.bundle --root "$W/tt-$how" --trust "$FX/test.pub" --no-validate >/dev/null 2>"$W/tt.err" &
	pid=$!
	wait_paused $pid "verified"
	if [ $how = in_place ]; then
		py -c "
d = open('evil.bundle','rb').read(); f = open('t.bundle','r+b'); f.seek(len(d) - 200); f.write(d[-200:])"
	else
		cp evil.bundle t.new && mv t.new t.bundle
	fi
	kill -CONT $pid; set +e; wait $pid; rc=$?; set -e
	if [ $rc -eq 0 ]; then
		grep -q signed "$W/tt-$how/opt/cudnn/current/lib/libcudnn.so.9" || fail "toctou: unsigned content installed"
	else
		[ $rc -eq 3 ] || fail "toctou $how: exit $rc"
		[ ! -e "$W/tt-$how/opt/cudnn/current" ] || fail "toctou: partial install"
	fi
	grep -q EVIL "$W/tt-$how/opt/cudnn/current/lib/libcudnn.so.9" 2>/dev/null && fail "toctou: EVIL content installed"
	echo "ok   toctou $how: exit $rc"
done
record toctou "the bundle file rewritten after the header was verified" "the signed content or exit 3, never unsigned content (in place: exit 3; replaced: the open file is read, signed content)" "threats/toctou" "pass"

echo "== pre-existing links in the prefix (two-step attack)"
PR=$W/proot/opt/cudnn
mkdir -p "$PR"
ln -s "$W/outside" "$PR/cudnn-9.19.0.56-cuda13"
ln -s "$W/outside" "$PR/current"
before=$(tree_listing "$W/outside")
$FORGE --key "$FX/test.key" --out "$W/two.bundle" --bundle-id t-two
expect 0 "$UNPACKER" two.bundle --root "$W/proot" --trust "$FX/test.pub" --no-validate
[ "$(tree_listing "$W/outside")" = "$before" ] || fail "two-step: outside changed"
[ -d "$PR/cudnn-9.19.0.56-cuda13" ] && [ ! -L "$PR/cudnn-9.19.0.56-cuda13" ] || fail "two-step: not a real directory"
mkdir -p "$W/proot2/opt/cudnn"
ln -s "$W/outside" "$W/proot2/opt/cudnn/.cuferry"
expect 5 "$UNPACKER" two.bundle --root "$W/proot2" --trust "$FX/test.pub" --no-validate
one_line_reason
[ "$(tree_listing "$W/outside")" = "$before" ] || fail "two-step: state written through a planted link"
record prefix_links "pre-existing symlinks in the prefix pointing outside" "a link where the install goes is replaced, never followed; a linked .cuferry is refused (exit 5)" "threats/prefix_links" "pass"

echo "== a world-writable TMPDIR seeded with predictable names"
mkdir -m 1777 "$W/tmp"
for n in .staging-AAAAAA cuferry state.json lock; do ln -s "$W/outside/target" "$W/tmp/$n"; done
before=$(tree_listing "$W/tmp"; tree_listing "$W/outside")
TMPDIR=$W/tmp expect 0 "$UNPACKER" "$FX/small.bundle" --root "$W/tmproot" --trust "$FX/test.pub"
[ "$(tree_listing "$W/tmp"; tree_listing "$W/outside")" = "$before" ] || fail "TMPDIR was used"
record tmpdir "a world-writable TMPDIR seeded with predictable names" "never used: staging is a fresh 0700 directory inside the prefix" "threats/tmpdir" "pass"

echo "== kill -9 at random points, then a re-run"
KR=$W/kroot
for i in 1 2 3 4; do
	"$UNPACKER" "$FX/real.bundle" --root "$KR" --trust "$FX/test.pub" --no-validate >/dev/null 2>&1 &
	pid=$!
	sleep "0.$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')"
	kill -9 $pid 2>/dev/null || true # it may have finished already
	wait $pid 2>/dev/null || true
	expect 0 "$UNPACKER" "$FX/real.bundle" --root "$KR" --trust "$FX/test.pub" --no-validate
	[ "$(readlink "$KR/opt/cudnn/current")" = cudnn-9.19.0.56-cuda13 ] || fail "kill: not installed"
	no_staging "$KR"
	[ ! -e "$KR/opt/cudnn/.cuferry/journal.json" ] || fail "kill: journal left"
	rm -rf "$KR"
done
record kill9 "kill -9 at random points during install, then a re-run" "the re-run finishes or rolls back, then installs" "threats/kill9" "pass (4 random points)"

echo "== ENOSPC on a small file system"
mkdir -p "$W/sroot/opt/cudnn"
if mount -t tmpfs -o size=20m,mode=755 tmpfs "$W/sroot/opt/cudnn" 2>/dev/null; then
	CLEANUP="$CLEANUP umount '$W/sroot/opt/cudnn' 2>/dev/null;"
	expect 4 "$UNPACKER" "$FX/small.bundle" --root "$W/sroot" --trust "$FX/test.pub"
	one_line_reason
	no_staging "$W/sroot"
	umount "$W/sroot/opt/cudnn"
	record enospc "ENOSPC on a small file system" "no space: exit 4 before anything is written" "threats/enospc" "pass"
else
	record enospc "ENOSPC on a small file system" "no space: exit 4" "threats/enospc" "not run (no tmpfs here)"
fi

echo "== the profile.d snippet with LD_LIBRARY_PATH unset, set and empty"
for setting in unset empty set; do
	out=$(env -i sh -c "
		case $setting in unset) unset LD_LIBRARY_PATH PATH ;; empty) LD_LIBRARY_PATH=; PATH= ;; set) LD_LIBRARY_PATH=/x; PATH=/usr/bin ;; esac
		. '$R/etc/profile.d/cuferry-cudnn.sh'; printf '%s|%s' \"\${PATH-}\" \"\${LD_LIBRARY_PATH-}\"")
	case "$out" in *::*|:*|*:|*:\|*|*\|:*) fail "empty element with $setting: $out" ;; esac
done
"$UNPACKER" env --root "$R" > env.sh
for setting in unset empty set; do
	out=$(env -i sh -c "case $setting in unset) ;; empty) LD_LIBRARY_PATH= ;; set) LD_LIBRARY_PATH=/x ;; esac; . ./env.sh; printf %s \"\$LD_LIBRARY_PATH\"")
	case "$out" in *::*|:*|*:) fail "env snippet: empty element with $setting: $out" ;; esac
done
record profile_empty_element "profile.d sourced with LD_LIBRARY_PATH unset, set and empty" "no empty path element, ever" "threats/profile_empty_element" "pass"

echo "== the GPU check from a hostile caller environment"
mkdir -p "$W/evil"
printf '#!/bin/sh\ntouch %s/evil/ran\n' "$W" > "$W/evil/ldconfig"
chmod +x "$W/evil/ldconfig"
cp "$W/evil/ldconfig" "$W/evil/sh"
cc -shared -fPIC -o "$W/evil/libcudnn.so.9" -x c - <<'C'
__attribute__((constructor)) static void planted(void) { *(volatile int *)0 = 0; }
C
# A zlib decoy too, for the probes' dependency check; the sanitizer build links libz itself
# (through a shared libarchive), and the loader honours LD_LIBRARY_PATH for the program's own
# libraries before main runs: that is why the shipped unpacker is static but for libc.
ldd "$UNPACKER" | grep -q 'libz\.so' || cp "$W/evil/libcudnn.so.9" "$W/evil/libz.so.1"
"$UNPACKER" "$FX/small.bundle" --root "$W/hroot" --trust "$FX/test.pub" >/dev/null
PATH="$W/evil:$PATH" LD_LIBRARY_PATH="$W/evil" expect 0 "$UNPACKER" validate --root "$W/hroot" --trust "$FX/test.pub"
assert_contains last.out "gets the install"
[ ! -e "$W/evil/ran" ] || fail "a program from the hostile PATH ran"
record hostile_env "the GPU check run with a hostile PATH and LD_LIBRARY_PATH" "checks run in a clean environment; libraries by absolute path; the decoys are not used" "threats/hostile_env" "pass"
