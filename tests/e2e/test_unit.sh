#!/bin/sh
# A unit of several products in one bundle (issue 27: bundler create --with): this machine's
# real cuDNN and real NCCL from its CUDA toolkit in one signed bundle (format 2), installed and
# switched as one (one install directory, one current, one environment), each product's steps
# 2-4 run and named, both in the SBOMs, the unit in inventory; then a fake cuDNN and a fake
# NCCL over the fake driver's two GPUs: step 6 runs both products' checks, a wrong NCCL sum
# fails the unit (exit 6, "(NCCL)") and is rolled back; and what --with refuses (an unknown
# product, the bundle's own, a tree without it, another version, no source).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
CUDA=$(cat "$FX/cuda_dir")
if [ ! -f "$CUDA/lib64/libnccl.so.2" ] || [ ! -f "$CUDA/include/nccl.h" ]; then
	echo "SKIP $NAME: no NCCL in $CUDA (lib64/libnccl.so.2, include/nccl.h)"
	exit 0
fi
export CUFERRY_LIBCUDA="$W/no-driver/libcuda.so.1"
CV=$(awk '/^#define CUDNN_MAJOR /{a=$3} /^#define CUDNN_MINOR /{b=$3} /^#define CUDNN_PATCHLEVEL /{c=$3} END{print a "." b "." c}' "$CUDA/include/cudnn_version.h")
NV=$(awk '/^#define NCCL_MAJOR /{a=$3} /^#define NCCL_MINOR /{b=$3} /^#define NCCL_PATCH /{c=$3} END{print a "." b "." c}' "$CUDA/include/nccl.h")

note "the toolkit's cuDNN with its NCCL: one bundle, format 2, its id and install name naming both"
export SOURCE_DATE_EPOCH=1764000000
expect 0 "$BUNDLER" create --from-dir "$CUDA" --with nccl --key "$FX/test.key" -o "$W/out/" \
	--level 1 -q
B=$(ls "$W"/out/cudnn-*+nccl-*.bundle)
ID=$(basename "$B" .bundle)
case $ID in cudnn-$CV*-cuda13+nccl-$NV-linux-x86_64) ;; *) fail "unit id $ID" ;; esac
assert_contains last.out "with      NCCL $NV"
expect 0 "$BUNDLER" inspect "$B" --export "$W/exp"
assert_contains last.out "format      cuferry-bundle-2"
assert_contains last.out "with        NCCL $NV (from dir $CUDA)"
assert_contains last.out " lib/libnccl.so.2"
assert_contains last.out " lib/pkgconfig/nccl.pc"
py - "$W/exp/header.json" "$NV" <<'PY'
import json, sys
m, nv = json.load(open(sys.argv[1])), sys.argv[2]
assert m["format"] == "cuferry-bundle-2", m["format"]
assert list(m["with"]) == ["nccl"] and m["with"]["nccl"]["version"] == nv, m["with"]
assert m["with"]["nccl"]["source"]["kind"] == "dir", m["with"]
paths = {f["path"] for f in m["files"]}
assert {"lib/libnccl.so.2", "include/nccl.h", "lib/libcudnn.so.9", "include/cudnn.h"} <= paths, paths
assert not any(p.startswith("licenses/cudnn") for p in paths), paths
PY

note "the same inputs: a byte-identical unit"
expect 0 "$BUNDLER" create --from-dir "$CUDA" --with nccl --key "$FX/test.key" -o "$W/again/" \
	--level 1 -q
cmp "$B" "$W/again/$ID.bundle" || fail "two builds of one unit differ"
rm -rf "$W/again"

note "both products in both SBOMs, valid against their schemas"
fp=$(openssl pkey -pubin -in "$FX/test.pub" -outform DER | sha256sum | cut -c1-64)
"$BUNDLER" inspect "$B" --sbom cyclonedx > "$W/cdx.json" || fail "inspect --sbom cyclonedx"
"$BUNDLER" inspect "$B" --sbom spdx > "$W/spdx.json" || fail "inspect --sbom spdx"
PV=$(py -c 'import json, sys; print(json.load(open(sys.argv[1]))["cudnn"]["version"])' "$W/exp/header.json")
py "$TOP/tests/tools/check_sbom.py" "$TOP/tests/data/sbom" "$W/exp/header.json" "$W/cdx.json" \
	"$W/spdx.json" "pkg:generic/nvidia/cudnn@$PV?cuda=13&platform=linux-x86_64" "$fp" ||
	fail "the unit's SBOMs do not validate"
