#!/bin/sh
# cuSPARSELt, the third product (issue 27), without a GPU: a fake libcusparseLt.so.0
# (tests/tools/fakecusparselt.c) over the fake driver (fakecuda.c), in NVIDIA's archive layout
# (libcusparse_lt-linux-x86_64-VER_cuda13-archive.tar.xz), served from a local mirror in the
# shape of NVIDIA's redistrib_0.8.1.json (tests/data/nvidia). Bundled --from-archive, from the
# mirror and --from-dir; an impossible CUDA refused before anything is fetched (exit 4);
# installed under /opt/cusparselt of a --root with its environment files; step 6's 2:4 sparse
# matmul ("cusparselt-spmma") passes, and a wrong product, a bad prune or a failed init fail
# validation (exit 6) and roll an install back; a GPU below sm 8.0: refused by step 5 when the
# bundle's floor says so (exit 4), skipped by the check itself otherwise; list, use, doctor
# (a pip nvidia-cusparselt-cu13 copy) and uninstall.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
fake_host_driver

# tree DIR MAJOR MINOR PATCH BUILD: cuSPARSELt's tree as NVIDIA's archives lay it out: the
# header with its version macros, the (fake) library under its full version with the soname
# link and the development link, a static library (an archive is carried whole, --from-dir
# takes the descriptor's patterns only), the licence.
tree() {
	mkdir -p "$1/include" "$1/lib"
	printf '#if !defined(CUSPARSELT_HEADER_)\n#define CUSPARSELT_HEADER_\n#define CUSPARSELT_VER_MAJOR %s\n#define CUSPARSELT_VER_MINOR %s\n#define CUSPARSELT_VER_PATCH %s\n#define CUSPARSELT_VER_BUILD %s\n#endif\n' \
		"$2" "$3" "$4" "$5" > "$1/include/cusparseLt.h"
	cc -shared -fPIC -O2 $FAKEFLAGS -o "$1/lib/libcusparseLt.so.$2.$3.$4.$5" \
		-Wl,-soname,libcusparseLt.so.0 "$TOP/tests/tools/fakecusparselt.c" -lm
	ln -s "libcusparseLt.so.$2.$3.$4.$5" "$1/lib/libcusparseLt.so.0"
	ln -s libcusparseLt.so.0 "$1/lib/libcusparseLt.so"
	echo '!<arch>' > "$1/lib/libcusparseLt_static.a"
	echo "cuSPARSELt licence (test copy)" > "$1/LICENSE.txt"
}
V=0.8.1.1
A=libcusparse_lt-linux-x86_64-${V}_cuda13-archive
tree "arc/$A" 0 8 1 1
(cd arc && tar -cJf "../$A.tar.xz" "$A")
ID=cusparselt-$V-cuda13
R=$W/root
S=$R/opt/cusparselt
mkdir -p "$R"

note "bundle NVIDIA's archive: its header, libraries and licence (an archive is carried whole)"
expect 0 "$BUNDLER" create --product cusparselt --from-archive "$A.tar.xz" --key "$FX/test.key" \
	-o out/ --level 1 --cache "$W/cache"
b=out/$ID-linux-x86_64.bundle
[ -f "$b" ] || fail "no $b: $(ls out)"
assert_contains last.out "cuSPARSELt $V for CUDA 13, linux-x86_64"
assert_contains last.out "requires  driver >= 580.65.06, compute capability >= 8.0"
expect 0 "$BUNDLER" inspect "$b"
for f in include/cusparseLt.h "lib/libcusparseLt.so.$V" "lib/libcusparseLt.so.0 -> libcusparseLt.so.$V" \
	"lib/libcusparseLt.so -> libcusparseLt.so.0" LICENSE.txt lib/pkgconfig/cusparselt.pc \
	lib/cmake/CUSPARSELT/CUSPARSELTConfig.cmake; do
	assert_contains last.out "$f"
