#!/bin/sh
# Everyday unpacker use (issue 13): a re-run repairs what differs (sizes; SHA-256 with
# --repair) and adds missing environment; use/env honour --env=user; env with nothing
# installed; env --shell ps; SIGTERM and SIGHUP roll back like SIGINT (exit 5); doctor names
# leftovers of interrupted runs; --json lists are arrays and usage errors write a report;
# help, COMMAND --help and --version.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
R=$W/root
P=$R/opt/cudnn
CUDA=$(cat "$FX/cuda_dir")
export HOME=$W/home
mkdir -p "$HOME"

note "first install, then a re-run that finds nothing to repair"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env
assert_contains last.out "nothing to do"
# It says what it checked, no more (issue 25): without --repair no byte was hashed.
assert_contains last.out "sizes, types, modes and links match (contents were not re-hashed: --repair checks them)"
! grep -q "matches its bundle" last.out || fail "a re-run without --repair claims a match"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env --repair
assert_contains last.out "SHA-256 of each file included: nothing to do"

note "a truncated file is put back by a plain re-run"
lib=$P/current/lib/libcudnn.so.9
truncate -s 1000 "$lib"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env --json "$W/r.json"
assert_contains last.out "repaired: 1"
cmp "$lib" "$CUDA/lib/libcudnn.so.9" || fail "not restored"
py - "$W/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_code"] == 0 and r["repaired_files"] == 1, r
assert r["environment_added"] is False, r
assert isinstance(r["signers"], list) and len(r["signers"]) == 1, r["signers"]
assert isinstance(r["environment"], list), r["environment"]
PY

note "same size, other bytes: only --repair (SHA-256) sees it"
printf 'X' | dd of="$lib" bs=1 seek=5000 conv=notrunc 2>/dev/null
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env
assert_contains last.out "contents were not re-hashed"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env --repair
assert_contains last.out "content differs"
cmp "$lib" "$CUDA/lib/libcudnn.so.9" || fail "--repair did not restore the content"

note "issue 24, review item 4: a damaged .cuferry/header.bin is put back from the verified bundle"
hdr=$P/current/.cuferry/header.bin
cp "$hdr" "$W/header.good"
printf 'X' | dd of="$hdr" bs=1 seek=100 conv=notrunc 2>/dev/null
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env --repair
assert_contains last.out "repaired: 1 entry put back from the bundle (first: .cuferry/header.bin"
cmp "$hdr" "$W/header.good" || fail "--repair did not restore .cuferry/header.bin"
rm "$hdr"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env --repair
cmp "$hdr" "$W/header.good" || fail "--repair did not put back a missing .cuferry/header.bin"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env
assert_contains last.out "nothing to do"

note "a planted link is replaced, never followed; a missing link comes back"
rm "$P/current/lib/libcudnn.so"
echo keep > "$W/target"
ln -s "$W/target" "$P/current/lib/libcudnn_graph.so.9.planted"
rm "$P/current/lib/libcudnn_graph.so.9"
ln -s "$W/target" "$P/current/lib/libcudnn_graph.so.9"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --no-env
[ "$(readlink "$P/current/lib/libcudnn.so")" = libcudnn.so.9 ] || fail "link not restored"
[ ! -L "$P/current/lib/libcudnn_graph.so.9" ] || fail "planted link kept"
[ "$(cat "$W/target")" = keep ] || fail "the repair wrote through a link"
cmp "$P/current/lib/libcudnn_graph.so.9" "$CUDA/lib/libcudnn_graph.so.9"
[ -z "$(find "$P" -name '*.cuferry-repair')" ] || fail "repair temporaries left"

note "a re-run with --env=user writes the user environment that the first run did not"
[ ! -e "$HOME/.config/cuferry/cudnn.sh" ] || fail "env written with --no-env"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --no-validate --env=user --json "$W/e.json"
[ -f "$HOME/.config/cuferry/cudnn.sh" ] || fail "--env=user re-run wrote nothing"
assert_contains last.out "environment added"
py - "$W/e.json" "$HOME/.config/cuferry/cudnn.sh" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["environment"] == [sys.argv[2]], r["environment"]
assert r["environment_added"] is True and r["repaired_files"] == 0, r
PY
rm "$HOME/.config/cuferry/cudnn.sh"
expect 0 "$UNPACKER" use cudnn-9.19.0-cuda13 --root "$R" --env=user
[ -f "$HOME/.config/cuferry/cudnn.sh" ] || fail "use --env=user wrote nothing"
rm "$HOME/.config/cuferry/cudnn.sh"
expect 0 "$UNPACKER" env --root "$R" --env=user
[ -f "$HOME/.config/cuferry/cudnn.sh" ] || fail "env --env=user wrote nothing"
assert_contains "$HOME/.config/cuferry/cudnn.sh" "/opt/cudnn/current"

