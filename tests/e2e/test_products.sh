#!/bin/sh
# A second product end to end on the unpacker side (issue 26 item 4): the real NCCL of this
# machine's CUDA toolkit bundled with --product nccl, installed into a --root under its own
# prefix /opt/nccl with its own state, current, environment files, pkg-config, CMake and
# modulefiles; a cuDNN bundle beside it in the same root, neither disturbing the other; list,
# env, doctor, validate and uninstall per product (--product); a prefix holds one product;
# the kit chooser considers the bundles of --product only; validation without a driver skips
# NCCL's GPU check and says why (a failure with --require-gpu; the check itself:
# test_nccl_gpu).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
# No driver whatever this host has: the path CUFERRY_LIBCUDA names is not there.
export CUFERRY_LIBCUDA="$W/no-driver/libcuda.so.1"
CUDA=$(cat "$FX/cuda_dir")
if [ ! -f "$CUDA/lib64/libnccl.so.2" ] || [ ! -f "$CUDA/include/nccl.h" ]; then
	echo "SKIP $NAME: no NCCL in $CUDA (lib64/libnccl.so.2, include/nccl.h)"
	exit 0
fi
R=$W/root
N=$R/opt/nccl
C=$R/opt/cudnn
mkdir -p root src/lib src/include
# NCCL's tree as the toolkit has it: the library, its link, its headers, and (2.28 and later)
# the device API's headers in include/nccl_device/, nested, which a bundle carries whole.
cp "$CUDA/lib64/libnccl.so.2" src/lib/
ln -s libnccl.so.2 src/lib/libnccl.so
cp "$CUDA"/include/nccl*.h src/include/
if [ -d "$CUDA/include/nccl_device" ]; then
	cp -R "$CUDA/include/nccl_device" src/include/
else
	note "no include/nccl_device/ in $CUDA (NCCL before 2.28): a stand-in of two levels"
	mkdir -p src/include/nccl_device/impl
	echo '/* stand-in */' > src/include/nccl_device/core.h
	echo '/* stand-in */' > src/include/nccl_device/impl/core__types.h
fi
# The deepest of them, for the checks below.
deep=$(cd src && find include/nccl_device -type f | awk -F/ '{ print NF " " $0 }' | sort -n | tail -1 | cut -d' ' -f2)
ndevice=$(find src/include/nccl_device -type f | wc -l)
V=$(awk '/^#define NCCL_MAJOR /{a=$3} /^#define NCCL_MINOR /{b=$3} /^#define NCCL_PATCH /{c=$3} END{print a "." b "." c}' src/include/nccl.h)
D=nccl-$V-cuda13

note "bundle the real NCCL $V"
expect 0 "$BUNDLER" create --product nccl --from-dir src --cuda 13 --key "$FX/test.key" \
	-o "$W/nccl.bundle" --level 1 -q
[ -f "$W/nccl.bundle" ] || fail "no NCCL bundle"

note "install it: /opt/nccl, its own state, current and environment"
mkdir -p "$R/mods"
expect 0 "$UNPACKER" "$W/nccl.bundle" --root "$R" $T --modulefiles /mods
assert_contains last.out "installed nccl-$V-cuda13-linux-x86_64 (NCCL $V for CUDA 13)"
assert_contains last.out "no NVIDIA driver (libcuda.so.1 not found)"
[ "$(readlink "$N/current")" = "$D" ] || fail "/opt/nccl/current: $(readlink "$N/current")"
cmp "$N/current/lib/libnccl.so.2" "$CUDA/lib64/libnccl.so.2"
diff -r src/include/nccl_device "$N/current/include/nccl_device" ||
	fail "include/nccl_device/ is not installed as the source has it"
