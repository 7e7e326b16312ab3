#!/bin/sh
# The install transaction: upgrade, rollback of an injected failure at each step, kill -9 at
# each step followed by a re-run, two installs at once, no space, and the policy checks
# (replay, downgrade, same counter, expiry, clock, platform).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
FORGE="python3 $TOP/tests/tools/forge.py"
K="--key $FX/test.key"
T="--trust $FX/test.pub --no-validate"
R="$W/root"
mkdir -p root
P=$R/opt/cudnn

snapshot() { tree_listing "$R"; }

$FORGE $K --out v1.bundle --counter 1000 --salt one
$FORGE $K --out v2.bundle --counter 1001 --salt two
$FORGE $K --out v0.bundle --counter 999 --salt zero

note "first install, then an upgrade of the same bundle id"
expect 0 "$UNPACKER" v1.bundle --root "$R" $T
grep -q one "$P/current/lib/libcudnn.so.9" || fail "v1 content missing"
expect 0 "$UNPACKER" v2.bundle --root "$R" $T
grep -q two "$P/current/lib/libcudnn.so.9" || fail "v2 content missing"
[ "$(ls "$P" | grep -c '^cudnn-')" = 1 ] || fail "expected one install directory"
assert_contains "$P/.cuferry/state.json" '"counter": 1001'
no_staging "$R"

note "the same counter again: nothing to do, exit 0"
expect 0 "$UNPACKER" v2.bundle --root "$R" $T
assert_contains last.out "already installed"

note "a lower counter: replay or downgrade refused (exit 7) unless --allow-downgrade"
before=$(snapshot)
expect 7 "$UNPACKER" v0.bundle --root "$R" $T
one_line_reason
expect 7 "$UNPACKER" v1.bundle --root "$R" $T
[ "$(snapshot)" = "$before" ] || fail "a refused install changed something"

note "expired (exit 7), unless --allow-expired"
$FORGE $K --out exp.bundle --counter 2000 --expires 2020-01-01T00:00:00Z --bundle-id other-id --version 9.20.0
expect 7 "$UNPACKER" exp.bundle --root "$R" $T
assert_contains last.err "expired"
[ "$(snapshot)" = "$before" ] || fail "an expired bundle changed something"

note "the wrong platform (exit 4)"
$FORGE $K --out sbsa.bundle --platform linux-sbsa
expect 4 "$UNPACKER" sbsa.bundle --root "$R" $T
assert_contains last.err "linux-sbsa"

note "an injected failure at each step rolls back to exactly the state before (exit 5)"
for step in extract renamed switched state env; do
	$FORGE $K --out f-$step.bundle --counter 3000 --salt $step
	before=$(snapshot)
	CUFERRY_FAULT=$step expect 5 "$UNPACKER_SEAMS" f-$step.bundle --root "$R" $T
	assert_contains last.err "injected failure at $step"
	[ "$(snapshot)" = "$before" ] || { snapshot > after; echo "$before" > before; diff before after; fail "failure at $step was not rolled back"; }
	grep -q two "$P/current/lib/libcudnn.so.9" || fail "previous content lost at $step"
done

note "an install into a fresh root that fails leaves no trace of cuferry's files"
mkdir fresh
CUFERRY_FAULT=env expect 5 "$UNPACKER_SEAMS" v1.bundle --root "$W/fresh" $T
[ ! -e fresh/etc/ld.so.conf.d/00-cuferry-cudnn.conf ] || fail "env file left"
[ ! -e fresh/opt/cudnn/current ] || fail "current left"
[ -z "$(ls fresh/opt/cudnn | grep cudnn-)" ] || fail "install dir left"

note "kill -9 at each step, then a re-run finishes the job"
n=0
for step in extract renamed switched state env; do
	n=$((n + 1)) # each a newer cuDNN than the last: an older one would not take current (exit 7)
	$FORGE $K --out k-$step.bundle --counter 4000 --salt kill$step --bundle-id kill-$step --version 9.30.$n
	CUFERRY_FAULT=$step:pause "$UNPACKER_SEAMS" k-$step.bundle --root "$R" $T >/dev/null 2>&1 &
	pid=$!
	wait_paused $pid "$step"
	kill -9 $pid; wait $pid 2>/dev/null || true
	expect 0 "$UNPACKER" k-$step.bundle --root "$R" $T
	grep -q "kill$step" "$P/current/lib/libcudnn.so.9" || fail "re-run after kill at $step did not install"
	no_staging "$R"
	[ ! -e "$P/.cuferry/journal.json" ] || fail "journal left after kill at $step"
done

note "a kill, then another command: the interrupted install is rolled back first"
expect 0 "$UNPACKER" use cudnn-9.19.0.56-cuda13 --root "$R"
before=$(snapshot)
$FORGE $K --out k2.bundle --counter 5000 --salt k2 --bundle-id k2 --version 9.40.0
CUFERRY_FAULT=switched:pause "$UNPACKER_SEAMS" k2.bundle --root "$R" $T >/dev/null 2>&1 &
pid=$!
wait_paused $pid "switched"
kill -9 $pid; wait $pid 2>/dev/null || true
expect 0 "$UNPACKER" use cudnn-9.19.0.56-cuda13 --root "$R"
[ "$(snapshot)" = "$before" ] || fail "the interrupted install was not rolled back"