note "env: nothing installed is one clear line and no output; ps uses the prefix's separators"
expect 1 "$UNPACKER" env --root "$W/empty"
[ ! -s "$W/last.out" ] || fail "env printed lines with nothing installed: $(cat "$W/last.out")"
assert_contains last.err "nothing is installed"
expect 0 "$UNPACKER" env --root "$R" --shell ps
assert_contains last.out '/opt/cudnn/current'
! grep -q '\\' last.out || fail "mixed separators: $(cat last.out)"
expect 0 "$UNPACKER" env --root "$R" --shell cmd
assert_contains last.out 'CUDNN_PATH=/opt/cudnn/current'
! grep -q '\\' last.out || fail "mixed separators for cmd: $(cat last.out)"

note "SIGTERM and SIGHUP during an install roll back like SIGINT: exit 5, nothing left"
FORGE="python3 $TOP/tests/tools/forge.py"
$FORGE --key "$FX/test.key" --out sig.bundle --counter 7000 --salt sig --bundle-id sig --version 9.50.0
before=$(tree_listing "$R")
for s in TERM HUP INT; do
	CUFERRY_FAULT=switched:pause "$UNPACKER_SEAMS" sig.bundle --root "$R" $T --no-validate --no-env >sig.out 2>sig.err &
	pid=$!
	wait_paused $pid "its pause"
	kill -$s $pid; kill -CONT $pid
	set +e; wait $pid; rc=$?; set -e
	[ $rc -eq 5 ] || { cat sig.err; fail "SIG$s: exit $rc, expected 5"; }
	grep -q "interrupted by SIG$s" sig.err || { cat sig.err; fail "SIG$s not named"; }
	no_staging "$R"
	[ ! -e "$P/.cuferry/journal.json" ] || fail "journal left after SIG$s"
	[ "$(tree_listing "$R")" = "$before" ] || fail "SIG$s: previous state not restored"
done

note "doctor names leftovers of a run killed hard, with the command that cleans them"
CUFERRY_FAULT=extract:pause "$UNPACKER_SEAMS" sig.bundle --root "$R" $T --no-validate >/dev/null 2>&1 &
pid=$!
wait_paused $pid "extract"
kill -9 $pid; wait $pid 2>/dev/null || true
set +e; "$UNPACKER" doctor --root "$R" >doc.out 2>&1; set -e
assert_contains doc.out "leftover staging of an interrupted run"
assert_contains doc.out "unpacker use cudnn-9.19.0-cuda13"
expect 0 "$UNPACKER" use cudnn-9.19.0-cuda13 --root "$R"
no_staging "$R"
set +e; "$UNPACKER" doctor --root "$R" >doc.out 2>&1; set -e
assert_contains doc.out "no leftovers"

note "--json on a usage error still writes the report"
expect 1 "$UNPACKER" "$FX/small.bundle" --bogus --json "$W/u.json"
py - "$W/u.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_code"] == 1 and r["status"] == "usage" and "--bogus" in r["message"], r
PY
# ... and on every early exit after the command line parsed: a log directory others can
# write, a prefix the prefix rule refuses, --platform without --dry-run
mkdir -p "$W/shared-log" && chmod 777 "$W/shared-log"
if [ "$(id -u)" = 0 ]; then
	set +e; "$UNPACKER" verify "$FX/small.bundle" --log "$W/shared-log/u.log" --json "$W/early1.json" 2>/dev/null; rc=$?; set -e
	[ $rc -ne 0 ] || fail "a log directory others can write was taken"
	py - "$W/early1.json" $rc <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_code"] == int(sys.argv[2]) and "log directory" in r["message"], r
