#!/bin/sh
# Validation (DESIGN.md §7). On this machine, without a GPU: steps 1-4 against the real cuDNN
# 9.19, an image without cuBLAS, a decoy that shadows the install. With a fake libcudnn and
# libcuda built here (CPU convolution): every failure path, each rolled back to the previous
# install; N fake GPUs checked in parallel; fakes that are wrong on purpose (FAKE_CONF); the
# probe never runs as root and its report pipe ignores what libraries print.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
ME=$(id -u)

# Stand-ins for the CUDA libraries cuDNN opens at run time, as files of an image (under
# --root they are looked up, never loaded). The zlib one records it if it ever were.
UIDS=$W/uids
mkdir -p "$UIDS" && chmod 1777 "$UIDS"
stub() { # DIR SONAME [library name for the uid record]
	printf '#include "fakeconf.h"\n__attribute__((constructor)) static void r(void) { fake_record_uid("%s"); }\n' \
		"${3:-$2}" > "$W/stub.c"
	cc -shared -fPIC -I"$TOP/tests/tools" -DFAKE_UID_DIR="\"$UIDS\"" -o "$1/$2" -Wl,-soname,"$2" "$W/stub.c"
}
cuda_libs() { # ROOT: cuBLAS, cuBLASLt, NVRTC and zlib where the image's loader finds them
	mkdir -p "$1/usr/lib/x86_64-linux-gnu"
	for l in libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13; do stub "$1/usr/lib/x86_64-linux-gnu" $l $l-of-the-image; done
	stub "$1/usr/lib/x86_64-linux-gnu" libz.so.1 libz-of-the-image
}

note "an image without cuBLAS or NVRTC: step 4 names them, exit 6; the report outlives the rollback"
mkdir -p "$W/real/usr/lib/x86_64-linux-gnu" # an OS image: its library directories, without CUDA
expect 6 "$UNPACKER" "$FX/real.bundle" --root "$W/real" $T
assert_contains last.err "step 4 dependencies: libcublas.so.13 missing (CUDA component libcublas"
kept=$(sed -n 's/.*report: \(.*report\.json\).*/\1/p' last.err)
case $kept in "$W/real/opt/cudnn/.cuferry/failed/cudnn-9.19.0.56-cuda13-"*) ;; *) fail "report kept at '$kept'" ;; esac
py - "$kept" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
assert v["result"] == "fail", v
assert [c for c in v["checks"] if c["check"] == "dependencies"][0]["status"] == "fail"
PY
[ ! -e "$W/real/opt/cudnn/current" ] || fail "installed although step 4 failed"

note "the real cuDNN 9.19: steps 1-4 pass, 5-6 skipped without a driver, and said so"
cuda_libs "$W/real"
expect 0 "$UNPACKER" "$FX/real.bundle" --root "$W/real" $T
assert_contains last.out "2    library       pass   cuDNN 9.19.0"
assert_contains last.out "3    resolution    pass"
assert_contains last.out "4    dependencies  pass"
assert_contains last.out "5    driver        skip   no NVIDIA driver"
assert_contains last.out "passed WITHOUT a GPU check"
if grep -q "all checks passed" last.out; then fail "claims all checks passed without a GPU"; fi
rep=$W/real/opt/cudnn/current/.cuferry/report.json
py - "$rep" "$W/real" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
assert v["result"] == "pass-without-gpu", v["result"]
assert v["gpu"] == "not checked", v["gpu"]
st = {c["check"]: c["status"] for c in v["checks"]}
assert st["files"] == st["library"] == st["resolution"] == st["dependencies"] == "pass", st
assert st["driver"] == st["compute"] == "skip", st
lib = [c for c in v["checks"] if c["check"] == "library"][0]
assert all("/opt/cudnn/cudnn-9.19.0.56-cuda13/lib/" in p for p in lib["loaded"]), lib
deps = [c for c in v["checks"] if c["check"] == "dependencies"][0]["libraries"]
assert all(p.startswith(sys.argv[2] + "/usr/lib/") for p in deps.values()), deps
for k in ("files", "library", "resolution", "dependencies", "total"):
    assert isinstance(v["timings_s"][k], float), v["timings_s"]