note "two installs at once: the second gets exit 8"
CUFERRY_FAULT=extract:pause "$UNPACKER_SEAMS" k2.bundle --root "$R" $T >/dev/null 2>&1 &
pid=$!
wait_paused $pid "extract"
expect 8 "$UNPACKER" v2.bundle --root "$R" $T
one_line_reason
kill -9 $pid; wait $pid 2>/dev/null || true

note "a clock earlier than the newest install's creation: exit 7"
py - "$P/.cuferry/state.json" <<'PY'
import json, sys
p = sys.argv[1]; s = json.load(open(p)); s["newest_created"] = "2099-01-01T00:00:00Z"
json.dump(s, open(p, "w"), indent=2)
PY
expect 7 "$UNPACKER" k2.bundle --root "$R" $T
assert_contains last.err "clock"

note "no space: a 20 MiB tmpfs cannot take a 4.7 MiB bundle plus the margin (exit 4)"
mkdir -p small/opt/cudnn
if mount -t tmpfs -o size=20m,mode=755 tmpfs small/opt/cudnn 2>/dev/null; then
	CLEANUP="$CLEANUP umount '$W/small/opt/cudnn' 2>/dev/null;"
	expect 4 "$UNPACKER" "$FX/small.bundle" --root "$W/small" $T
	assert_contains last.err "not enough space"
	no_staging small
	umount small/opt/cudnn
else
	echo "skipped: cannot mount tmpfs here"
fi

note "ENOSPC while writing (the space check passed, then the disk filled): the file and directory named, exit 4"
mkdir -p full/opt/cudnn
if mount -t tmpfs -o size=40m,mode=755 tmpfs full/opt/cudnn 2>/dev/null; then
	CLEANUP="$CLEANUP umount '$W/full/opt/cudnn' 2>/dev/null;"
	CUFERRY_FAULT=extract:pause "$UNPACKER_SEAMS" "$FX/small.bundle" --root "$W/full" $T >full.out 2>full.err &
	pid=$!
	wait_paused $pid "extract"
	dd if=/dev/zero of=full/opt/cudnn/filler bs=1M 2>/dev/null || true # until the disk is full
	kill -CONT $pid; set +e; wait $pid; rc=$?; set -e
	[ $rc -eq 4 ] || { cat full.err; fail "ENOSPC while writing: exit $rc, expected 4"; }
	grep -q "error: writing '[^']*' into $W/full/opt/cudnn/.staging-[^:]*: No space left on device" full.err ||
		{ cat full.err; fail "ENOSPC: the file or the directory not named"; }
	no_staging full
	umount full/opt/cudnn
else
	echo "skipped: cannot mount tmpfs here"
fi

note "a read error of the medium (EIO, a pulled stick) is exit 5; a truncated bundle stays exit 3"
# What a stick pulled mid-read gives: pread fails with EIO from an offset on (an LD_PRELOAD
# shim of the test's own: the shipped unpacker links libc dynamically).
cat > eio.c <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int on_medium(int fd, off_t off, size_t len)
{
	const char *file = getenv("EIO_FILE"), *at = getenv("EIO_AT");
	char link[64], path[4096];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (!file || !at || n < 0)
		return 0;
	path[n] = '\0';
	return strcmp(path, file) == 0 && off + (off_t)len > atoll(at);
}
ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t) = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	if (on_medium(fd, off, len)) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, len, off);
}
C
cc -shared -fPIC -o eio.so eio.c -ldl
preload=$(unpacker_preload "$W/eio.so")
cp "$FX/small.bundle" stick.bundle
ER=$W/eroot
$FORGE $K --out base.bundle --counter 6000 --salt base --bundle-id base --version 9.1.0
expect 0 "$UNPACKER" base.bundle --root "$ER" $T
before=$(tree_listing "$ER")
for cmd in "install --root $ER $T" "verify --trust $FX/test.pub"; do
	EIO_FILE=$W/stick.bundle EIO_AT=600000 LD_PRELOAD=$preload expect 5 "$UNPACKER" $cmd stick.bundle
	one_line_reason
	assert_contains last.err "stick.bundle: read error at offset [0-9]*: Input/output error"
done
[ "$(tree_listing "$ER")" = "$before" ] || fail "a read error changed the install"
head -c 600000 "$FX/small.bundle" > short.bundle
expect 3 "$UNPACKER" short.bundle --root "$ER" $T
one_line_reason
expect 3 "$UNPACKER" verify short.bundle --trust "$FX/test.pub"
[ "$(tree_listing "$ER")" = "$before" ] || fail "a truncated bundle changed the install"

note "--allow-downgrade and --allow-expired install what policy refused"
mkdir pol
expect 0 "$UNPACKER" v2.bundle --root "$W/pol" $T
expect 0 "$UNPACKER" v1.bundle --root "$W/pol" $T --allow-downgrade
grep -q one "$W/pol/opt/cudnn/current/lib/libcudnn.so.9" || fail "downgrade not installed"
assert_contains "$W/pol/opt/cudnn/.cuferry/state.json" '"cudnn-9.19.0.56-cuda13-linux-x86_64": 1001'
expect 0 "$UNPACKER" exp.bundle --root "$W/pol" $T --allow-expired
note "after a downgrade the highest counter seen still guards against replay"
expect 7 "$UNPACKER" v0.bundle --root "$W/pol" $T
