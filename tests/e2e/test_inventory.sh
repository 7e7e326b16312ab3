#!/bin/sh
# inventory: every install with its records, signers, files, last validation, environment and
# the other copies, from files only; exit 0 when nothing drifted, 6 when something did (a
# changed, missing or unlisted file, a shadowing copy, an environment file pointing elsewhere),
# 2 when an install's signer is no longer trusted. Text and --json, piped, from anywhere.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
fp() { openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -c1-64; }
F1=$(fp "$FX/test.pub"); F2=$(fp "$FX/other.pub")
R=$W/root
mkdir -p "$R"
expect 0 "$UNPACKER" trust add "$FX/test.pub" --fingerprint "$F1" --root "$R"
expect 0 "$UNPACKER" trust add "$FX/other.pub" --fingerprint "$F2" --root "$R"
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" "$FX/small.bundle" --root "$R"
V=cudnn-9.19.0-cuda13

note "one install, validated at install: nothing drifted"
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R"
assert_contains last.out "^\* $V: cuDNN 9.19.0 for CUDA 13, linux-x86_64"
assert_contains last.out "bundle     cudnn-9.19.0-cuda13-linux-x86_64, counter 100"
assert_contains last.out "signer     $F1: trusted"
assert_contains last.out "signature  verifies: the stored header is signed by"
assert_contains last.out "files      .* entries, .* as listed (sizes only: --deep hashes them); missing 0, size changed 0, links changed 0, unlisted 0"
assert_contains last.out "validated  20..-..-..T..:..:..Z: pass"
assert_contains last.out "ok   ld.so.conf.d   /etc/ld.so.conf.d/00-cuferry-cudnn.conf -> /opt/cudnn/current/lib"
assert_contains last.out "ok   profile.d      /etc/profile.d/cuferry-cudnn.sh -> /opt/cudnn/current"
assert_contains last.out "ok   current link   /opt/cudnn/current -> $V"
assert_contains last.out "9.19.0     $R/opt/cudnn/$V/lib/libcudnn.so.9"
assert_contains last.out "this install (/opt/cudnn/current); the install's"
assert_contains last.out "nothing drifted"
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" --deep
assert_contains last.out "as listed (sizes and SHA-256); missing 0, size changed 0, SHA-256 changed 0"

