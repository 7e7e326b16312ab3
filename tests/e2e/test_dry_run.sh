#!/bin/sh
# install BUNDLE --dry-run (issue 23, the Decision on --dry-run): says what the real run would
# change (install, repair, nothing), exits with the code the real run gives for a refusal
# (untrusted, damaged payload, replay/downgrade), and writes nothing: each case compares the
# root's tree before and after, and the prediction with the real run that follows.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
R=$W/root
P=$R/opt/cudnn
mkdir -p "$R"

# dry CODE WOULD [ARGS]: the dry run exits CODE, its --json says WOULD ("-": a refusal, none),
# and the root is exactly as it was.
dry() {
	want=$1 would=$2; shift 2
	before=$(tree_listing "$R")
	rm -f "$W/dry.json"
	expect "$want" "$UNPACKER" install "$@" --root "$R" --dry-run --no-validate --json "$W/dry.json"
	[ "$(tree_listing "$R")" = "$before" ] || fail "the dry run changed the root ($*)"
	py - "$W/dry.json" "$want" "$would" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_code"] == int(sys.argv[2]), r
assert r.get("dry_run", "-") == sys.argv[3], r
PY
}

note "a fresh machine: would install, names the current it would replace (none)"
dry 0 install "$FX/small.bundle" $T /silent
[ ! -e "$R/var" ] || fail "the dry run wrote the system log"
dry 0 install "$FX/small.bundle" $T
assert_contains last.out "dry run: would install"
assert_contains last.out "current: none -> cudnn-9.19.0-cuda13"
[ ! -e "$P" ] || fail "the dry run made the prefix"
expect 0 "$UNPACKER" install "$FX/small.bundle" --root "$R" $T --no-validate --no-env
assert_contains last.out "installed "

note "installed and intact: nothing would change (and the real re-run agrees)"
dry 0 nothing "$FX/small.bundle" $T --no-env
assert_contains last.out "nothing would change"
assert_contains last.out "contents not re-hashed"
expect 0 "$UNPACKER" install "$FX/small.bundle" --root "$R" $T --no-validate --no-env
assert_contains last.out "nothing to do"

note "the environment missing: would add it"
dry 0 repair "$FX/small.bundle" $T
assert_contains last.out "would add the missing environment"

note "a truncated file: would put it back; the dry run leaves it truncated, the real run repairs"
lib=$P/current/lib/libcudnn.so.9
truncate -s 1000 "$lib"
dry 0 repair "$FX/small.bundle" $T --no-env
assert_contains last.out "would put back 1 entry"
[ "$(stat -c %s "$lib")" = 1000 ] || fail "the dry run repaired"
expect 0 "$UNPACKER" install "$FX/small.bundle" --root "$R" $T --no-validate --no-env
assert_contains last.out "repaired: 1"

note "same size, other bytes: only --repair's dry run sees it"
printf 'X' | dd of="$lib" bs=1 seek=5000 conv=notrunc 2>/dev/null
dry 0 nothing "$FX/small.bundle" $T --no-env
dry 0 repair "$FX/small.bundle" $T --no-env --repair
assert_contains last.out "content differs"
expect 0 "$UNPACKER" install "$FX/small.bundle" --root "$R" $T --no-validate --no-env --repair

# refused CODE REASON BUNDLE [ARGS]: the dry run and then the real run give CODE and REASON,
# one error line, and neither changes the root.
refused() {
	want=$1 reason=$2; shift 2
	dry "$want" - "$@"
	one_line_reason
	assert_contains last.err "$reason"
	before=$(tree_listing "$R")
	expect "$want" "$UNPACKER" install "$@" --root "$R" --no-validate --no-env
	assert_contains last.err "$reason"
	[ "$(tree_listing "$R")" = "$before" ] || fail "the real run changed the root ($*)"
	no_staging "$R"
}

note "a replayed older counter of the same bundle: the real run's refusal and exit code"
"$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 --key "$FX/test.key" -o old.bundle --counter 7 \
	--level 1 -q >/dev/null
refused 7 "replay or downgrade refused" "$W/old.bundle" $T

note "signed by a key not trusted: exit 2"
refused 2 "" "$FX/small.bundle" --trust "$FX/other.pub"

note "a newer bundle with a damaged payload: exit 3, found by the dry run as by the real run"
"$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 --key "$FX/test.key" -o bad.bundle --counter 101 \
	--level 1 -q >/dev/null
size=$(stat -c %s bad.bundle)
printf '\377' | dd of=bad.bundle bs=1 seek=$((size - 5000)) conv=notrunc 2>/dev/null
refused 3 "does not match its signed SHA-256" "$W/bad.bundle" $T

note "the same on a fresh machine: the dry run makes no prefix"
R=$W/fresh
mkdir -p "$R"
dry 3 - "$W/bad.bundle" $T
[ ! -e "$R/opt" ] || fail "a refused dry run made the prefix"

note "--dry-run is documented"
"$UNPACKER" help install > help.out
assert_contains help.out "BUNDLE --dry-run"