PY
fi
expect 1 "$UNPACKER" install "$FX/small.bundle" --root "$W/early" --prefix relative/dir --json "$W/early2.json"
expect 1 "$UNPACKER" install "$FX/small.bundle" --platform linux-sbsa --json "$W/early3.json"
expect 0 "$UNPACKER" install --help --json "$W/early4.json"
py - "$W/early2.json" "$W/early3.json" "$W/early4.json" <<'PY'
import json, sys
a, b, c = (json.load(open(f)) for f in sys.argv[1:4])
assert c["exit_code"] == 0 and c["status"] == "ok" and c["command"] == "help", c
assert a["exit_code"] == 1 and a["status"] == "usage" and "--prefix" in a["message"], a
assert b["exit_code"] == 1 and b["status"] == "usage" and "--platform" in b["message"], b
PY

note "options that exclude each other, a --modulefiles DIR that cannot be used: usage errors before any work"
for pair in "--no-validate --require-gpu" "--no-env --env=user" "--allow-downgrade --keep-current" \
	"--modulefiles relative/mods" "--modulefiles /mods/with space"; do
	set -- $pair
	[ "$1" = --modulefiles ] && set -- "$1" "${pair#--modulefiles }"
	expect 1 "$UNPACKER" "$FX/small.bundle" --root "$W/excl" $T "$@" --json "$W/excl.json"
	grep -q -- "${1}" last.err || fail "the reason does not name $1: $(cat last.err)"
	[ "$(grep -c . last.err)" -le 2 ] || fail "more than the reason and the hint: $(cat last.err)"
	[ ! -e "$W/excl" ] || fail "$pair: work was done before the usage error"
	py - "$W/excl.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_code"] == 1 and r["status"] == "usage", r
PY
done

note "help, COMMAND --help, --version"
for c in install verify validate list use uninstall env doctor help; do
	expect 0 "$UNPACKER" help $c
	assert_contains last.out "usage: unpacker"
	expect 0 "$UNPACKER" $c --help
	assert_contains last.out "usage: unpacker"
done
expect 0 "$UNPACKER" use --help
assert_contains last.out "usage: unpacker use ID"
expect 0 "$UNPACKER" install --help
assert_contains last.out "re-run"
expect 0 "$UNPACKER" --help
assert_contains last.out "exit codes"
# The usage fits 80 columns, and the commands' summaries start in one column, however wide
# a command's arguments (self-install KIT|CONTAINER).
! awk 'length > 80 { print; bad = 1 } END { exit !bad }' last.out || fail "unpacker --help: a line over 80 columns"
cols=$(sed -n '/^commands:$/,$p' last.out | tail -n +2 |
	awk '{ match($0, /^  [^ ]+( [A-Z[][^ ]*)? +/); print RLENGTH }' | sort -u)
[ "$(echo "$cols" | wc -l)" = 1 ] || fail "unpacker --help: the summaries start in columns $(echo $cols)"
expect 1 "$UNPACKER" help nosuch
expect 1 "$UNPACKER" nosuch --help
assert_contains last.err "unknown command 'nosuch'"
expect 0 "$UNPACKER" version
assert_contains last.out "^unpacker [0-9]"
expect 0 "$UNPACKER" help install
assert_contains last.out "--modulefiles DIR"
expect 0 "$UNPACKER" --help
assert_contains last.out "--quick-validate"
assert_contains last.out "--platform P"
expect 0 "$UNPACKER" help validate
assert_contains last.out "--trust K.pub"
assert_contains last.out "--root DIR"
assert_contains last.out "trusted here"
expect 0 "$UNPACKER" --version
for w in "unpacker " commit "bundle format cuferry-bundle-1" libarchive zstd mbedTLS jansson "trusted key"; do
	assert_contains last.out "$w"
done
note "messages: a directory, a later part, an unreadable --trust file"
mkdir -p out
expect 1 "$UNPACKER" verify out $T
assert_contains last.err "out is a directory"
expect 1 "$UNPACKER" install out $T
assert_contains last.err "out holds no bundles"
cp "$FX/small.bundle" p.bundle
expect 0 "$BUNDLER" split p.bundle --split 1M
expect 1 "$UNPACKER" verify p.bundle.002 $T
assert_contains last.err "give p.bundle.001"
expect 2 "$UNPACKER" verify p.bundle --trust nosuch.pub
assert_contains last.err "nosuch.pub: No such file"
note "a directory of programs is no kit: one line, exit 1 (a .run or .exe without a trailer is no bundle)"
mkdir -p progs
printf '#!/bin/sh\n' > progs/tool.run
cp "$UNPACKER" progs/tool.exe
expect 1 "$UNPACKER" install progs $T
assert_contains last.err "progs holds no bundles"