done
assert_contains last.out "lib/libcusparseLt_static.a"

note "from a mirror in the shape of NVIDIA's redistrib_0.8.1.json: the same files"
py - "$TOP/tests/data/nvidia/redistrib_cusparselt_0.8.1.json" "$A.tar.xz" mirror <<'PY'
import hashlib, json, os, shutil, sys
manifest, archive, out = sys.argv[1:4]
d = json.load(open(manifest))
leaf = d["libcusparse_lt"]["linux-x86_64"]["cuda13"]
data = open(archive, "rb").read()
leaf.update(sha256=hashlib.sha256(data).hexdigest(), md5=hashlib.md5(data).hexdigest(), size=str(len(data)))
path = os.path.join(out, "cusparselt/redist", leaf["relative_path"])
os.makedirs(os.path.dirname(path))
shutil.copy(archive, path)
json.dump(d, open(os.path.join(out, "cusparselt/redist/redistrib_0.8.1.json"), "w"), indent=4)
PY
start_mirror mirror
expect 0 "$BUNDLER" resolve --product cusparselt --product-version 0.8 --cuda 13 --mirror "$MIRROR"
assert_contains last.out "$A.tar.xz"
assert_contains last.out "bundle name $ID-linux-x86_64.bundle"
expect 0 "$BUNDLER" create --product cusparselt --product-version 0.8.1 --cuda 13 --mirror "$MIRROR" \
	--key "$FX/test.key" --cache "$W/cache" -o mirrored/ --level 1
expect 0 "$BUNDLER" inspect "mirrored/$ID-linux-x86_64.bundle"
assert_contains last.out "nvidia-redist $A.tar.xz"
sed -n '/^files/,$p' last.out | grep -v -e dossier -e '^files ' > mirrored.files
expect 0 "$BUNDLER" inspect "$b"
sed -n '/^files/,$p' last.out | grep -v -e dossier -e '^files ' > archive.files
cmp archive.files mirrored.files || fail "the mirror's bundle holds other files than the archive's"

note "an impossible pairing is refused before any download (exit 4): 0.8 is for CUDA 12.9 and 13"
expect 4 "$BUNDLER" resolve --product cusparselt --product-version 0.8.1 --cuda 12.4 --mirror "$MIRROR"
assert_contains last.err "cuSPARSELt 0.8.1.1 does not support CUDA 12.4 according to NVIDIA's support matrix; supported: 13.0; 12.9"
one_line_reason
expect 9 "$BUNDLER" create --product cusparselt --from-archive "$A.tar.xz" --platform windows-x86_64 \
	--key "$FX/test.key" -o x.bundle --cache "$W/cache"
one_line_reason

note "doctor before any install looks for cuSPARSELt's soname, libcusparseLt.so.0"
expect 0 "$UNPACKER" doctor --root "$R" --product cusparselt
assert_contains last.out "cuSPARSELt copies that provide libcusparseLt.so.0"