py - "$W/cdx.json" "$W/spdx.json" "$NV" <<'PY'
import json, sys
cdx, spdx, nv = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
nccl = [c for c in cdx["components"] if c["name"] == "nccl"]
assert len(nccl) == 1 and nccl[0]["version"] == nv, nccl
assert nccl[0]["purl"].startswith("pkg:generic/nvidia/nccl@" + nv + "?cuda=13"), nccl[0]["purl"]
files = [f["name"] for f in nccl[0].get("components", [])]
assert "lib/libnccl.so.2" in files and "include/nccl.h" in files, files
cudnn = [c for c in cdx["components"] if c["name"] == "cudnn"][0]
assert not any(f["name"].startswith("lib/libnccl") for f in cudnn.get("components", [])), cudnn
pk = [p for p in spdx["packages"] if p["name"] == "nccl"]
assert len(pk) == 1 and pk[0]["versionInfo"] == nv, pk
PY

note "the provenance names each product's own source, its files under it"
"$BUNDLER" inspect "$B" --provenance > "$W/prov.json" || fail "inspect --provenance"
py - "$W/prov.json" "$CUDA" <<'PY'
import json, sys
p, cuda = json.load(open(sys.argv[1])), sys.argv[2]
by = {s["name"]: s for s in p["sources"]}
assert by["nccl"]["role"] == "with" and by["nccl"]["directory"] == cuda, by["nccl"]
assert by["nccl"]["authorised_by"] is None and by["nccl"]["not_known"], by["nccl"]
npaths = {m["path"] for m in by["nccl"]["members"]}
cpaths = {m["path"] for m in by["cudnn"]["members"]}
assert "lib/libnccl.so.2" in npaths and "include/nccl.h" in npaths, npaths
assert not any("nccl" in x for x in cpaths), cpaths
assert not any("nccl" in o["path"] and o["origin"] != "written by the bundler" for o in p["other_files"]), p["other_files"]
PY

note "installed as one unit: one directory, one current, each product's steps 2-3 named"
R=$W/root
mkdir -p "$R"
expect 0 "$UNPACKER" "$B" --root "$R" $T --json "$W/inst.json"
D=$(readlink "$R/opt/cudnn/current")
case $D in cudnn-*-cuda13+nccl-$NV) ;; *) fail "current -> $D" ;; esac
assert_contains last.out "2    library       pass   cuDNN"
assert_contains last.out "2    library       pass   NCCL: "
assert_contains last.out "3    resolution    pass   NCCL: a program loading libnccl.so.2 gets the install"
cmp "$R/opt/cudnn/current/lib/libnccl.so.2" "$CUDA/lib64/libnccl.so.2"
[ ! -e "$R/opt/nccl" ] || fail "a unit's NCCL went to a prefix of its own"
py - "$R/opt/cudnn/current/.cuferry/report.json" "$TOP/docs/unpacker-report.schema.json" "$W/inst.json" <<'PY'
import json, sys, jsonschema
report, schema, out = [json.load(open(a)) for a in sys.argv[1:4]]
jsonschema.Draft7Validator(schema).validate(out)
assert out["validation"]["checks"] == report["validation"]["checks"], out
rows = report["validation"]["checks"]
nccl = [c for c in rows if c.get("product") == "nccl"]
assert {c["step"] for c in nccl} == {2, 3, 4}, nccl
assert not any(c.get("product") for c in rows if c["step"] == 1), rows
t = report["validation"]["timings_s"]
assert "nccl_library" in t and "library" in t, t
PY

