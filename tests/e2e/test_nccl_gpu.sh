#!/bin/sh
# NCCL's GPU check, "nccl-allreduce" (issue 27), without a GPU: a fake libnccl.so.2
# (tests/tools/fakenccl.c) over the fake driver (fakecuda.c), bundled with the real nccl.h.
# Step 6 runs NCCL in one child for every GPU: communicators over all of them
# (ncclCommInitAll), a float all-reduce compared exactly with the CPU's sum, a row per GPU;
# 1 and 2 fake GPUs, --gpu K; a wrong sum and a failed ncclCommInitAll fail validation
# (exit 6, one line naming the GPU) and a failing install is rolled back; the library runs
# unprivileged.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
ME=$(id -u)
CUDA=$(cat "$FX/cuda_dir")
if [ ! -f "$CUDA/include/nccl.h" ]; then
	echo "SKIP $NAME: no nccl.h in $CUDA/include"
	exit 0
fi
# The driver is the host's: CUFERRY_LIBCUDA names the fake one, outside the root.
fake_host_driver

# NCCL's tree as the toolkit has it: the (fake) library, its link, the real header.
mkdir -p src/lib src/include
cc -shared -fPIC -O2 $FAKEFLAGS -o src/lib/libnccl.so.2 -Wl,-soname,libnccl.so.2 \
	"$TOP/tests/tools/fakenccl.c"
ln -s libnccl.so.2 src/lib/libnccl.so
cp "$CUDA/include/nccl.h" src/include/
V=$(awk '/^#define NCCL_MAJOR /{a=$3} /^#define NCCL_MINOR /{b=$3} /^#define NCCL_PATCH /{c=$3} END{print a "." b "." c}' src/include/nccl.h)
expect 0 "$BUNDLER" create --product nccl --from-dir src --cuda 13 --key "$FX/test.key" \
	-o "$W/nccl.bundle" --level 1 -q
R=$W/root
mkdir -p "$R"
SHAPE="NCCL $V all-reduce (sum) of 1048576 floats (4 MiB) on each of"

note "one fake GPU: installed, steps 5-6 pass (NCCL's all-reduce equals the CPU sum)"
expect 0 "$UNPACKER" "$W/nccl.bundle" --root "$R" $T --require-gpu --json "$W/one.json"
assert_contains last.out "installed nccl-$V-cuda13-linux-x86_64"
assert_contains last.out "5    driver        pass   driver 580.95.05"
assert_contains last.out "6    compute gpu0  pass   $SHAPE 1 GPU: every element equals the CPU sum (communicators"
assert_contains last.out "validation: all checks passed"
py - "$R/opt/nccl/current/.cuferry/report.json" "$W/one.json" "$TOP/docs/unpacker-report.schema.json" "$V" <<'PY'
import json, sys, jsonschema
report, out, schema, version = [json.load(open(a)) for a in sys.argv[1:4]] + [sys.argv[4]]
jsonschema.Draft7Validator(schema).validate(out)
assert out["validation"]["checks"] == report["validation"]["checks"], out
v = report["validation"]
assert v["result"] == "pass" and v["gpu"] == "checked", v
assert "allreduce" in v["timings_s"], v["timings_s"]
rows = [c for c in v["checks"] if c["step"] == 6]
assert len(rows) == 1 and rows[0]["gpu"] == 0 and rows[0]["check"] == "compute", rows
r = rows[0]
assert r["status"] == "pass" and r["mismatches"] == 0 and r["elements"] == 1 << 20, r
assert r["nccl_version"] == version, r
assert set(r["phases_ms"]) == {"init", "upload", "allreduce", "destroy", "copy_back"}, r
PY

note "the library ran unprivileged: never as root"
ls "$UIDS" | grep -q 'libnccl' || fail "the fake NCCL left no uid record: $(ls "$UIDS")"
if ls "$UIDS" | grep -q '^uid-0-'; then fail "a library ran as root: $(ls "$UIDS" | grep '^uid-0-')"; fi
if [ "$ME" = 0 ]; then ls "$UIDS" | grep -q '^uid-65534-libnccl' || fail "not run as nobody: $(ls "$UIDS")"; fi

note "two fake GPUs: one child, communicators over both, a row per GPU"
echo gpus=2 > "$CONF"
before=$(ls "$UIDS" | grep -c 'libnccl')
expect 0 "$UNPACKER" validate --root "$R" --product nccl $T --json "$W/two.json"
assert_contains last.out "6    compute gpu0  pass   $SHAPE 2 GPUs: every element equals the CPU sum"
assert_contains last.out "6    compute gpu1  pass   $SHAPE 2 GPUs: every element equals the CPU sum"
# step 2 loads it in a child of its own, step 6 in one child for both GPUs
n=$(( $(ls "$UIDS" | grep -c 'libnccl') - before ))
[ "$n" -eq 2 ] || fail "NCCL loaded in $n children, not 2 (step 2's and step 6's): $(ls "$UIDS")"

note "--gpu 1: NCCL on that GPU alone, its row named by its index"
expect 0 "$UNPACKER" validate --root "$R" --product nccl $T --gpu 1
assert_contains last.out "6    compute gpu1  pass   $SHAPE 1 GPU: every element equals the CPU sum"
grep -q 'compute gpu0' last.out && fail "--gpu 1 checked GPU 0"

note "a wrong sum on GPU 1: validation fails, exit 6, one line naming the GPU and the element"
printf 'gpus=2\nnccl_wrong_gpu=1\n' > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" --product nccl $T
assert_contains last.out "6    compute gpu0  pass"
assert_contains last.out "6    compute gpu1  fail   $SHAPE 2 GPUs: 1 of 1048576 elements differ from the CPU sum (element 349525:"
assert_contains last.err "validation failed: step 6 compute gpu1: 1 of 1048576 elements differ from the CPU sum"
one_line_reason

note "an install whose all-reduce is wrong is rolled back: nothing current"
R2=$W/root2
mkdir -p "$R2"
expect 6 "$UNPACKER" "$W/nccl.bundle" --root "$R2" $T
assert_contains last.err "step 6 compute gpu1:"
one_line_reason
[ ! -e "$R2/opt/nccl/current" ] || fail "installed although its all-reduce was wrong"
no_staging "$R2"

note "ncclCommInitAll fails: one row for all GPUs, exit 6"
printf 'gpus=2\nnccl_init_fail=1\n' > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" --product nccl $T
assert_contains last.err "validation failed: step 6 compute: ncclCommInitAll over 2 GPUs: unhandled system error"
one_line_reason

note "a library of another release than the manifest's: exit 6 before any GPU is touched"
printf 'nccl_version=22808\n' > "$CONF"
expect 6 "$UNPACKER" validate --root "$R" --product nccl $T
assert_contains last.err "validation failed: step 6 compute: ncclGetVersion() says 2.28.8, the manifest $V"
one_line_reason

note "the fake right again: --require-gpu passes"
: > "$CONF"
expect 0 "$UNPACKER" validate --root "$R" --product nccl $T --require-gpu
assert_contains last.out "6    compute gpu0  pass"
echo "PASS $NAME"
