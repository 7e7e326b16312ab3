# lib.sh - helpers for the end-to-end scripts (sourced). Each script runs in its own scratch
# directory under $CUFERRY_BUILD/e2e/<name>, removed when it passes.
set -eu
B=$CUFERRY_BUILD
TOP=$CUFERRY_TOP
FX=$CUFERRY_FIXTURES
BUNDLER=$B/bundler
UNPACKER=$B/unpacker
# The same unpacker with its test seams (CUFERRY_FAULT): the shipped one ignores them.
UNPACKER_SEAMS=$B/test-bin/unpacker
# The bundler with its test seams (CUFERRY_BUNDLE_FLIP, CUFERRY_ZSTD_FAIL, CUFERRY_KIT_*,
# CUFERRY_FETCH_NO_BACKOFF); $BUNDLER has none.
BUNDLER_SEAMS=$B/bundler-test-seams
# The bundler's default mirror: a local one (fixtures.sh), never NVIDIA's from a test.
export CUFERRY_MIRROR="file://$FX/file-mirror"
NAME=$(basename "$0" .sh)
W=$B/e2e/$NAME
rm -rf "$W"
mkdir -p "$W"
# Validation's probe runs as nobody when the tests run as root: it must be able to reach the
# installs under $W. A checkout in a private directory (CI may clone under /root, 0700) gets
# its scratch directory in /var/tmp instead.
if [ "$(id -u)" = 0 ] && ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$W" 2>/dev/null; then
	rmdir "$W"
	W=$(mktemp -d /var/tmp/cuferry-e2e-$NAME.XXXXXX)
	chmod 0755 "$W"
fi
cd "$W"
CLEANUP=""
trap 'status=$?; set +e; eval "$CLEANUP"; [ $status -eq 0 ] && rm -rf "$W"; exit $status' EXIT

# start_mirror DIR [server options]: a real HTTP server on 127.0.0.1; sets MIRROR.
start_mirror() {
	dir=$1; shift
	rm -f "$W/port"
	python3 "$TOP/tests/tools/mirror_server.py" "$dir" "$W/port" "$@" 2>>"$W/mirror.log" &
	CLEANUP="$CLEANUP kill $! 2>/dev/null || true;"
	i=0
	while [ ! -s "$W/port" ]; do
		i=$((i + 1)); [ $i -lt 100 ] || fail "mirror server did not start"; sleep 0.1
	done
	MIRROR="http://127.0.0.1:$(cat "$W/port")"
}

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "== $*"; }

# expect CODE CMD...: run CMD, require exit code CODE, keep its stderr in $W/last.err
expect() {
	want=$1; shift
	set +e
	"$@" >"$W/last.out" 2>"$W/last.err"
	got=$?
	set -e
	if [ "$got" -ne "$want" ]; then
		echo "command: $*" >&2; cat "$W/last.out" "$W/last.err" >&2
		fail "exit $got, expected $want"
	fi
}

# The reason must be one line on stderr (besides progress, which needs a terminal).
# Wait until PID stops at a CUFERRY_FAULT=STEP:pause seam (the unpacker raises SIGSTOP there);
# fail, naming WHAT, after 30 s rather than hang the suite.
wait_paused() { # PID WHAT
	wait_paused_n=0
	until [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = T ]; do
		wait_paused_n=$((wait_paused_n + 1))
		[ $wait_paused_n -lt 600 ] || fail "unpacker did not reach $2"
		sleep 0.05
	done
}

one_line_reason() {
	n=$(grep -c 'error' "$W/last.err" || true)
	[ "$n" -eq 1 ] || { cat "$W/last.err" >&2; fail "expected one error line, got $n"; }
}

assert_contains() { grep -q -- "$2" "$1" || { cat "$1" >&2; fail "'$2' not in $1"; }; }

# A listing of a tree's names, types, modes and hashes: compare before/after.
tree_listing() {
	(cd "$1" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort) 2>/dev/null
}

# No staging directory left anywhere under a root.
no_staging() {
	left=$(find "$1" -name '.staging-*' -o -name '.old-*' 2>/dev/null | head -1)
	[ -z "$left" ] || fail "left behind: $left"
}

py() { python3 "$@"; }