[ "$(stat -c %a "$N/current/${deep%/*}")" = 755 ] || fail "${deep%/*}: not made 0755"
expect 0 "$BUNDLER" inspect "$W/nccl.bundle"
[ "$(grep -c ' include/nccl_device/' last.out)" -eq "$ndevice" ] ||
	fail "the bundle lists $(grep -c ' include/nccl_device/' last.out) files of include/nccl_device/, the source has $ndevice"
assert_contains "$N/.cuferry/state.json" '"product": "nccl"'
assert_contains "$R/etc/ld.so.conf.d/00-cuferry-nccl.conf" "/opt/nccl/current/lib"
assert_contains "$R/etc/profile.d/cuferry-nccl.sh" "NCCL_HOME='/opt/nccl/current'"
assert_contains "$N/current/lib/pkgconfig/nccl.pc" "-lnccl"
[ -f "$N/current/lib/cmake/NCCL/NCCLConfig.cmake" ] || fail "no CMake package NCCL"
assert_contains "$R/mods/nccl/$V-cuda13.lua" 'setenv("NCCL_HOME", root)'
assert_contains "$R/mods/nccl/.version" "set ModulesVersion \"$V-cuda13\""
[ ! -e "$C" ] || fail "an NCCL install made /opt/cudnn"
ls "$R/etc/ld.so.conf.d" | grep -q cudnn && fail "an NCCL install wrote cuDNN's ld.so.conf.d file"
assert_contains "$N/current/.cuferry/report.json" "\"nccl_version\": \"$V\""
grep -q cudnn_version "$N/current/.cuferry/report.json" && fail "NCCL's report names cudnn_version"

note "list, env and doctor take --product"
expect 0 "$UNPACKER" list --root "$R" --product nccl
assert_contains last.out "* $D"
expect 0 "$UNPACKER" env --root "$R" --product nccl
assert_contains last.out "NCCL_HOME='/opt/nccl/current'"
expect 0 "$UNPACKER" doctor --root "$R" --product nccl
assert_contains last.out "NCCL copies that provide libnccl.so.2"
assert_contains last.out "the installed copy wins"
expect 0 "$UNPACKER" list --root "$R"
assert_contains last.out "nothing installed in $C"

note "validation without a driver: NCCL's GPU check skipped (--require-gpu fails, exit 4)"
expect 0 "$UNPACKER" validate --root "$R" --product nccl $T --json "$W/v.json"
assert_contains last.out "5    driver        skip   no NVIDIA driver (libcuda.so.1 not found)"
assert_contains last.out "6    compute       skip   no NVIDIA driver: the GPU was not checked"
assert_contains last.out "validation: passed WITHOUT a GPU check (no NVIDIA driver or GPU"
assert_contains last.out "2    library       pass"
py - "$W/v.json" "$TOP/docs/unpacker-report.schema.json" <<'EOF'
import json, sys, jsonschema
report, schema = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.Draft7Validator(schema).validate(report)
v = report["validation"]
assert v["nccl_version"] and "cudnn_version" not in v, v
del v["nccl_version"]  # the schema requires one NAME_version key
assert not jsonschema.Draft7Validator(schema).is_valid(report), "a validation without its version key passed"
rows = {c["check"]: c for c in v["checks"]}
assert rows["compute"]["status"] == "skip" and "no NVIDIA driver" in rows["compute"]["detail"], rows
EOF
expect 4 "$UNPACKER" validate --root "$R" --product nccl $T --require-gpu
assert_contains last.out "6    compute       fail   no NVIDIA driver: the GPU was not checked"
one_line_reason

note "a nested header changed, planted beside, or removed: validate names it (exit 6), a re-run puts it back"
py -c "import sys; b = bytearray(open(sys.argv[1],'rb').read()); b[10] ^= 1; open(sys.argv[1],'wb').write(b)" "$N/current/$deep"
expect 6 "$UNPACKER" validate --root "$R" --product nccl $T
assert_contains last.out "$deep: SHA-256 differs from the manifest (changed after install)"
expect 0 "$UNPACKER" "$W/nccl.bundle" --root "$R" $T --repair --no-validate --modulefiles /mods
assert_contains last.out "repaired: 1"
cmp "$N/current/$deep" "src/$deep" || fail "--repair did not restore $deep"
echo '/* planted */' > "$N/current/${deep%/*}/planted.h"
expect 6 "$UNPACKER" validate --root "$R" --product nccl $T
assert_contains last.out "${deep%/*}/planted.h: not in the manifest"
expect 0 "$UNPACKER" "$W/nccl.bundle" --root "$R" $T --repair --no-validate --modulefiles /mods
[ ! -e "$N/current/${deep%/*}/planted.h" ] || fail "--repair left the planted header"
gone=$(echo "$deep" | cut -d/ -f1-3)
rm -r "$N/current/$gone"
expect 0 "$UNPACKER" "$W/nccl.bundle" --root "$R" $T --no-validate --modulefiles /mods
assert_contains last.out "repaired: "
diff -r src/include/nccl_device "$N/current/include/nccl_device" || fail "a re-run did not put $gone back"
expect 0 "$UNPACKER" validate --root "$R" --product nccl $T

note "a cuDNN bundle beside it in the same root: neither disturbs the other"
before=$(tree_listing "$N"; cat "$R/etc/ld.so.conf.d/00-cuferry-nccl.conf" "$R/etc/profile.d/cuferry-nccl.sh")
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" $T --modulefiles /mods
assert_contains last.out "(cuDNN "
[ -L "$C/current" ] || fail "no /opt/cudnn/current"
after=$(tree_listing "$N"; cat "$R/etc/ld.so.conf.d/00-cuferry-nccl.conf" "$R/etc/profile.d/cuferry-nccl.sh")
[ "$before" = "$after" ] || fail "installing cuDNN changed NCCL's install or environment"
assert_contains "$R/etc/ld.so.conf.d/00-cuferry-cudnn.conf" "/opt/cudnn/current/lib"
[ -d "$R/mods/cudnn" ] && [ -d "$R/mods/nccl" ] || fail "modulefiles of both products"
expect 0 "$UNPACKER" list --root "$R"
assert_contains last.out "* cudnn-"
grep -q nccl last.out && fail "list (cuDNN) shows NCCL"
expect 0 "$UNPACKER" list --root "$R" --product nccl
assert_contains last.out "* $D"
grep -q cudnn last.out && fail "list --product nccl shows cuDNN"

note "a prefix holds one product: refused (exit 4), nothing changed"
cudnn_before=$(tree_listing "$C")
expect 4 "$UNPACKER" "$W/nccl.bundle" --root "$R" $T --prefix /opt/cudnn
assert_contains last.err "holds cuDNN, not NCCL: a prefix holds one product"
one_line_reason
[ "$cudnn_before" = "$(tree_listing "$C")" ] || fail "the refused install changed /opt/cudnn"
expect 4 "$UNPACKER" "$W/nccl.bundle" --root "$R" $T --prefix /opt/cudnn --dry-run
expect 4 "$UNPACKER" list --root "$R" --product nccl --prefix /opt/cudnn
assert_contains last.err "holds cuDNN, not NCCL"
expect 4 "$UNPACKER" "$W/nccl.bundle" --root "$R" $T --product cudnn
assert_contains last.err "the bundle is of NCCL, --product asks for cuDNN"
expect 1 "$UNPACKER" list --root "$R" --product nosuch
assert_contains last.err "--product 'nosuch': no such product (products: cudnn nccl cusparselt)"

note "install KIT: the chooser considers the bundles of --product, names the others"
mkdir kit
ln "$W/nccl.bundle" kit/ 2>/dev/null || cp "$W/nccl.bundle" kit/
cp "$FX/small.bundle" kit/
expect 0 "$UNPACKER" install kit --root "$R" $T --dry-run --product nccl
assert_contains last.out "chose nccl.bundle: NCCL $V for CUDA 13"
assert_contains last.out "small.bundle: a bundle of cuDNN, not NCCL (--product cudnn chooses among those)"
expect 0 "$UNPACKER" install kit --root "$R" $T --dry-run
assert_contains last.out "chose small.bundle: cuDNN"
assert_contains last.out "nccl.bundle: a bundle of NCCL, not cuDNN (--product nccl chooses among those)"

note "install KIT of bundler kit (signed index) with both products: --product picks, never the other"
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit2" --bundle "$W/nccl.bundle" --bundle "$FX/small.bundle"
assert_contains kit2/README.txt "unpacker install /media/usb/kit --product nccl   # its NCCL bundle (without --product: cuDNN)"
R3=$W/root3
mkdir -p "$R3"
expect 0 "$UNPACKER" install kit2 --root "$R3" $T --product nccl --no-validate
assert_contains last.out "chose nccl.bundle: NCCL $V for CUDA 13"
assert_contains last.out "installed nccl-$V-cuda13-linux-x86_64 (NCCL $V for CUDA 13)"
[ "$(readlink "$R3/opt/nccl/current")" = "$D" ] || fail "install kit2 --product nccl: no /opt/nccl/current"
[ ! -e "$R3/opt/cudnn" ] || fail "install kit2 --product nccl installed cuDNN too"
expect 0 "$UNPACKER" install kit2 --root "$R3" $T --no-validate
assert_contains last.out "chose small.bundle: cuDNN"
assert_contains last.out "nccl.bundle: a bundle of NCCL, not cuDNN"
[ -L "$R3/opt/cudnn/current" ] || fail "install kit2 (cuDNN, the default) installed no cuDNN"
[ "$(readlink "$R3/opt/nccl/current")" = "$D" ] || fail "installing cuDNN from the kit moved NCCL's current"

note "install KIT --product nccl on a kit without an NCCL bundle: one line, exit 4, nothing installed"
expect 0 "$BUNDLER" kit --key "$FX/test.key" -o "$W/kit-cudnn" --bundle "$FX/small.bundle"
! grep -q -- "--product" kit-cudnn/README.txt || fail "a cuDNN-only kit's README names --product"
R4=$W/root4
mkdir -p "$R4"
expect 4 "$UNPACKER" install kit-cudnn --root "$R4" $T --product nccl --no-validate
one_line_reason
assert_contains last.err "kit-cudnn holds no NCCL bundle (--product nccl); it offers: small.bundle (a bundle of cuDNN, not NCCL"
[ ! -e "$R4/opt/nccl" ] && [ ! -e "$R4/opt/cudnn" ] || fail "a refused install KIT --product nccl installed something"
expect 4 "$UNPACKER" install kit-cudnn --root "$R4" $T --product nccl --dry-run
assert_contains last.err "holds no NCCL bundle"

note "include/nccl_device/ from an NVIDIA-style archive too; a link or a special file in it is refused (exit 9)"
A=nccl-linux-x86_64-${V}_cuda13.0-archive
mkdir -p "arc/$A/lib"
cp -R src/include "arc/$A/"
cp "$CUDA/lib64/libcudnn.so.9" "arc/$A/lib/libnccl.so.2" # a small ELF library stands in
echo "NCCL licence" > "arc/$A/LICENSE.txt"
(cd arc && tar -cJf "../$A.tar.xz" "$A")
expect 0 "$BUNDLER" create --product nccl --from-archive "$A.tar.xz" --key "$FX/test.key" \
	-o "$W/arc.bundle" --level 1 -q --cache "$W/cache"
expect 0 "$BUNDLER" inspect "$W/arc.bundle"
[ "$(grep -c ' include/nccl_device/' last.out)" -eq "$ndevice" ] || fail "the archive's include/nccl_device/ not carried whole"
ln -s core.h "arc/$A/include/nccl_device/linked.h"
(cd arc && tar -cJf "../$A.tar.xz" "$A")
expect 9 "$BUNDLER" create --product nccl --from-archive "$A.tar.xz" --key "$FX/test.key" \
	-o "$W/x.bundle" -q --cache "$W/cache"
assert_contains last.err "include/nccl_device/linked.h: a link in include/nccl_device/, which is carried whole as regular files only"
one_line_reason
# --from-dir: hard links make a second tree of the same files without copying the library.
cp -al src src2
ln -s core.h src2/include/nccl_device/linked.h
expect 9 "$BUNDLER" create --product nccl --from-dir src2 --cuda 13 --key "$FX/test.key" -o "$W/x.bundle" -q
assert_contains last.err "src2/include/nccl_device/linked.h: a link in include/nccl_device/"
one_line_reason
rm src2/include/nccl_device/linked.h
mkfifo "src2/$deep.fifo"
expect 9 "$BUNDLER" create --product nccl --from-dir src2 --cuda 13 --key "$FX/test.key" -o "$W/x.bundle" -q
assert_contains last.err "$deep.fifo: not a regular file in include/nccl_device/"
rm -r src2/include/nccl_device
ln -s "$W/src/include/nccl_device" src2/include/nccl_device
expect 9 "$BUNDLER" create --product nccl --from-dir src2 --cuda 13 --key "$FX/test.key" -o "$W/x.bundle" -q
assert_contains last.err "src2/include/nccl_device: a link where NCCL's directory include/nccl_device/ belongs"
[ ! -e "$W/x.bundle" ] || fail "a refused create wrote a bundle"
rm -rf arc src2 "$A.tar.xz"

note "uninstall --product nccl: NCCL goes (include/nccl_device/ with it), cuDNN stays"
cudnn_before=$(tree_listing "$C"; cat "$R/etc/ld.so.conf.d/00-cuferry-cudnn.conf")
expect 0 "$UNPACKER" uninstall "$D" --root "$R" --product nccl --force
assert_contains last.out "removed $D; no other install is left"
[ ! -e "$N/$D" ] && [ ! -e "$N/current" ] || fail "NCCL's install or current left"
[ ! -e "$R/etc/ld.so.conf.d/00-cuferry-nccl.conf" ] || fail "00-cuferry-nccl.conf left"
[ ! -e "$R/etc/profile.d/cuferry-nccl.sh" ] || fail "cuferry-nccl.sh left"
[ ! -e "$R/mods/nccl/$V-cuda13.lua" ] || fail "NCCL's modulefile left"
[ "$cudnn_before" = "$(tree_listing "$C"; cat "$R/etc/ld.so.conf.d/00-cuferry-cudnn.conf")" ] ||
	fail "uninstalling NCCL changed cuDNN"
expect 0 "$UNPACKER" list --root "$R" --product nccl
assert_contains last.out "nothing installed in $N"
expect 0 "$UNPACKER" validate --root "$R" $T

note "an interrupted NCCL install is undone only by a run of NCCL, under NCCL's names"
R2=$W/root2
mkdir -p "$R2"
CUFERRY_FAULT=env:pause "$UNPACKER_SEAMS" "$W/nccl.bundle" --root "$R2" $T >/dev/null 2>&1 &
pid=$!
wait_paused $pid "env"
kill -9 $pid; wait $pid 2>/dev/null || true
[ -f "$R2/opt/nccl/.cuferry/journal.json" ] && [ -f "$R2/etc/ld.so.conf.d/00-cuferry-nccl.conf" ] ||
	fail "the killed install left no journal or no environment"
expect 4 "$UNPACKER" use "$D" --root "$R2" --prefix /opt/nccl
assert_contains last.err "an interrupted run of NCCL waits to be undone there; nothing was changed"
[ -f "$R2/opt/nccl/.cuferry/journal.json" ] || fail "a cuDNN command consumed NCCL's journal"
expect 1 "$UNPACKER" use "$D" --root "$R2" --product nccl
assert_contains last.err "is not installed"
[ ! -e "$R2/opt/nccl/.cuferry/journal.json" ] || fail "NCCL's journal left after its recovery"
[ ! -e "$R2/etc/ld.so.conf.d/00-cuferry-nccl.conf" ] || fail "the rollback left 00-cuferry-nccl.conf"
[ ! -e "$R2/opt/nccl/$D" ] || fail "the rollback left the install"
echo "PASS $NAME"