note "inventory shows the unit's products and both builders' files"
expect 0 "$UNPACKER" inventory --root "$R" $T --json "$W/inv.json"
assert_contains last.out "    with       NCCL $NV"
assert_contains last.out "builder    lib/pkgconfig/nccl.pc"
py - "$W/inv.json" <<'PY'
import json, sys
inv = json.load(open(sys.argv[1]))
i = inv["inventory"]["prefixes"][0]["installs"][0]
assert i["with"] == [{"product": "nccl", "version": i["with"][0]["version"]}], i["with"]
assert {"file": "lib/pkgconfig/nccl.pc", "present": True} in i["builder_files"], i["builder_files"]
PY

note "beside a bundle of cuDNN alone: list, use and uninstall act on the unit by its id"
FAKEFLAGS=""
mkfake alone
"$BUNDLER" create --from-dir "$W/src-alone" --cuda 13 --key "$FX/test.key" -o "$W/alone.bundle" \
	--level 1 -q >/dev/null || fail "bundle cuDNN alone"
expect 0 "$UNPACKER" "$W/alone.bundle" --root "$R" $T --no-validate --keep-current
expect 0 "$UNPACKER" list --root "$R"
assert_contains last.out "* $D "
assert_contains last.out "  cudnn-9.19.0-cuda13 "
expect 0 "$UNPACKER" use cudnn-9.19.0-cuda13-linux-x86_64 --root "$R"
[ "$(readlink "$R/opt/cudnn/current")" = cudnn-9.19.0-cuda13 ] || fail "use: current -> $(readlink "$R/opt/cudnn/current")"
expect 0 "$UNPACKER" use "$ID" --root "$R"
[ "$(readlink "$R/opt/cudnn/current")" = "$D" ] || fail "use $ID: current -> $(readlink "$R/opt/cudnn/current")"
expect 0 "$UNPACKER" uninstall cudnn-9.19.0-cuda13-linux-x86_64 --root "$R"
[ -d "$R/opt/cudnn/$D" ] || fail "uninstalling the bundle of cuDNN alone took the unit"
expect 0 "$UNPACKER" list --root "$R"
assert_contains last.out "* $D "

note "pkg-config finds both products of the unit through the one environment"
PKG_CONFIG_PATH="$R/opt/cudnn/current/lib/pkgconfig" pkg-config --modversion nccl > "$W/pc.out" ||
	fail "pkg-config nccl"
grep -qx "$NV" "$W/pc.out" || fail "pkg-config nccl says $(cat "$W/pc.out")"

note "fakes over two GPUs: step 6 runs cuDNN's checks and NCCL's beside them"
CONF=$W/fake.conf
UIDS=$W/uids
mkdir -p "$UIDS" && chmod 1777 "$UIDS"
printf 'gpus=2\n' > "$CONF"
chmod 0644 "$CONF"
FAKEFLAGS="-I$TOP/tests/tools -DFAKE_CONF=\"$CONF\" -DFAKE_UID_DIR=\"$UIDS\""
mkfake unit
cc -shared -fPIC -O2 $FAKEFLAGS -o "$W/src-unit/lib/libnccl.so.2" -Wl,-soname,libnccl.so.2 \
	"$TOP/tests/tools/fakenccl.c"
ln -s libnccl.so.2 "$W/src-unit/lib/libnccl.so"
cp "$CUDA/include/nccl.h" "$W/src-unit/include/"
mkdir -p "$W/drv"
cc -shared -fPIC $FAKEFLAGS -o "$W/drv/libcuda.so.580.95.05" -Wl,-soname,libcuda.so.1 \
	"$TOP/tests/tools/fakecuda.c"
ln -sf libcuda.so.580.95.05 "$W/drv/libcuda.so.1"
export CUFERRY_LIBCUDA="$W/drv/libcuda.so.1"
chmod -R o+rX "$W"
expect 0 "$BUNDLER" create --from-dir "$W/src-unit" --with nccl --cuda 13 --key "$FX/test.key" \
	-o "$W/fakeunit.bundle" --level 1 -q
R2=$W/root2
mkdir -p "$R2"
expect 0 "$UNPACKER" "$W/fakeunit.bundle" --root "$R2" $T --require-gpu --quick-validate \
	--json "$W/fake.json"