note "install under --root: /opt/cusparselt, its environment; step 6's 2:4 sparse matmul passes"
mkdir -p "$R/mods"
expect 0 "$UNPACKER" "$b" --root "$R" $T --require-gpu --modulefiles /mods --json "$W/one.json"
assert_contains last.out "installed $ID-linux-x86_64 (cuSPARSELt $V for CUDA 13)"
assert_contains last.out "5    driver        pass   driver 580.95.05 (>= 580.65.06); GPU 0 Fake GPU (CPU), 1 GiB, sm 9.0"
assert_contains last.out "6    compute gpu0  pass   cuSPARSELt 0.8.1 2:4 sparse matmul 64x64x64, FP16 in and out, FP32 compute: every element equals the CPU product of the pruned A"
assert_contains last.out "validation: all checks passed"
[ "$(readlink "$S/current")" = "$ID" ] || fail "current: $(readlink "$S/current")"
assert_contains "$R/etc/ld.so.conf.d/00-cuferry-cusparselt.conf" "/opt/cusparselt/current/lib"
assert_contains "$R/etc/profile.d/cuferry-cusparselt.sh" "CUSPARSELT_PATH='/opt/cusparselt/current'"
assert_contains "$S/current/lib/pkgconfig/cusparselt.pc" "-lcusparseLt"
assert_contains "$S/current/lib/cmake/CUSPARSELT/CUSPARSELTConfig.cmake" "CUSPARSELT::cusparseLt"
assert_contains "$R/mods/cusparselt/$V-cuda13.lua" 'setenv("CUSPARSELT_ROOT", root)'
[ ! -e "$R/opt/cudnn" ] || fail "a cuSPARSELt install made /opt/cudnn"
py - "$S/current/.cuferry/report.json" "$W/one.json" "$TOP/docs/unpacker-report.schema.json" <<'PY'
import json, sys, jsonschema
report, out, schema = [json.load(open(a)) for a in sys.argv[1:4]]
jsonschema.Draft7Validator(schema).validate(out)
v = report["validation"]
assert v["result"] == "pass" and v["gpu"] == "checked" and v["cusparselt_version"], v
assert "compute_gpu0" in v["timings_s"], v["timings_s"]
rows = [c for c in v["checks"] if c["step"] == 6]
assert len(rows) == 1 and rows[0]["gpu"] == 0, rows
r = rows[0]
assert r["status"] == "pass" and r["mismatches"] == 0 and r["elements"] == 4096, r
assert r["cusparselt_version"] == "0.8.1", r
assert set(r["phases_ms"]) == {"init", "prune", "matmul"}, r
PY
ls "$UIDS" | grep -q libcusparseLt || fail "the fake cuSPARSELt left no uid record"
if ls "$UIDS" | grep -q '^uid-0-'; then fail "a library ran as root: $(ls "$UIDS" | grep '^uid-0-')"; fi

note "two fake GPUs: a child each, a row each; --gpu 1 checks that one alone"
echo gpus=2 > "$CONF"
expect 0 "$UNPACKER" validate --root "$R" --product cusparselt $T
assert_contains last.out "6    compute gpu0  pass"
assert_contains last.out "6    compute gpu1  pass"
expect 0 "$UNPACKER" validate --root "$R" --product cusparselt $T --gpu 1
assert_contains last.out "6    compute gpu1  pass"
grep -q 'compute gpu0' last.out && fail "--gpu 1 checked GPU 0"

note "a wrong product on both GPUs: validation fails, exit 6, one line naming the GPU and the element"
printf 'gpus=2\ncusparselt_wrong=1\n' > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" --product cusparselt $T
assert_contains last.err "validation failed: step 6 compute gpu0: 1 of 4096 elements differ from the CPU product of the pruned A (row 32, column 21:"
one_line_reason
note "a prune that is not 2:4 (which cuSPARSELt's own check misses) and a failed init: exit 6"
echo cusparselt_prune_bad=1 > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" --product cusparselt $T
assert_contains last.err "step 6 compute gpu0: the pruned A is not 2:4: row 0, columns 0-3 hold 4 non-zeros"
echo cusparselt_init_fail=1 > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" --product cusparselt $T
assert_contains last.err "step 6 compute gpu0: cusparseLtInit: the operation or data type combination is not supported (cusparseStatus_t 10)"
one_line_reason

note "an install whose matmul is wrong is rolled back: nothing current"
R2=$W/root2
mkdir -p "$R2"
echo cusparselt_wrong=1 > "$CONF"
expect 6 "$UNPACKER" "$b" --root "$R2" $T
one_line_reason
[ ! -e "$R2/opt/cusparselt/current" ] || fail "installed although its matmul was wrong"
no_staging "$R2"