PY
expect 0 "$UNPACKER" validate --root "$W/real" $T
assert_contains last.out "passed WITHOUT a GPU check"
assert_contains last.out "1    signature     pass   the stored header is signed by"

note "no key configured, --root: the image's own record of its signers is not trust (issue 23 A3): exit 2 at step 1"
expect 2 "$UNPACKER" validate --root "$W/real"
one_line_reason
assert_contains last.out "1    signature     fail   .cuferry/header.bin: no trusted key is configured"
assert_contains last.err "signed by $(openssl pkey -pubin -in "$FX/test.pub" -outform DER | sha256sum | cut -c1-16)"
assert_contains last.err "this --root image's own record of its signers (.cuferry/signers) is not trust"
assert_contains last.out "2    library       skip   not loaded: step 1 failed"
sg=$W/real/opt/cudnn/current/.cuferry/signers
[ "$(cat "$sg")" = "$(openssl pkey -pubin -in "$FX/test.pub" -outform DER | sha256sum | cut -c1-64)" ] ||
	fail ".cuferry/signers does not hold the signer's fingerprint: $(cat "$sg")"
note "no key anywhere (an install that recorded none): a trust error, exit 2, one line, nothing loaded"
mv "$sg" saved.sg
expect 2 "$UNPACKER" validate --root "$W/real"
one_line_reason
assert_contains last.err "no trusted key is configured"
assert_contains last.out "1    signature     fail   .cuferry/header.bin: "
assert_contains last.out "2    library       skip   not loaded: step 1 failed"
mv saved.sg "$sg"
note "a changed signature of the stored header: exit 2 (a bad signature), nothing loaded"
hb=$W/real/opt/cudnn/current/.cuferry/header.bin
cp "$hb" saved.hb
py - "$hb" <<'PY2'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
b[-3] ^= 1   # a byte of the signature
open(p, "wb").write(b)
PY2
expect 2 "$UNPACKER" validate --root "$W/real" $T
assert_contains last.out "1    signature     fail"
assert_contains last.out "2    library       skip   not loaded: step 1 failed"
cp saved.hb "$hb"

note "after a rotation: the recorded key removed, validate passes and says so; revoked, exit 2"
fp() { openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -c1-64; }
expect 0 "$UNPACKER" trust add "$FX/test.pub" --root "$W/real"
expect 0 "$UNPACKER" trust add "$FX/other.pub" --root "$W/real"
expect 0 "$UNPACKER" validate --root "$W/real"
assert_contains last.out "1    signature     pass   .*trusted here"
expect 0 "$UNPACKER" trust remove "$(fp "$FX/test.pub")" --root "$W/real"
# Under --root the record never stands in for the removed key (the host's own install's does:
# below, "this host's own install").
expect 2 "$UNPACKER" validate --root "$W/real"
assert_contains last.err "no valid signature by a trusted key (bundle signed by"
assert_contains last.err "image's own record of its signers (.cuferry/signers) is not trust"
expect 0 "$BUNDLER" trust-statement --revoke "$(fp "$FX/test.pub")" --counter 5 --key "$FX/other.key" -o revoke.st
expect 0 "$UNPACKER" trust apply revoke.st --root "$W/real"
expect 2 "$UNPACKER" validate --root "$W/real"
one_line_reason
assert_contains last.err "signed by a revoked key"
expect 2 "$UNPACKER" validate --root "$W/real" $T
assert_contains last.err "signed by a revoked key"
rm -r "$W/real/etc/cuferry" # the later steps trust by --trust again

