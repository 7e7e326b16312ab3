#!/bin/sh
# The real cuDNN 9.19 bundle end to end: install, re-run, list, use, env, uninstall; verify
# from a read-only directory; a split bundle; the self-extracting .run; silent mode with no
# terminal writing a complete log and JSON report.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
CUDA=$(cat "$FX/cuda_dir")
R=$W/root
P=$R/opt/cudnn
mkdir root

note "install the real bundle"
expect 0 "$UNPACKER" "$FX/real.bundle" --root "$R" $T
assert_contains last.out "installed cudnn-9.19.0.56-cuda13-linux-x86_64"
cmp "$P/current/lib/libcudnn_engines_precompiled.so.9" "$CUDA/lib/libcudnn_engines_precompiled.so.9"
[ "$(readlink "$P/current")" = cudnn-9.19.0.56-cuda13 ] || fail "current link"
[ "$(readlink "$P/current/lib/libcudnn.so")" = libcudnn.so.9 ] || fail "symlink chain"
[ -z "$(find "$P" -perm /7022 ! -type l)" ] || fail "a file with set-id or group/other write bits"
assert_contains "$R/etc/ld.so.conf.d/00-cuferry-cudnn.conf" "/opt/cudnn/current/lib"
assert_contains "$R/etc/profile.d/cuferry-cudnn.sh" "CUDNN_PATH='/opt/cudnn/current'"
grep -q 'LD_LIBRARY_PATH' "$R/etc/profile.d/cuferry-cudnn.sh" && fail "profile.d must not touch LD_LIBRARY_PATH"
[ -f "$P/current/.cuferry/header.bin" ] || fail "header.bin missing"
assert_contains "$P/current/.cuferry/report.json" '"files": 37'   # 31 of cuDNN, 3 pkg-config/CMake files, 2 SBOMs, the provenance record

note "the environment snippets never add an empty path element"
for setting in unset empty set; do
	out=$(env -i sh -c "
		case $setting in unset) unset LD_LIBRARY_PATH PATH ;; empty) LD_LIBRARY_PATH=; PATH= ;; set) LD_LIBRARY_PATH=/x; PATH=/usr/bin:/bin ;; esac
		mkdir -p '$P/current/bin' 2>/dev/null
		. '$R/etc/profile.d/cuferry-cudnn.sh'; printf '%s|%s' \"\${PATH-}\" \"\${LD_LIBRARY_PATH-}\"")
	case "$out" in *::*|:*|*:|*:\|*|*\|:*) fail "empty element with $setting: $out" ;; esac
done
note "profile.d appends the install's bin/ to PATH: a bundle's program never comes first"
# The snippet names /opt/cudnn/current, which is not this machine's: pointed at the test root.
sed "s|^CUDNN_PATH=.*|CUDNN_PATH='$P/current'|" "$R/etc/profile.d/cuferry-cudnn.sh" > profile.sh
mkdir -p "$P/current/bin"
out=$(env -i PATH=/usr/bin:/bin sh -c '. ./profile.sh; printf %s "$PATH"')
[ "$out" = "/usr/bin:/bin:$P/current/bin" ] || fail "profile.d with PATH=/usr/bin:/bin gave '$out'"
out=$(env -i PATH="/usr/bin:$P/current/bin:/bin" sh -c '. ./profile.sh; printf %s "$PATH"')
[ "$out" = "/usr/bin:$P/current/bin:/bin" ] || fail "profile.d added bin/ a second time: '$out'"
rmdir "$P/current/bin" 2>/dev/null || true
"$UNPACKER" env --root "$R" --shell sh > env.sh
out=$(env -i sh -c ". ./env.sh; printf %s \"\$LD_LIBRARY_PATH\"")
[ "$out" = /opt/cudnn/current/lib ] || fail "env for an unset LD_LIBRARY_PATH gave '$out'"
expect 0 "$UNPACKER" env --root "$R" --shell ps
assert_contains last.out '$env:CUDNN_PATH'
grep -qF '$env:PATH = $env:PATH + [IO.Path]::PathSeparator + "$env:CUDNN_PATH/bin"' last.out ||
	fail "env --shell ps does not append bin/ to PATH: $(cat last.out)"
expect 0 "$UNPACKER" env --root "$R" --shell cmd
assert_contains last.out 'set "CUDNN_PATH='
expect 1 "$UNPACKER" env --shell fish

note "re-running is a no-op"
expect 0 "$UNPACKER" "$FX/real.bundle" --root "$R" $T
assert_contains last.out "already installed"