# fake_host_driver: the fake libcuda (tests/tools/fakecuda.c, driver 580.95.05) as the host's
# driver, outside any --root (CUFERRY_LIBCUDA names it); sets CONF (its fakeconf.h switches,
# empty: one GPU, sm 9.0), UIDS (the uid records) and FAKEFLAGS for the fakes built after it.
fake_host_driver() {
	UIDS=$W/uids
	mkdir -p "$UIDS" && chmod 1777 "$UIDS"
	CONF=$W/fake.conf
	: > "$CONF"
	chmod 0644 "$CONF"
	FAKEFLAGS="-I$TOP/tests/tools -DFAKE_CONF=\"$CONF\" -DFAKE_UID_DIR=\"$UIDS\""
	mkdir -p "$W/host-driver"
	# shellcheck disable=SC2086
	cc -shared -fPIC $FAKEFLAGS -o "$W/host-driver/libcuda.so.580.95.05" -Wl,-soname,libcuda.so.1 \
		"$TOP/tests/tools/fakecuda.c"
	ln -sf libcuda.so.580.95.05 "$W/host-driver/libcuda.so.1"
	export CUFERRY_LIBCUDA="$W/host-driver/libcuda.so.1"
}

# mkfake NAME [CFLAGS or extra sources]...: a fake cuDNN 9.19 tree in $W/src-NAME
# (tests/tools/fakecudnn.c with $FAKEFLAGS: CPU convolutions, a graph sub-library, $ORIGIN);
# mkbundle NAME: its signed bundle $W/NAME.bundle, each with a higher counter.
mkfake() {
	d=$W/src-$1; shift
	mkdir -p "$d/lib" "$d/include"
	printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > "$d/include/cudnn_version.h"
	cc -shared -fPIC -o "$d/lib/libcudnn_graph.so.9" -Wl,-soname,libcudnn_graph.so.9 "$TOP/tests/tools/fakegraph.c"
	# shellcheck disable=SC2086
	cc -shared -fPIC -O2 -I"$TOP" $FAKEFLAGS "$@" -o "$d/lib/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 \
		-Wl,-rpath,'$ORIGIN' "$TOP/tests/tools/fakecudnn.c" "$TOP/tests/tools/fakebackend.c" \
		"$TOP/unpacker/validate/convref.c" "$d/lib/libcudnn_graph.so.9" -lm -ldl
	ln -sf libcudnn.so.9 "$d/lib/libcudnn.so"
}
counter=10
mkbundle() {
	counter=$((counter + 1))
	"$BUNDLER" create --from-dir "$W/src-$1" --cuda 13 --key "$FX/test.key" -o "$W/$1.bundle" \
		--counter $counter --level 1 -q >/dev/null
}

# skip_if_sanitizer WHY: the ASan/UBSan build (make sanitize) links libasan and has no glibc
# floor; checks of the release binaries say SKIP there (make test runs them).
# guide_run_recipe RUN KEY ROOT: the guide's first-server recipe for a .run (docs/guide.md, a
# stick mounted noexec), extracted as written up to its install line, run against RUN with the
# site key KEY; its private directory lies under $W and the install goes to --root ROOT.
guide_run_recipe() {
	awk '/^d=\$\(mktemp -d \/root\/cuferry/,/^chmod 700 unpacker/' "$TOP/docs/guide.md" |
		sed "s|/root/cuferry|$W/cuferry|; s|/silent\$|/silent --root \"\$R\" --no-validate|" > "$W/recipe.sh"
	grep -q 'openssl dgst -sha256 -verify' "$W/recipe.sh" || fail "no first-server .run recipe in docs/guide.md"
	r=$1 k=$2 R=$3 sh "$W/recipe.sh"
}

skip_if_sanitizer() {
	if readelf -d "$UNPACKER" 2>/dev/null | grep -q 'libasan'; then
		echo "SKIP $NAME: $1"
		exit 0
	fi
}

# unpacker_preload LIB...: an LD_PRELOAD list that loads LIBs into $UNPACKER. The sanitizer
# build's unpacker (make sanitize) stops unless ASan's runtime is the first library loaded
# ("ASan runtime does not come first in initial library list"), so there it leads the list; the
# release unpacker links no ASan and gets LIBs alone.
unpacker_preload() {
	ldd "$UNPACKER" 2>/dev/null | awk '$1 ~ /^libasan/ && $3 ~ /^\// { printf "%s:", $3 }'
	echo "$*" | tr ' ' ':'
}

# run_aarch64 PROGRAM ARGS: an aarch64 build under qemu-user, with the loader and C library of
# Debian's cross root (libc6-arm64-cross, which make deps installs) and nothing of the host's:
# a fresh machine has no /lib/ld-linux-aarch64.so.1, so `qemu-aarch64 PROGRAM` alone works
# only where someone once installed one by hand. A program that executes itself (the probe)
# needs tests/tools/arm-sandbox.py instead.
AARCH64_ROOT=/usr/aarch64-linux-gnu
run_aarch64() { qemu-aarch64 -L "$AARCH64_ROOT" "$@"; }