note "a prefix given with one trailing / is that prefix; two are refused"
expect 0 "$UNPACKER" list --root "$R" --prefix /opt/cudnn/
assert_contains last.out "cudnn-9.19.0-cuda13"
expect 1 "$UNPACKER" list --root "$R" --prefix /opt/cudnn//
assert_contains last.err "--prefix '/opt/cudnn//': it must be normalized"

note "uninstall moves the tree aside before it forgets it, and leaves nothing behind"
expect 0 "$UNPACKER" sig.bundle --root "$R" $T --no-validate --no-env --keep-current
sigdir=$(sed -n 's/.*"dir": "\(cudnn-9.50[^"]*\)".*/\1/p' "$P/.cuferry/state.json" | head -n 1)
[ -n "$sigdir" ] && [ -d "$P/$sigdir" ] || fail "no install of sig.bundle in $P"
# Killed after the move and before state.json forgot it: the next run puts the install back.
mv "$P/$sigdir" "$P/.old-$sigdir-4242"
expect 0 "$UNPACKER" use cudnn-9.19.0-cuda13 --root "$R"
[ -d "$P/$sigdir" ] && [ ! -e "$P/.old-$sigdir-4242" ] || fail "the next run did not put $sigdir back"
expect 0 "$UNPACKER" uninstall "$sigdir" --root "$R"
[ ! -e "$P/$sigdir" ] || fail "uninstall left $sigdir"
! ls -a "$P" | grep -q '^\.old-' || fail "uninstall left a .old-* directory"
! grep -q "$sigdir" "$P/.cuferry/state.json" || fail "state.json still names $sigdir"
# What a removal that failed half-way leaves: doctor names it, the next run removes it.
mkdir -p "$P/.old-$sigdir-99999/lib"
set +e; "$UNPACKER" doctor --root "$R" >doc.out 2>&1; set -e
assert_contains doc.out "leftover backup of an interrupted run"
expect 0 "$UNPACKER" use cudnn-9.19.0-cuda13 --root "$R"
[ ! -e "$P/.old-$sigdir-99999" ] || fail "the next run left .old-$sigdir-99999"

note "uninstall --force of the current one: the newest left becomes current, environment kept"
R3=$W/root3
P3=$R3/opt/cudnn
$FORGE --key "$FX/test.key" --out new.bundle --counter 8000 --salt new --bundle-id newer --version 9.60.0
$FORGE --key "$FX/test.key" --out mid.bundle --counter 8001 --salt mid --bundle-id middle --version 9.55.0
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R3" $T --no-validate --modulefiles /mods
expect 0 "$UNPACKER" mid.bundle --root "$R3" $T --no-validate --modulefiles /mods
expect 0 "$UNPACKER" new.bundle --root "$R3" $T --no-validate --modulefiles /mods
newdir=$(readlink "$P3/current")
middir=$(sed -n 's/.*"dir": "\(cudnn-9.55[^"]*\)".*/\1/p' "$P3/.cuferry/state.json" | head -n 1)
case $newdir in cudnn-9.60*) ;; *) fail "9.60 is not current: $newdir" ;; esac
expect 0 "$UNPACKER" uninstall "$newdir" --root "$R3" --force
assert_contains last.out "removed $newdir; current -> $middir (the newest left"
[ "$(readlink "$P3/current")" = "$middir" ] || fail "current is $(readlink "$P3/current"), not $middir"
py - "$P3/.cuferry/state.json" "$middir" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["current"] == sys.argv[2], s["current"]
PY
[ -f "$R3/etc/ld.so.conf.d/00-cuferry-cudnn.conf" ] && [ -f "$R3/etc/profile.d/cuferry-cudnn.sh" ] ||
	fail "the environment went although $middir is still installed"
assert_contains "$R3/etc/ld.so.conf.d/00-cuferry-cudnn.conf" "/opt/cudnn/current/lib"
assert_contains "$R3/mods/cudnn/.version" "${middir#cudnn-}"
expect 0 "$UNPACKER" uninstall "$middir" --root "$R3" --force
[ "$(readlink "$P3/current")" = cudnn-9.19.0-cuda13 ] || fail "9.19 did not take over"
expect 0 "$UNPACKER" uninstall cudnn-9.19.0-cuda13 --root "$R3" --force
assert_contains last.out "no other install is left: nothing is current now"
[ ! -e "$P3/current" ] && [ ! -e "$R3/etc/ld.so.conf.d/00-cuferry-cudnn.conf" ] &&
	[ ! -e "$R3/etc/profile.d/cuferry-cudnn.sh" ] || fail "the last uninstall left current or the environment"