note "a second bundle; list, use, uninstall"
# The small bundle's cuDNN (9.19.0) is older than the real one's (9.19.0.56): it does not take
# current unless asked (DESIGN §6).
expect 7 "$UNPACKER" "$FX/small.bundle" --root "$R" $T
assert_contains last.err "older than the current"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --allow-downgrade
expect 0 "$UNPACKER" list --root "$R"
assert_contains last.out "* cudnn-9.19.0-cuda13"
assert_contains last.out "  cudnn-9.19.0.56-cuda13"
expect 0 "$UNPACKER" use cudnn-9.19.0.56-cuda13 --root "$R"
[ "$(readlink "$P/current")" = cudnn-9.19.0.56-cuda13 ] || fail "use did not switch"
expect 1 "$UNPACKER" uninstall cudnn-9.19.0.56-cuda13 --root "$R"
assert_contains last.err "current"
expect 0 "$UNPACKER" uninstall cudnn-9.19.0-cuda13 --root "$R"
[ ! -e "$P/cudnn-9.19.0-cuda13" ] || fail "uninstall left the directory"
expect 1 "$UNPACKER" use nothing-like-this --root "$R"
expect 0 "$UNPACKER" uninstall cudnn-9.19.0.56-cuda13 --root "$R" --force
[ ! -e "$P/current" ] || fail "current left after uninstalling it"
[ ! -e "$R/etc/profile.d/cuferry-cudnn.sh" ] || fail "environment left after the last uninstall"

note "verify from a read-only directory"
mkdir ro && cp "$FX/real.bundle" ro/
if mount --bind ro ro 2>/dev/null && mount -o remount,ro,bind ro 2>/dev/null; then
	CLEANUP="$CLEANUP umount '$W/ro' 2>/dev/null;"
	touch ro/x 2>/dev/null && fail "ro is writable"
else
	chmod 0555 ro; chmod 0444 ro/real.bundle
fi
expect 0 "$UNPACKER" verify ro/real.bundle $T
assert_contains last.out "all hashes match"
umount ro 2>/dev/null || true

note "a split bundle: read in order, never joined; a missing or corrupt part is named"
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --from-dir "$CUDA" --key "$FX/test.key" \
	-o split/c.bundle --level 3 --counter 100 --split 100M
[ -f split/c.bundle.004 ] && [ -f split/c.bundle ] || fail "expected the bundle and parts .001-.004"
cmp split/c.bundle "$FX/real.bundle" || fail "the plain bundle of a --split run differs"
(cd split && sha256sum -c SHA256SUMS >/dev/null)
cat split/c.bundle.0* | cmp - "$FX/real.bundle" || fail "parts do not add up to the bundle"
expect 0 "$UNPACKER" split/c.bundle.001 --root "$W/sroot" $T
cmp "$W/sroot/opt/cudnn/current/lib/libcudnn_adv.so.9" "$CUDA/lib/libcudnn_adv.so.9"
mv split/c.bundle.003 split/keep
expect 3 "$UNPACKER" verify split/c.bundle.001 $T
assert_contains last.err "c.bundle.003 is missing"
mv split/keep split/c.bundle.003
py -c "
f = open('split/c.bundle.002', 'r+b'); f.seek(5000000); b = f.read(1); f.seek(5000000); f.write(bytes([b[0] ^ 1]))"
expect 3 "$UNPACKER" verify split/c.bundle.001 $T
assert_contains last.err "c.bundle.002"

note "the self-extracting .run installs itself, silently, with a log"
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --from-dir "$CUDA" --key "$FX/test.key" \
	-o run/ --level 3 --counter 100 --sfx --unpacker "$UNPACKER"
x=run/cudnn-9.19.0.56-cuda13-linux-x86_64.run
[ -x "$x" ] || fail "no executable .run"
setsid "$x" /silent --root "$W/xroot" $T --json "$W/report.json" </dev/null >run.out 2>run.err || fail "the .run failed: $(cat run.err)"
[ ! -s run.err ] || fail "silent mode printed: $(cat run.err)"
cmp "$W/xroot/opt/cudnn/current/lib/libcudnn.so.9" "$CUDA/lib/libcudnn.so.9"
log=$W/xroot/var/log/cuferry/unpacker.log
assert_contains "$log" "installed cudnn-9.19.0.56-cuda13-linux-x86_64"
assert_contains "$log" "exit 0 (ok)"
py - "$W/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k, v in {"exit_code": 0, "status": "ok", "bundle_id": "cudnn-9.19.0.56-cuda13-linux-x86_64",
             "files": 37, "cudnn_version": "9.19.0.56", "already_installed": False}.items():
    assert r[k] == v, (k, r[k])
assert r["signers"] and r["duration_s"] >= 0
PY

note "silent failures are just as complete: log line and JSON with the reason"
setsid "$UNPACKER" /S "$FX/real.bundle" --root "$W/xroot" /log="$W/fail.log" --json "$W/fail.json" </dev/null >/dev/null 2>&1 && fail "should fail without trust"
assert_contains fail.log "no trusted key is configured"
assert_contains fail.log "exit 2 (trust)"
assert_contains fail.json '"exit_code": 2'