note "a GPU below sm 8.0: step 5 refuses it when the bundle's floor is 8.0 (exit 4)"
echo cc=75 > "$CONF"
expect 4 "$UNPACKER" validate --root "$R" --product cusparselt $T
assert_contains last.out "sm 7.5 (not supported by this cuSPARSELt)"
one_line_reason
note "a release without compatibility rows (floor 7.5, CUDA 13's): the check skips that GPU"
tree old 0 6 3 2
expect 0 "$BUNDLER" create --product cusparselt --from-dir old --cuda 13 --key "$FX/test.key" \
	-o old.bundle --level 1
assert_contains last.out "compute capability >= 7.5"
expect 0 "$BUNDLER" inspect old.bundle
grep -q static last.out && fail "--from-dir carried the static library"
printf 'gpus=2\ncc1=75\n' > "$CONF"
expect 0 "$UNPACKER" old.bundle --root "$R" $T --allow-downgrade --modulefiles /mods
assert_contains last.out "6    compute gpu0  pass"
assert_contains last.out "6    compute gpu1  skip   cuSPARSELt 0.8.1 2:4 sparse matmul 64x64x64, FP16 in and out, FP32 compute: not supported on sm 7.5: cuSPARSELt's 2:4 sparse tensor cores need sm 8.0 or newer"
: > "$CONF"

note "list and use: two installs, the current one switched back"
expect 0 "$UNPACKER" list --root "$R" --product cusparselt
assert_contains last.out "* cusparselt-0.6.3-cuda13"
assert_contains last.out "$ID"
expect 0 "$UNPACKER" use "$ID" --root "$R" --product cusparselt
[ "$(readlink "$S/current")" = "$ID" ] || fail "use: current is $(readlink "$S/current")"
expect 0 "$UNPACKER" list --root "$R"
assert_contains last.out "nothing installed in $R/opt/cudnn"

note "doctor: a pip nvidia-cusparselt-cu13 in a virtual environment is another copy"
SITE=/opt/venv/lib/python3.11/site-packages
mkdir -p "$R$SITE/nvidia/cusparselt/lib" "$R$SITE/nvidia_cusparselt_cu13-0.8.1.dist-info"
cp "arc/$A/lib/libcusparseLt.so.$V" "$R$SITE/nvidia/cusparselt/lib/libcusparseLt.so.0"
printf 'Name: nvidia-cusparselt-cu13\nVersion: 0.8.1\n' > "$R$SITE/nvidia_cusparselt_cu13-0.8.1.dist-info/METADATA"
expect 0 "$UNPACKER" doctor --root "$R" --product cusparselt
assert_contains last.out "cuSPARSELt copies that provide libcusparseLt.so.0"
assert_contains last.out "$R$SITE/nvidia/cusparselt/lib/libcusparseLt.so.0"
assert_contains last.out "from: pip wheel nvidia-cusparselt-cu13 0.8.1 in $SITE"
assert_contains last.out "python3 -m pip uninstall nvidia-cusparselt-cu13"
assert_contains last.out "the installed copy wins"

note "uninstall: both installs go, and with the last one the environment files"
expect 0 "$UNPACKER" uninstall cusparselt-0.6.3-cuda13 --root "$R" --product cusparselt --force
expect 0 "$UNPACKER" uninstall "$ID" --root "$R" --product cusparselt --force
assert_contains last.out "removed $ID; no other install is left"
[ ! -e "$S/$ID" ] && [ ! -e "$S/current" ] || fail "the install or current left"
[ ! -e "$R/etc/ld.so.conf.d/00-cuferry-cusparselt.conf" ] || fail "00-cuferry-cusparselt.conf left"
[ ! -e "$R/etc/profile.d/cuferry-cusparselt.sh" ] || fail "cuferry-cusparselt.sh left"
[ ! -e "$R/mods/cusparselt/$V-cuda13.lua" ] || fail "the modulefile left"
expect 0 "$UNPACKER" list --root "$R" --product cusparselt
assert_contains last.out "nothing installed in $S"
echo "PASS $NAME"