note "this host's own install (no --root): its record of its signers stands in for a key rotated out, while it is root's alone"
# Steps 3 and later judge this host's own loader (a cuDNN copied into a CUDA directory here
# fails step 3, exit 6): step 1 is what is looked at, a trust failure would be exit 2.
host_validate() {
	set +e
	"$UNPACKER" validate --prefix "$W/hostp" --quick-validate "$@" >"$W/last.out" 2>"$W/last.err"
	got=$?
	set -e
	[ $got = 0 ] || [ $got = 6 ] || { cat "$W/last.out" "$W/last.err" >&2; fail "validate --prefix: exit $got"; }
}
expect 0 "$UNPACKER" "$FX/small.bundle" --prefix "$W/hostp" --no-env $T --no-validate
host_validate
assert_contains last.out "1    signature     pass   .*recorded at install (no key is configured here)"
host_validate --trust "$FX/other.pub"
assert_contains last.out "1    signature     pass   .*recorded at install; that key is no longer trusted here"
if [ "$ME" = 0 ]; then
	hsg=$(ls -d "$W"/hostp/cudnn-*)/.cuferry/signers
	chmod g+w "$hsg"
	expect 2 "$UNPACKER" validate --prefix "$W/hostp" --quick-validate
	one_line_reason
	assert_contains last.err "the install's record of its signers (.cuferry/signers) is not root's alone"
	chmod g-w "$hsg"
	chown nobody "$(dirname "$hsg")"
	expect 2 "$UNPACKER" validate --prefix "$W/hostp" --quick-validate
	assert_contains last.err "is not root's alone"
	chown root "$(dirname "$hsg")"
fi

note "a file changed after the install (same size): validate names it, loads nothing, exit 6"
f=$W/real/opt/cudnn/current/include/cudnn_version.h
cp "$f" saved.h
py -c "import sys; b = bytearray(open(sys.argv[1],'rb').read()); b[10] ^= 1; open(sys.argv[1],'wb').write(b)" "$f"
expect 6 "$UNPACKER" validate --root "$W/real" $T
assert_contains last.out "include/cudnn_version.h: SHA-256 differs from the manifest (changed after install)"
assert_contains last.out "2    library       skip   not loaded: step 1 failed"
cp saved.h "$f"

note "--require-gpu without a GPU: exit 4, and nothing stays installed"
expect 4 "$UNPACKER" "$FX/small.bundle" --root "$W/nogpu" $T --require-gpu
assert_contains last.out "4    dependencies  skip   not checked: the root has no system library directories"
[ ! -e "$W/nogpu/opt/cudnn/current" ] || fail "installed without the GPU it required"

# ---- fakes ----
CONF=$W/fake.conf
: > "$CONF"
# NVRTC as the host has it (outside the image): the fake's runtime-compiled engine opens it.
mkdir -p "$W/host-nvrtc"
stub "$W/host-nvrtc" libnvrtc.so.13 libnvrtc-of-the-host
FAKEFLAGS="-I$TOP/tests/tools -DFAKE_CONF=\"$CONF\" -DFAKE_UID_DIR=\"$UIDS\" -DFAKE_NVRTC=\"$W/host-nvrtc/libnvrtc.so.13\""
mkfake good;       mkbundle good
mkfake version -DFAKE_VERSION=91400;  mkbundle version
mkfake nocudart -DFAKE_NO_CUDART;     mkbundle nocudart
mkfake wrong -DFAKE_WRONG;            mkbundle wrong
mkfake crash -DFAKE_CRASH;            mkbundle crash
mkfake noisy -DFAKE_NOISY;            mkbundle noisy
mkfake forge -DFAKE_FORGE;            mkbundle forge
mkfake elsewhere -Wl,--disable-new-dtags,-rpath,"$W/elsewhere"; mkbundle elsewhere

R=$W/fake
cuda_libs "$R"
# The driver is the host's, never the image's: CUFERRY_LIBCUDA names the fake one, outside R.
drv=$W/host-driver
mkdir -p "$drv"
cc -shared -fPIC -I"$TOP/tests/tools" -DFAKE_CONF="\"$CONF\"" -DFAKE_UID_DIR="\"$UIDS\"" \
	-o "$drv/libcuda.so.580.95.05" -Wl,-soname,libcuda.so.1 "$TOP/tests/tools/fakecuda.c"
ln -sf libcuda.so.580.95.05 "$drv/libcuda.so.1"
export CUFERRY_LIBCUDA="$drv/libcuda.so.1"
V="--quick-validate"