note "--json -: the report alone on stdout, piped, from another directory"
(cd / && env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" --json - | cat > "$W/inv.json")
(cd / && env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" | cat > "$W/inv.txt")
assert_contains "$W/inv.txt" "nothing drifted"
py - "$W/inv.json" "$V" "$F1" "$R" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "inventory" and d["exit_code"] == 0, d
inv = d["inventory"]
assert inv["root"] == sys.argv[4] and inv["checked"] == "size", inv
assert inv["drifted"] is False and inv["problems"] == [], inv
p, = inv["prefixes"]
assert p["product"] == "cudnn" and p["prefix"] == "/opt/cudnn" and p["current"] == sys.argv[2], p
b, = p["installs"]
assert b["dir"] == sys.argv[2] and b["cudnn_version"] == "9.19.0" and b["cuda_variant"] == "13", b
assert b["platform"] == "linux-x86_64" and b["counter"] == 100 and b["current"] is True, b
assert b["signers"] == [{"fingerprint": sys.argv[3], "trust": "trusted"}], b["signers"]
assert b["signature"]["verifies"] is True, b
f = b["files"]
assert f["entries"] == f["as_listed"] > 0 and f["sha256_changed"] is None and f["unlisted"] == 0, f
assert b["validation"]["result"].startswith("pass") and b["validation"]["validated_at"], b
kinds = {e["kind"]: e for e in p["environment"]}
assert kinds["ld.so.conf.d"]["ok"] and kinds["ld.so.conf.d"]["points_at"] == "/opt/cudnn/current/lib", kinds
assert kinds["profile.d"]["ok"] and kinds["current link"]["points_at"].endswith(sys.argv[2]), kinds
ours = [c for c in p["copies"] if c["ours"]]
assert len(ours) == 1 and not any(c["shadows"] for c in p["copies"]), p["copies"]
PY

note "a second version beside it, not current and never validated"
cp -r "$FX/small-src" src2
sed -i 's/#define CUDNN_MINOR 19/#define CUDNN_MINOR 20/' src2/include/cudnn_version.h
"$BUNDLER" create --from-dir src2 --cuda 13 --key "$FX/test.key" -o second.bundle --counter 101 --level 1 -q >/dev/null
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" second.bundle --root "$R" --keep-current --no-validate
V2=cudnn-9.20.0-cuda13
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R"
assert_contains last.out "^\* $V: cuDNN 9.19.0"
assert_contains last.out "^  $V2: cuDNN 9.20.0 for CUDA 13"
assert_contains last.out "validated  never (no validation recorded)"
assert_contains last.out "2 installs, current $V"

note "a changed file of the same size: only --deep sees it"
printf 'X' | dd of="$R/opt/cudnn/$V2/LICENSE" bs=1 seek=0 conv=notrunc 2>/dev/null
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" --deep
assert_contains last.out "SHA-256 changed 1"
assert_contains last.err "$V2: LICENSE: SHA-256 differs from the manifest (changed after install)"
one_line_reason

note "a changed size and a file nobody listed: the size check sees both"
echo more >> "$R/opt/cudnn/$V2/include/cudnn_version.h"
: > "$R/opt/cudnn/$V2/lib/libplanted.so"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" --json "$W/drift.json"
assert_contains last.out "missing 0, size changed 1, links changed 0, unlisted 1"
assert_contains last.out "unlisted: lib/libplanted.so"
assert_contains last.err "$V2: include/cudnn_version.h: size differs from the manifest"
one_line_reason
py - "$W/drift.json" "$V2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_code"] == 6 and d["status"] == "validation", d
inv = d["inventory"]
assert inv["drifted"] is True and len(inv["problems"]) == 2, inv["problems"]
b = [b for b in inv["prefixes"][0]["installs"] if b["dir"] == sys.argv[2]][0]
assert b["current"] is False and b["validation"] is None, b
assert b["files"]["size_changed"] == 1 and b["files"]["unlisted"] == 1, b["files"]
assert b["files"]["first_unlisted"] == "lib/libplanted.so", b["files"]
PY
py - "$TOP/docs/unpacker-report.schema.json" "$W/inv.json" "$W/drift.json" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
for p in sys.argv[2:]:
    jsonschema.Draft7Validator(schema).validate(json.load(open(p)))
PY
expect 0 "$UNPACKER" uninstall "$V2" --root "$R"

note "an install whose directory was removed by hand"
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" second.bundle --root "$R" --keep-current --no-validate
rm -r "$R/opt/cudnn/$V2"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R"
assert_contains last.err "$V2: its directory /opt/cudnn/$V2 is gone"
assert_contains last.out "files      not checked (no manifest is believed)"
one_line_reason
expect 0 "$UNPACKER" uninstall "$V2" --root "$R"

note "an older copy earlier in the ld cache shadows the install"
mkdir -p "$R/usr/lib/old"
cp "$R/opt/cudnn/current/lib/libcudnn.so.9" "$R/usr/lib/old/libcudnn.so.9.14.0"
ln -s libcudnn.so.9.14.0 "$R/usr/lib/old/libcudnn.so.9"
echo /usr/lib/old > "$R/etc/ld.so.conf.d/00-aaa-old.conf"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" --json -
py - "$W/last.out" <<'PY'
import json, sys
inv = json.load(open(sys.argv[1]))["inventory"]
bad, = [c for c in inv["prefixes"][0]["copies"] if c["shadows"]]
assert bad["version"] == "9.14.0" and bad["path"] == "/usr/lib/old/libcudnn.so.9.14.0", bad
assert "00-aaa-old.conf" in bad["on_search_path"], bad
PY
assert_contains last.err "/usr/lib/old/libcudnn.so.9.14.0 (cuDNN 9.14.0, unknown"
assert_contains last.err "shadows the install"
one_line_reason
rm -r "$R/etc/ld.so.conf.d/00-aaa-old.conf" "$R/usr/lib/old"

note "an environment file that points elsewhere"
cp "$R/etc/profile.d/cuferry-cudnn.sh" profile.keep
sed -i "s|^CUDNN_PATH=.*|CUDNN_PATH='/opt/elsewhere'|" "$R/etc/profile.d/cuferry-cudnn.sh"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R"
assert_contains last.out "BAD  profile.d      /etc/profile.d/cuferry-cudnn.sh (points elsewhere)"
assert_contains last.err "/etc/profile.d/cuferry-cudnn.sh does not point at /opt/cudnn/current"
cp profile.keep "$R/etc/profile.d/cuferry-cudnn.sh"
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R"

note "a second product in its own prefix: every product's installs, or --product's"
CUDA=$(cat "$FX/cuda_dir")
if [ -f "$CUDA/lib64/libnccl.so.2" ] && [ -f "$CUDA/include/nccl.h" ]; then
	mkdir -p nccl/lib nccl/include "$R/mods"
	cp "$CUDA/lib64/libnccl.so.2" nccl/lib/
	cp "$CUDA/include/nccl.h" nccl/include/
	expect 0 "$BUNDLER" create --product nccl --from-dir nccl --cuda 13 --key "$FX/test.key" -o nccl.bundle --level 1 -q
	expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" nccl.bundle --root "$R" --modulefiles /mods --no-validate
	expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" --json -
	py - "$W/last.out" <<'PY'
import json, sys
inv = json.load(open(sys.argv[1]))["inventory"]
assert [p["product"] for p in inv["prefixes"]] == ["cudnn", "nccl"], inv["prefixes"]
n = inv["prefixes"][1]
assert n["prefix"] == "/opt/nccl" and n["installs"][0]["nccl_version"], n
m, = n["modulefiles"]
assert m["dir"] == "/mods" and m["default_is_current"] and m["installs"] == [n["current"]], m
PY
	expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" --product nccl
	assert_contains last.out "^NCCL in $R/opt/nccl: 1 install"
	! grep -q "^cuDNN in" last.out || fail "--product nccl showed cuDNN's prefix"
	expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R" --prefix /opt/nccl
	assert_contains last.out "^NCCL in $R/opt/nccl: 1 install"
	rm "$R/mods/nccl/.version"
	expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R"
	assert_contains last.err "the modulefiles in /mods do not make nccl-"
	expect 0 "$UNPACKER" uninstall "$(ls "$R/opt/nccl" | grep '^nccl-')" --root "$R" --force --product nccl
fi

note "the signer revoked since the install: the stored header no longer verifies (exit 2)"
expect 0 "$BUNDLER" trust-statement --revoke "$F1" --counter 20 --key "$FX/other.key" -o revoke.st
expect 0 "$BUNDLER" trust-statement revoke.st --key "$FX/test.key"
expect 0 "$UNPACKER" trust apply revoke.st --root "$R"
expect 2 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$R"
assert_contains last.out "signer     $F1: revoked"
assert_contains last.out "signature  DOES NOT VERIFY"
assert_contains last.out "files      not checked (no manifest is believed)"
assert_contains last.err "revoked"
one_line_reason

note "nothing installed: nothing to report, exit 0"
mkdir empty
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" inventory --root "$W/empty"
assert_contains last.out "cuDNN in $W/empty/opt/cudnn: 0 installs, current none"
assert_contains last.out "nothing drifted"
