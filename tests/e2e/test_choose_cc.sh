#!/bin/sh
# The kit chooser by compute capability (issue 27): cuDNN 9.11 and later for CUDA 12 carry no
# pre-Turing device code, so their bundles record the floor 7.5 (9.10's 5.0) from the
# compatibility table; unpacker install KIT asks the fake libcuda (tests/tools/fakecuda.c,
# through the unprivileged probe) for each GPU's compute capability and passes over a bundle
# a GPU is below, with the reason. GPUs of sm 6.1, 7.0, 7.5 and 9.0, a mixed machine (the
# lowest decides), a kit where nothing fits (exit 4), and no driver (the floor is not used).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
TRUST="--trust $FX/test.pub"

fake_tree() { # DIR MINOR PATCH
	mkdir -p "$1/include" "$1/lib"
	printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$2" "$3" \
		> "$1/include/cudnn_version.h"
	head -c 20000 /dev/urandom > "$1/lib/libcudnn.so.9"
	ln -s libcudnn.so.9 "$1/lib/libcudnn.so"
}
make_bundle() { # OUT TREE
	"$BUNDLER" create --from-dir "$2" --cuda 12 --platform linux-x86_64 --key "$FX/test.key" \
		--level 1 -q -o "$1" >/dev/null 2>&1 || fail "bundler create $2"
}

note "cuDNN 9.10.2 and 9.11.0 for CUDA 12: the floors (and driver) the bundler records"
fake_tree t10 10 2
fake_tree t11 11 0
mkdir -p kit only11
make_bundle kit/ t10
make_bundle kit/ t11
cp kit/cudnn-9.11.0-cuda12-linux-x86_64.bundle only11/
expect 0 "$BUNDLER" inspect kit/cudnn-9.10.2-cuda12-linux-x86_64.bundle
assert_contains last.out "driver >= 525.60.13, compute capability >= 5.0"
expect 0 "$BUNDLER" inspect kit/cudnn-9.11.0-cuda12-linux-x86_64.bundle
assert_contains last.out "compute capability >= 7.5"

# A machine with a CUDA 12 driver (its own proc/: the host's driver is never read), and the
# fake driver library outside it (the GPUs are the host's, as for validation).
mkdir -p "$W/m/proc/driver/nvidia"
echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Sun Jul 27 07:09:14 UTC 2025" \
	> "$W/m/proc/driver/nvidia/version"
CONF=$W/fake.conf
UIDS=$W/uids
mkdir -p drv "$UIDS" && chmod 1777 "$UIDS"
cc -shared -fPIC -I"$TOP/tests/tools" -DFAKE_CONF="\"$CONF\"" -DFAKE_UID_DIR="\"$UIDS\"" \
	-o drv/libcuda.so.550.54.15 -Wl,-soname,libcuda.so.1 "$TOP/tests/tools/fakecuda.c"
ln -sf libcuda.so.550.54.15 drv/libcuda.so.1
chmod 755 "$W" drv
chmod 644 drv/libcuda.so.550.54.15
export CUFERRY_LIBCUDA="$W/drv/libcuda.so.1"

choose() { # EXIT KIT: a dry run on the fake machine
	expect "$1" "$UNPACKER" install "$W/$2" --root "$W/m" $TRUST --dry-run
}