note "the fake cuDNN on the fake driver: all six steps pass"
expect 0 "$UNPACKER" good.bundle --root "$R" $T $V --json "$W/good.json" --log "$W/good.log"
assert_contains last.out "5    driver        pass   driver 580.95.05 (>= 580.65.06); GPU 0 Fake GPU (CPU), 1 GiB, sm 9.0"
assert_contains last.out "6    compute gpu0  pass"
assert_contains last.out "forward         algo 1"
assert_contains last.out "validation: all checks passed"
assert_contains last.out "6    graph gpu0    pass   matmul 64x128 \* 128x96, float, backend API: 2 of 2 engines run correct (2 offered); runtime-compiled: 1 run, correct (1 offered); loaded: NVRTC"
py - "$R/opt/cudnn/current/.cuferry/report.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
assert v["result"] == "pass" and v["gpu"] == "checked", v
assert "compute_gpu0" in v["timings_s"], v["timings_s"]
c = [c for c in v["checks"] if c["check"] == "compute"][0]
assert all(a["sampled_points"] > 0 for a in c["forward"]), c
assert c["forward"][1]["cross_checked_with_algo"] == 0, c
r = json.load(open(sys.argv[1]))
assert set(r["install_timings_s"]) >= {"open_verify", "extract", "sync", "switch", "environment"}, r["install_timings_s"]
PY
py - "$W/good.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert set(j["timings_s"]) == {"open_verify", "extract", "sync", "switch", "environment", "validation"}, j
assert {"files", "library", "driver", "compute_gpu0", "graph_gpu0", "total"} <= set(j["validation_timings_s"]), j
PY
assert_contains "$W/good.log" 'install timings (s): {"open_verify"'
# Reports of failed validations are kept under .cuferry/failed; the rest must not change.
installs() { tree_listing "$R/opt/cudnn" | grep -v '\.cuferry/failed'; }
snap=$(installs)

note "no library the unpacker loads runs as root; the image's own zlib is never loaded"
ls "$UIDS" | grep -q 'libcudnn' || fail "the uid record did not work: $(ls "$UIDS")"
ls "$UIDS" | grep -q 'libcuda-' || fail "the fake driver left no uid record: $(ls "$UIDS")"
if ls "$UIDS" | grep -q '^uid-0-'; then fail "a library ran as root: $(ls "$UIDS" | grep '^uid-0-')"; fi
if ls "$UIDS" | grep -q 'of-the-image'; then fail "a library of the image was loaded: $(ls "$UIDS")"; fi
if [ "$ME" = 0 ]; then ls "$UIDS" | grep -q '^uid-65534-libcudnn' || fail "not run as nobody: $(ls "$UIDS")"; fi

rolled_back() { # CASE: the good install is current again, unchanged
	[ "$(installs)" = "$snap" ] || fail "$1: the previous install was not restored"
	no_staging "$R"
}
report_kept() { # the failed report is where the error line says
	k=$(sed -n 's/.*report: \(.*report\.json\).*/\1/p' last.err)
	[ -f "$k" ] || fail "the error line points at a report that is not there: $(cat last.err)"
}

note "wrong version: exit 6, rolled back"
expect 6 "$UNPACKER" version.bundle --root "$R" $T $V
assert_contains last.out "cudnnGetVersion() says 9.14.0, the manifest 9.19.0"
rolled_back version
report_kept

note "a missing symbol: exit 6, rolled back"
expect 6 "$UNPACKER" nocudart.bundle --root "$R" $T $V
assert_contains last.out "does not export cudnnGetCudartVersion"

note "wrong numbers: exit 6, rolled back"
expect 6 "$UNPACKER" wrong.bundle --root "$R" $T $V
assert_contains last.out "MISMATCH"
assert_contains last.out "6    compute gpu0  fail"

note "a crash inside cuDNN: the probe dies, the unpacker rolls back (exit 6)"
expect 6 "$UNPACKER" crash.bundle --root "$R" $T $V
assert_contains last.out "crashed inside the library (signal 11"

note "a library printing {} and garbage on stdout and stderr changes nothing"
expect 0 "$UNPACKER" noisy.bundle --root "$R" $T $V
assert_contains last.out "6    compute gpu0  pass"