assert_contains last.out "6    compute gpu0  pass   NCCL: NCCL $NV all-reduce"
assert_contains last.out "6    compute gpu1  pass   NCCL: NCCL $NV all-reduce"
assert_contains last.out "validation: all checks passed"
py - "$W/fake.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["validation"]
six = [c for c in v["checks"] if c["step"] == 6]
assert {c.get("gpu") for c in six if c.get("product") == "nccl"} == {0, 1}, six
assert {c.get("gpu") for c in six if not c.get("product")} == {0, 1}, six
assert "nccl_allreduce" in v["timings_s"] and "compute_gpu0" in v["timings_s"], v["timings_s"]
PY

note "a wrong NCCL sum on GPU 1 fails the unit: exit 6 naming NCCL, rolled back whole"
printf 'gpus=2\nnccl_wrong_gpu=1\n' > "$CONF"
expect 6 "$UNPACKER" validate --root "$R2" $T --quick-validate
assert_contains last.err "validation failed: step 6 compute gpu1 (NCCL):"
one_line_reason
R3=$W/root3
mkdir -p "$R3"
expect 6 "$UNPACKER" "$W/fakeunit.bundle" --root "$R3" $T --quick-validate
assert_contains last.err "step 6 compute gpu1 (NCCL):"
[ ! -e "$R3/opt/cudnn/current" ] || fail "a unit whose NCCL failed was made current"
no_staging "$R3"
printf 'gpus=2\n' > "$CONF"
export CUFERRY_LIBCUDA="$W/no-driver/libcuda.so.1"

note "what --with refuses, before anything is written"
expect 1 "$BUNDLER" create --from-dir "$CUDA" --with nosuch --key "$FX/test.key" -o "$W/x/"
assert_contains last.err "--with: unknown product 'nosuch' (products: "
expect 1 "$BUNDLER" create --from-dir "$CUDA" --with cudnn --key "$FX/test.key" -o "$W/x/"
assert_contains last.err "--with cudnn: the bundle is of cuDNN already"
expect 1 "$BUNDLER" create --from-dir "$CUDA" --with-dir nccl --key "$FX/test.key" -o "$W/x/"
assert_contains last.err "--with-dir 'nccl' is not NAME=DIR"
mkfake plain
expect 9 "$BUNDLER" create --from-dir "$W/src-plain" --with nccl --cuda 13 --key "$FX/test.key" -o "$W/x/"
assert_contains last.err "--with nccl: $W/src-plain: no NCCL headers (include/nccl.h) found (give --with-dir nccl=DIR)"
one_line_reason
expect 9 "$BUNDLER" create --from-dir "$W/src-plain" --with nccl=2.27.3 --with-dir "nccl=$W/src-unit" \
	--cuda 13 --key "$FX/test.key" -o "$W/x/"
assert_contains last.err "--with nccl=2.27.3: the source holds NCCL $NV"
expect 1 "$BUNDLER" create --with nccl --key "$FX/test.key" -o "$W/x/" --mirror "file://$W/no-mirror"
assert_contains last.err "--with nccl: NVIDIA's mirror is not read for a --with product yet"
[ ! -e "$W/x" ] || [ -z "$(ls -A "$W/x")" ] || fail "a refused create wrote $(ls "$W/x")"

note "a --with-dir of its own: the unit from two trees"
mkdir -p "$W/ncclonly/lib" "$W/ncclonly/include"
cp "$W/src-unit/lib/libnccl.so.2" "$W/ncclonly/lib/" && ln -s libnccl.so.2 "$W/ncclonly/lib/libnccl.so"
cp "$CUDA/include/nccl.h" "$W/ncclonly/include/"
expect 0 "$BUNDLER" create --from-dir "$W/src-plain" --with-dir "nccl=$W/ncclonly" --cuda 13 \
	--key "$FX/test.key" -o "$W/two.bundle" --level 1 -q
assert_contains last.out "with      NCCL $NV"
echo "PASS $NAME"