gpu_case() { # SM CHOSEN_MINOR PASSED_OVER_LINE: one GPU of compute capability SM (61: 6.1)
	major=${1%?} minor=${1#?}
	printf 'gpus=1\ncc=%s\n' "$1" > "$CONF"
	choose 0 kit
	assert_contains last.out "1 GPU of compute capability $major.$minor"
	assert_contains last.out "chose cudnn-9.$2-cuda12-linux-x86_64.bundle"
	assert_contains last.out "$3"
}
for sm in 61 70; do
	note "sm $sm: 9.11 passed over (needs 7.5), 9.10 chosen"
	gpu_case $sm 10.2 "cudnn-9.11.0-cuda12-linux-x86_64.bundle: needs compute capability >= 7.5, GPU 0 is ${sm%?}.${sm#?}"
done
for sm in 75 90; do
	note "sm $sm: the newest, 9.11, chosen"
	gpu_case $sm 11.0 "cudnn-9.10.2-cuda12-linux-x86_64.bundle: cuDNN 9.10.2 is older than 9.11.0"
done

note "a mixed machine (9.0, 6.1, 9.0): the lowest GPU decides"
printf 'gpus=3\ncc=90\ncc1=61\n' > "$CONF"
choose 0 kit
assert_contains last.out "3 GPUs of compute capability 9.0, 6.1, 9.0"
assert_contains last.out "chose cudnn-9.10.2-cuda12-linux-x86_64.bundle"
assert_contains last.out "cudnn-9.11.0-cuda12-linux-x86_64.bundle: needs compute capability >= 7.5, GPU 1 is 6.1"

note "an old bundle (9.11 for CUDA 12 signed with the floor 5.0 it recorded before the table knew 7.5): the table's floor holds"
mkdir -p old11
cp kit/cudnn-9.10.2-cuda12-linux-x86_64.bundle old11/
python3 "$TOP/tests/tools/forge.py" --key "$FX/test.key" --version 9.11.0 --cuda 12 \
	--driver-min 525.60.13 --cc-min 5.0 --out old11/cudnn-9.11.0-cuda12-linux-x86_64.bundle ||
	fail "forge the old bundle"
printf 'gpus=1\ncc=61\n' > "$CONF"
choose 0 old11
assert_contains last.out "chose cudnn-9.10.2-cuda12-linux-x86_64.bundle"
assert_contains last.out "cudnn-9.11.0-cuda12-linux-x86_64.bundle: needs compute capability >= 7.5 (this unpacker's compatibility data; the bundle records 5.0), GPU 0 is 6.1"
printf 'gpus=1\ncc=75\n' > "$CONF"
choose 0 old11
assert_contains last.out "chose cudnn-9.11.0-cuda12-linux-x86_64.bundle"

note "the driver was asked in the probe child, never in the unpacker itself (as root: as nobody)"
ls "$UIDS" | grep -q 'libcuda-' || fail "the fake driver left no uid record: $(ls "$UIDS")"
if ls "$UIDS" | grep -q '^uid-0-'; then fail "libcuda ran as root: $(ls "$UIDS" | grep '^uid-0-')"; fi
if [ "$(id -u)" = 0 ]; then ls "$UIDS" | grep -q '^uid-65534-libcuda' || fail "not run as nobody: $(ls "$UIDS")"; fi

note "a kit of 9.11 alone on sm 6.1: nothing fits (exit 4, dry run or not), nothing written"
printf 'gpus=1\ncc=61\n' > "$CONF"
choose 4 only11
assert_contains last.err "no bundle in"
assert_contains last.err "needs compute capability >= 7.5, GPU 0 is 6.1"
one_line_reason
expect 4 "$UNPACKER" install "$W/only11" --root "$W/m" $TRUST
assert_contains last.err "needs compute capability >= 7.5, GPU 0 is 6.1"
[ ! -e m/opt ] || fail "a refused install wrote under the root"

note "no driver library: the compute capability is not known and not used (9.11 chosen)"
export CUFERRY_LIBCUDA="$W/no-driver/libcuda.so.1"
choose 0 kit
assert_contains last.out "compute capability not known (no NVIDIA driver: libcuda.so.1 not found): not used"
assert_contains last.out "chose cudnn-9.11.0-cuda12-linux-x86_64.bundle"

note "--platform of another machine: these GPUs are not used"
export CUFERRY_LIBCUDA="$W/drv/libcuda.so.1"
expect 4 "$UNPACKER" install "$W/kit" --root "$W/m" $TRUST --dry-run --platform linux-sbsa
assert_contains last.err "compute capability not known (--platform linux-sbsa"
echo "PASS $NAME"