note "a library writing garbage into every other descriptor (the report pipe): a failed check, exit 6"
expect 6 "$UNPACKER" forge.bundle --root "$R" $T $V
assert_contains last.err "malformed"

note "a sub-library loaded from elsewhere (the library's own RPATH): exit 6"
mkdir -p "$W/elsewhere"
cp "$W/src-good/lib/libcudnn_graph.so.9" "$W/elsewhere/"
expect 6 "$UNPACKER" elsewhere.bundle --root "$R" $T $V
assert_contains last.out "$W/elsewhere/libcudnn_graph.so.9 was loaded from outside the install"

note "a driver too old for CUDA 13: exit 4"
cp "$drv/libcuda.so.580.95.05" "$drv/libcuda.so.550.54.14"
ln -sf libcuda.so.550.54.14 "$drv/libcuda.so.1"
expect 4 "$UNPACKER" validate --root "$R" $T $V
assert_contains last.out "driver 550.54.14 is older than 580.65.06"
ln -sf libcuda.so.580.95.05 "$drv/libcuda.so.1"

# Fakes that are wrong on purpose, against the good install: validate names step, GPU, algorithm.
note "one forward algorithm off by a little at one element: the cross-check between algorithms names it"
echo fwd_off_algo=1 > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" $T $V
assert_contains last.err "step 6 compute gpu0: .*(forward algo 1 wrong)"

note "backward filter off: named"
echo bwd_filter_off=1 > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" $T $V
assert_contains last.err "step 6 compute gpu0: .*(backward_filter algo 0 wrong)"

note "one graph engine off (the runtime-compiled one): named"
echo graph_off_engine=1 > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" $T $V
assert_contains last.err "step 6 graph gpu0: .*(engines engine 1 wrong)"

note "four GPUs, checked in parallel: all pass"
echo gpus=4 > "$CONF"
expect 0 "$UNPACKER" validate --root "$R" $T $V
for g in 0 1 2 3; do assert_contains last.out "6    compute gpu$g  pass"; done

note "four GPUs, the third one wrong: named"
printf 'gpus=4\nbad_gpu=2\n' > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" $T $V
assert_contains last.err "step 6 compute gpu2: .*(forward algo 0 wrong)"
assert_contains last.out "6    compute gpu3  pass"

note "a GPU that fails (the test build's CUFERRY_FAULT=gpu1 gives its probe an ordinal no machine has): named, the others report"
printf 'gpus=3\n' > "$CONF"
CUFERRY_FAULT=gpu1 expect 6 "$UNPACKER_SEAMS" validate --root "$R" $T $V
assert_contains last.err "step 6 compute gpu1: "
assert_contains last.out "6    compute gpu0  pass"
assert_contains last.out "6    compute gpu2  pass"
CUFERRY_FAULT=gpu1 expect 0 "$UNPACKER" validate --root "$R" $T $V

note "a GPU that hangs: killed at the deadline, named"
printf 'gpus=2\nhang_gpu=1\n' > "$CONF"
CUFERRY_VALIDATE_TIMEOUT=3 expect 6 "$UNPACKER" validate --root "$R" $T $V
assert_contains last.err "step 6 compute gpu1: GPU 1: timed out after 3 s"
assert_contains last.out "6    compute gpu0  pass"
: > "$CONF"

if [ "$ME" = 0 ]; then
	note "an install nobody can read (a 0700 directory on the way): one clear line, exit 6"
	mkdir -m 0700 "$W/private"
	expect 6 "$UNPACKER" good.bundle --root "$W/private/r" $T $V
	assert_contains last.err "not readable by the unprivileged user .*$W/private blocks it"
fi

note "a decoy earlier in the image's search path shadows the install: named"
mkdir -p "$W/real/old"
cp "$W/src-version/lib/libcudnn.so.9" "$W/src-version/lib/libcudnn_graph.so.9" "$W/real/old/"
echo /old > "$W/real/etc/ld.so.conf.d/00-aaa-old.conf"
expect 6 "$UNPACKER" validate --root "$W/real" $T
assert_contains last.out "gets $W/real/old/libcudnn.so.9, not the install"
if ls "$UIDS" | grep -q '^uid-0-'; then fail "a library ran as root"; fi