note "--modulefiles DIR on a re-run of an existing install writes the modulefile"
R4=$W/root4
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R4" $T --no-validate
[ ! -e "$R4/mods/cudnn/9.19.0-cuda13.lua" ] || fail "a modulefile without --modulefiles"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R4" $T --no-validate --modulefiles /mods
assert_contains last.out "environment added: .*modulefiles in $R4/mods"
[ -f "$R4/mods/cudnn/9.19.0-cuda13.lua" ] && [ -f "$R4/mods/cudnn/9.19.0-cuda13" ] ||
	fail "the re-run with --modulefiles wrote no modulefile"
assert_contains "$R4/mods/cudnn/.version" "9.19.0-cuda13"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R4" $T --no-validate --modulefiles /mods
assert_contains last.out "nothing to do"

note "output on a pipe keeps the order of a terminal: stdout and stderr interleaved, rows as they come"
mkdir -p kit && cp "$FX/small.bundle" kit/
K4=$W/root5
"$UNPACKER" install kit --root "$K4" $T 2>&1 | cat > piped.out
rm -rf "$K4"
script -qec "'$UNPACKER' install kit --root '$K4' $T" /dev/null | tr '\r' '\n' | sed 's/.*\x1b\[K//' > pty.out
# The lines that matter, in order: the chooser's, validation's start, its rows, its verdict.
order() { grep -E '^(this machine|chose|unpacker: validating|1 +files|validation:)' "$1" | sed 's/:.*//; s/ .*//'; }
[ "$(order piped.out)" = "$(order pty.out)" ] ||
	{ order piped.out; echo ---; order pty.out; fail "a pipe scrambles the order: $(cat piped.out)"; }
[ "$(order piped.out | head -n 1)" = this ] || fail "the chooser's lines come late on a pipe: $(cat piped.out)"

note "validate --json and install --json carry every step, GPU row, detail and timing, in one schema"
expect 0 "$UNPACKER" validate --root "$K4" $T --json vj.json
K6=$W/root6
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$K6" $T --json ij.json
truncate -s 100 "$K6/opt/cudnn/current/lib/libcudnn_graph.so.9"
expect 6 "$UNPACKER" validate --root "$K6" $T --json fj.json
py - "$TOP/docs/unpacker-report.schema.json" vj.json ij.json fj.json "$K4/opt/cudnn/current/.cuferry/report.json" \
	"$TOP/docs/h200-report.json" "$TOP/docs/h200x2-report.json" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
check = jsonschema.Draft7Validator(schema).validate
v, i, f, kept = (json.load(open(p)) for p in sys.argv[2:6])
for r in (v, i, f):
    check(r)
# The kept reports of real GPU runs (step 5-6 rows, per-algorithm records) fit the same schema.
for p in sys.argv[6:8]:
    check({"command": "validate", "exit_code": 0, "status": "ok", "message": "ok", "duration_s": 1.0,
           "validation": json.load(open(p))["validation"]})
steps = lambda r: sorted({c["step"] for c in r["validation"]["checks"]})
assert v["command"] == "validate" and v["validation"]["result"] == "pass-without-gpu", v
assert steps(v) == [1, 2, 3, 4, 5, 6] and steps(i) == [1, 2, 3, 4, 5, 6], (steps(v), steps(i))
assert v["validation"]["checks"] == kept["validation"]["checks"], "not the report's rows"
assert v["validation"]["timings_s"] == kept["validation"]["timings_s"], "not the report's timings"
# validation_timings_s (kept for scripts written before) is the same, to 3 digits.
assert abs(i["validation"]["timings_s"]["total"] - i["validation_timings_s"]["total"]) < 0.01, i
assert f["exit_code"] == 6 and f["validation"]["result"] == "fail", f
failed = [c for c in f["validation"]["checks"] if c["status"] == "fail"]
assert failed and failed[0]["step"] == 1 and "libcudnn_graph.so.9" in failed[0]["detail"], failed
PY
echo ok
