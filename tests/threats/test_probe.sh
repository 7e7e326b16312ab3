#!/bin/sh
# Issue 23: the probe starts clean and ends completely. Each case in both modes with the
# suite's four assertions (tests/threats/lib.sh), recorded in
# $CUFERRY_BUILD/threat-results-probe.tsv for docs/SECURITY.md. "Never as root" is proved by
# library constructors that record their uid (tests/tools/fakeconf.h), for every name the
# shipped unpacker NEEDs as readelf -d reads it from the binary (not a hand list). Run as root.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
RES=$B/threat-results-probe.tsv
. "$TOP/tests/threats/lib.sh"
: > "$RES"
[ "$(id -u)" = 0 ] || { echo "skip: the probe drops root only when the unpacker runs as root"; exit 0; }
umask 022
mkdir -p outside/sub
echo target > outside/target
T="--trust $FX/test.pub"
V=--quick-validate

# validate rewrites the install's report.json, and a failed install keeps its report under
# .cuferry/failed, by design: the rest must not change.
SNAPSHOT_IGNORE=$VALIDATE_WRITES

NEEDED=$(readelf -d "$UNPACKER" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
[ -n "$NEEDED" ] || fail "readelf -d found no NEEDED entry in $UNPACKER"
echo "the shipped unpacker NEEDs: $(echo $NEEDED)"
# The sanitizer build (make sanitize) is not a shipped unpacker: it NEEDs ASan's and UBSan's
# runtimes and libarchive, jansson and zstd too, none of them the C runtime that the bundler
# and the unpacker refuse by name (manifests/pathrule.c): the refusal cases take the rest.
REFUSED_NEEDED=$NEEDED
if echo "$NEEDED" | grep -q '^libasan\.'; then
	REFUSED_NEEDED=$(echo "$NEEDED" | grep -v -e '^libasan\.' -e '^libubsan\.' -e '^libarchive\.' \
		-e '^libzstd\.' -e '^libjansson\.')
	echo "a sanitizer build: the refusal cases take $(echo $REFUSED_NEEDED)"
fi

UIDS=$W/uids PIDS=$W/pids CONF=$W/fake.conf
mkdir -p "$UIDS" "$PIDS" && chmod 1777 "$UIDS" "$PIDS"
: > "$CONF"
no_root_constructor() { # CASE
	ls "$UIDS" | grep -q . || fail "$1: no constructor recorded anything (the test is broken)"
	if ls "$UIDS" | grep -q '^uid-0-'; then fail "$1: a library ran as root: $(ls "$UIDS" | grep '^uid-0-')"; fi
}

# The fake cuDNN and driver of test_validate.sh; the "fork" one leaves a child and a
# double-forked setsid grandchild behind (each holding the probe's output and report pipes)
# every time it is loaded, and writes their pids to $PIDS.
cat > "$W/forker.c" <<EOF
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void note(const char *what)
{
	char p[512];
	snprintf(p, sizeof(p), "$PIDS/%s-%d", what, (int)getpid());
	FILE *f = fopen(p, "w");
	if (f)
		fclose(f);
}
__attribute__((constructor)) static void leave_children(void)
{
	if (fork() == 0) {
		note("child");
		sleep(150);
		_exit(0);
	}
	pid_t mid = fork();
	if (mid == 0) {
		setsid();
		if (fork() == 0) {
			note("grandchild");
			sleep(150);
			_exit(0);
		}
		_exit(0);
	}
	waitpid(mid, NULL, 0);
}
EOF
FAKEFLAGS="-I$TOP/tests/tools -DFAKE_CONF=\"$CONF\" -DFAKE_UID_DIR=\"$UIDS\""
mkfake good; mkbundle good
mkfake fork "$W/forker.c"; mkbundle fork
drv=$W/host-driver
mkdir -p "$drv"
cc -shared -fPIC $FAKEFLAGS -o "$drv/libcuda.so.580.95.05" -Wl,-soname,libcuda.so.1 "$TOP/tests/tools/fakecuda.c"
ln -sf libcuda.so.580.95.05 "$drv/libcuda.so.1"
export CUFERRY_LIBCUDA="$drv/libcuda.so.1"
# The probe runs as nobody: it must reach the fakes and what they read.
chmod -R o+rX "$W"

# cuBLAS, cuBLASLt, NVRTC and zlib as files of an image (step 4 looks them up, never loads them)
printf 'int cuferry_stub;\n' > "$W/empty.c"
mkdir -p "$W/image-libs"
for l in libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13 libz.so.1; do
	cc -shared -fPIC -o "$W/image-libs/$l" -Wl,-soname,$l "$W/empty.c"
done
fresh_root() { # DIR BUNDLE: a root with BUNDLE installed and validated
	R=$1
	mkdir -p "$R/usr/lib/x86_64-linux-gnu"
	cp "$W/image-libs/"* "$R/usr/lib/x86_64-linux-gnu/"
	expect 0 "$UNPACKER" "$2" --root "$R" $T $V
}

echo "== a bundle carrying a C library or loader name: the bundler refuses it, the unpacker rejects it (exit 3)"
mkdir -p "$W/names"
for so in $REFUSED_NEEDED libc.so.6 libdl.so.2 libpthread.so.0 librt.so.1 libm.so.6 libgcc_s.so.1 \
	 libstdc++.so.6 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1; do
	: > "$W/names/$so"
	expect 9 "$BUNDLER" create --from-dir "$W/src-good" --cuda 13 --key "$FX/test.key" \
		-o "$W/refused.bundle" --add-file "$W/names/$so" -q
	assert_contains last.err "named like the C library or the dynamic loader ($so)"
	[ ! -e "$W/refused.bundle" ] || fail "a bundle with lib/$so was written"
done
record bundler_c_library "bundler create --add-file libdl.so.2 (and every name the unpacker NEEDs, and the C runtime's)" "refused, exit 9, the name given; no bundle written" "threats/bundler_c_library" "pass"
# By stem, never a prefix: names that only start like one are fine.
: > "$W/names/libmpi.so.40"
: > "$W/names/libcudart.so.13"
expect 0 "$BUNDLER" create --from-dir "$W/src-good" --cuda 13 --key "$FX/test.key" -o "$W/mpi.bundle" \
	--add-file "$W/names/libmpi.so.40" --add-file "$W/names/libcudart.so.13" -q
fresh_root "$W/manifest" "$W/good.bundle"
for so in $REFUSED_NEEDED ld-linux-x86-64.so.2; do
	$FORGE --key "$FX/test.key" --out "$W/c-$so.bundle" --bundle-id "t-$so" --version 9.20.0.1 --name "lib/$so"
	run_case "manifest_c_library_$so" "a signed manifest listing lib/$so" "integrity: exit 3 (a C library or loader name), nothing written" 3 "$W/c-$so.bundle" --no-validate
	assert_contains last.err "named like the C library or the dynamic loader"
done

echo "== an ldconfig link in the install's lib/ (a name on no list): accepted, loaded only as nobody"
# A link in lib/ whose target is a listed file is what ldconfig makes, so step 1 accepts it;
# the probe's clean start (no LD_LIBRARY_PATH, libraries by absolute path, the drop before
# exec) keeps the loader from mapping anything of the install as root. The name is on neither
# list (a C library's or base library's name is never an ldconfig link: below).
fresh_root "$W/links" "$W/good.bundle"
for so in libcudnn_ldconfig.so.9; do
	ln -s libcudnn.so.9 "$R/opt/cudnn/current/lib/$so"
	rm -f "$UIDS"/*
	run_case "probe_ldconfig_link" "--root image: lib/$so -> libcudnn.so.9 in the install (an ldconfig-style link, which step 1 accepts)" "validate --root: nothing of the install mapped before the drop; every constructor as nobody" 0 validate $V
	no_root_constructor "probe_ldconfig_link"
	ls "$UIDS" | grep -q '^uid-65534-libcudnn' || fail "probe_ldconfig_link: cuDNN was not loaded as nobody: $(ls "$UIDS")"
	# started from an image it cannot read, so non-dumpable from its exec on (no ptrace window)
	! ls "$UIDS" | grep -q '^exe-readable-' || fail "probe_ldconfig_link: the probe could read its own image: $(ls "$UIDS")"
	rm "$R/opt/cudnn/current/lib/$so"
done

echo "== every name the unpacker NEEDs (and a base library's), linked ldconfig-style to cuDNN in lib/: step 1 names it"
# Linked to a listed file, but named like the C library or a base library: never an ldconfig
# link (no bundle may carry such a soname), so step 1 fails on it and nothing is loaded. The
# names are the shipped build's (REFUSED_NEEDED: a sanitizer build's runtimes and shared
# libarchive, jansson and zstd left out, no name of the shipped binary's), so that a name the
# shipped unpacker NEEDs and the C-library list lacks still fails the case.
for so in $REFUSED_NEEDED libz.so.1; do
	ln -s libcudnn.so.9 "$R/opt/cudnn/current/lib/$so"
	rm -f "$UIDS"/*
	run_case "probe_needed_link_$so" "--root image: lib/$so -> libcudnn.so.9 in the install (a link ldconfig never makes, to a listed file)" "validate --root: exit 6, step 1 names it, nothing loaded" 6 validate $V
	assert_contains last.out "lib/$so: not in the manifest"
	assert_contains last.out "2    library       skip"
	if ls "$UIDS" | grep -q '^uid-0-'; then fail "probe_needed_link_$so: ran as root: $(ls "$UIDS")"; fi
	rm "$R/opt/cudnn/current/lib/$so"
done
ln -s libcudnn.so.9 "$R/opt/cudnn/current/lib/libc.so.6"
expect 0 "$UNPACKER" "$W/good.bundle" --root "$R" $T $V --repair
[ ! -L "$R/opt/cudnn/current/lib/libc.so.6" ] || fail "--repair left lib/libc.so.6 -> libcudnn.so.9"
ls "$R/opt/cudnn/current/.cuferry/aside/" | grep -q 'lib%libc.so.6' || fail "--repair did not move lib/libc.so.6 aside"
expect 0 "$UNPACKER" validate --root "$R" $T $V
record repair_c_library_link "lib/libc.so.6 -> a listed file in the install's lib/ (named like the C library)" "--repair moves it to .cuferry/aside/; validate passes again" "threats/repair_c_library_link" "pass"

echo "== every name the unpacker NEEDs, planted as a file in the install's lib/ (in no manifest): step 1 names it"
stub() { # FILE SONAME: a library whose constructor records the uid it runs as
	printf '#include "fakeconf.h"\n__attribute__((constructor)) static void r(void) { fake_record_uid("planted-%s"); }\n' "$2" > "$W/stub.c"
	cc -shared -fPIC -I"$TOP/tests/tools" -DFAKE_UID_DIR="\"$UIDS\"" -o "$1" -Wl,-soname,"$2" "$W/stub.c"
}
fresh_root "$W/planted" "$W/good.bundle"
for so in $NEEDED; do
	stub "$R/opt/cudnn/current/lib/$so" "$so"
	rm -f "$UIDS"/*
	run_case "probe_planted_$so" "--root image: lib/$so planted in the install (a file no manifest lists)" "validate --root: exit 6, step 1 names it, nothing loaded" 6 validate $V
	assert_contains last.out "lib/$so: not in the manifest"
	assert_contains last.out "2    library       skip"
	if ls "$UIDS" | grep -q '^uid-0-'; then fail "probe_planted_$so: ran as root: $(ls "$UIDS")"; fi
	rm "$R/opt/cudnn/current/lib/$so"
done
# A link planted beside (to somewhere else) is unlisted too; --repair moves both aside, unfollowed.
stub "$R/opt/cudnn/current/lib/libdl.so.2" libdl.so.2
ln -s "$W/outside/target" "$R/opt/cudnn/current/lib/libfoo.so.1"
expect 6 "$UNPACKER" validate --root "$R" $T $V
assert_contains last.out "not in the manifest, with others"
expect 0 "$UNPACKER" "$W/good.bundle" --root "$R" $T $V --repair
[ ! -e "$R/opt/cudnn/current/lib/libdl.so.2" ] && [ ! -L "$R/opt/cudnn/current/lib/libfoo.so.1" ] || fail "--repair left an unlisted entry in lib/"
ls "$R/opt/cudnn/current/.cuferry/aside/" | grep -q 'lib%libfoo.so.1' || fail "--repair did not keep the link aside"
[ "$(cat "$W/outside/target")" = target ] || fail "--repair followed the planted link"
expect 0 "$UNPACKER" validate --root "$R" $T $V
record repair_unlisted "files and links in no manifest in the install's lib/" "--repair moves them to .cuferry/aside/ without following links; validate passes again" "threats/repair_unlisted" "pass"

echo "== the probe cannot reach the unpacker's own path (a binary under a 0700 directory): it still runs"
mkdir -p "$W/private" && chmod 700 "$W/private"
cp "$UNPACKER" "$W/private/unpacker"
R=$W/links
rm -f "$UIDS"/*
expect 0 "$W/private/unpacker" validate --root "$R" $T $V
assert_contains last.out "2    library       pass"
no_root_constructor private_binary
record private_binary "the unpacker started from a 0700 directory nobody cannot search" "the probe runs (a sealed in-memory copy), as nobody" "threats/private_binary" "pass (exit 0)"

echo "== the unpacker's file swapped after it started: the probe runs the image that is running (issue 23 A1)"
# A user who can write the unpacker's directory (a stick mounted for the desktop user) renames
# another program over it before the first probe. A preloaded syscall() does the swap just
# before the sealed copy is made, every time (no race to win, no timing).
cat > "$W/evil-probe.c" <<EOF
#include <stdio.h>
int main(void)
{
	FILE *f = fopen("$UIDS/evil-probe-ran", "w");
	if (f)
		fclose(f);
	return 0;
}
EOF
cat > "$W/swap.c" <<EOF
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
long syscall(long number, ...)
{
	va_list ap;
	va_start(ap, number);
	long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long), d = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_memfd_create)
		rename("$W/stick/.evil", "$W/stick/unpacker");
	long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(number, a, b, c, d);
}
EOF
cc -o "$W/evil-probe" "$W/evil-probe.c"
cc -shared -fPIC -o "$W/swap.so" "$W/swap.c" -ldl
mkdir -p "$W/stick"
cp "$UNPACKER" "$W/stick/unpacker"
cp "$W/evil-probe" "$W/stick/.evil"
rm -f "$UIDS"/*
expect 0 env LD_PRELOAD="$(unpacker_preload "$W/swap.so")" "$W/stick/unpacker" validate --root "$W/links" $T $V
cmp -s "$W/stick/unpacker" "$W/evil-probe" || fail "running_image: the swap did not happen (the test is broken)"
[ ! -e "$UIDS/evil-probe-ran" ] || fail "running_image: the probe ran the program swapped in after start-up"
assert_contains last.out "2    library       pass"
record running_image "the unpacker's file replaced by another program between start-up and the first probe" "the probe runs a sealed copy of the running image; the swapped file never runs" "threats/running_image" "pass (exit 0)"

echo "== a library that forks and double-forks: no process of the probe outlives the unpacker"
alive() { # how many of the recorded pids still run
	n=0
	for f in "$PIDS"/*; do
		[ -e "$f" ] || continue
		pid=${f##*-}
		! kill -0 "$pid" 2>/dev/null || n=$((n + 1))
	done
	echo $n
}
fresh_root "$W/tree" "$W/fork.bundle"
[ "$(ls "$PIDS" | wc -l)" -gt 0 ] || fail "the forking library left no pid record (the test is broken)"
[ "$(alive)" = 0 ] || fail "after the install, $(alive) process(es) of the probe still run"
rm -f "$PIDS"/*
run_case probe_tree_end "a library that leaves a child and a setsid grandchild holding the probe's pipes" "validate ends when the probe ends; every process of its tree is killed" 0 validate $V
[ "$(ls "$PIDS" | wc -l)" -gt 0 ] || fail "probe_tree_end: no pid record"
[ "$(alive)" = 0 ] || fail "probe_tree_end: $(alive) process(es) outlived the unpacker"
# The log says how each probe was held and what was ended (the child and the grandchild).
expect 0 "$UNPACKER" validate --root "$R" $T $V --log "$W/tree.log"
assert_contains "$W/tree.log" "probe library: executed from a sealed in-memory copy; own session and process group under a PR_SET_CHILD_SUBREAPER keeper; 2 leftover processes ended"
# The same at the deadline: the GPU check hangs, the probe is killed with its whole tree.
fresh_root "$W/tree-hang" "$W/good.bundle"
rm -f "$PIDS"/*
echo "hang_gpu=0" > "$CONF"
CUFERRY_VALIDATE_TIMEOUT=5 run_case probe_tree_timeout "the forking library, then a hang in the GPU check" "exit 6 at the deadline, rolled back; every process of the probe's tree is killed" 6 "$W/fork.bundle" $V
: > "$CONF"
assert_contains last.out "timed out after 5 s"
[ "$(ls "$PIDS" | wc -l)" -gt 0 ] || fail "probe_tree_timeout: no pid record"
[ "$(alive)" = 0 ] || fail "probe_tree_timeout: $(alive) process(es) outlived the unpacker"
echo "== a library that floods the probe's output: 64 KiB kept, the probe failed with one line (issue 23 A15)"
cat > "$W/flooder.c" <<'EOF'
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void flood(void)
{
	static char mb[1 << 20];
	memset(mb, 'x', sizeof(mb));
	for (int i = 0; i < 8; i++)
		if (write(1, mb, sizeof(mb)) < 0)
			break;
}
EOF
mkfake flood "$W/flooder.c"; mkbundle flood
chmod -R o+rX "$W"
R=$W/flood
mkdir -p "$R/usr/lib/x86_64-linux-gnu"
cp "$W/image-libs/"* "$R/usr/lib/x86_64-linux-gnu/"
expect 0 "$UNPACKER" "$W/flood.bundle" --root "$R" $T --no-validate
run_case probe_output_flood "a library whose constructor writes 8 MiB to the probe's stdout" "validate: exit 6, the probe failed with one line (its output capped at 64 KiB, the rest dropped)" 6 validate $V
grep -q "more than 64 KiB to its output" last.out last.err || { cat last.out last.err; fail "probe_output_flood: the reason is not named"; }

echo "== doctor never loads a copy a user could have put there"
# The copy's name and headers say no version: before, doctor had the probe load it.
up=$W/home/.local/lib/python3.11/site-packages/nvidia/cudnn/lib
mkdir -p "$up"
cp "$W/src-good/lib/libcudnn.so.9" "$W/src-good/lib/libcudnn_graph.so.9" "$up/"
chown -R nobody "$W/home/.local"
rm -f "$UIDS"/* "$PIDS"/*
for mode in interactive silent; do
	set +e
	if [ $mode = silent ]; then
		# the log of its own: /silent's default is the host's /var/log/cuferry
		HOME=$W/home "$UNPACKER" doctor /silent --log "$W/doctor.log" </dev/null >"$W/last.out" 2>"$W/last.err"
	else
		HOME=$W/home "$UNPACKER" doctor >"$W/last.out" 2>"$W/last.err"
	fi
	set -e
	assert_contains last.out "$up/libcudnn.so.9"
	assert_contains last.out "version unknown (not loaded: owned by uid 65534)"
	if ls "$UIDS" | grep -q .; then fail "doctor loaded a user's copy: $(ls "$UIDS")"; fi
done
record doctor_user_copy "a libcudnn.so.9 without a version in its name, owned by a user, under ~/.local" "doctor reports it 'version unknown (not loaded: owned by uid N)'; nothing of it runs" "threats/doctor_user_copy" "pass (both modes)"

echo "== doctor's fix for a user's copy names no program of that user (issue 23 A4)"
# ~/.local/bin/python3 is the user's: 'fix: ~/.local/bin/python3 -m pip uninstall', pasted as
# root, would run it; a user's conda environment likewise (conda runs its pre-unlink scripts).
mkdir -p "$W/home/.local/bin"
printf '#!/bin/sh\ntouch %s/python-ran\n' "$W" > "$W/home/.local/bin/python3"
chmod 755 "$W/home/.local/bin/python3"
chown -R nobody "$W/home/.local"
IMG2=$W/img2
env2=/home/u/miniconda3/envs/x
mkdir -p "$IMG2/etc" "$IMG2$env2/lib" "$IMG2$env2/conda-meta"
cp "$W/src-good/lib/libcudnn.so.9" "$IMG2$env2/lib/"
echo '{}' > "$IMG2$env2/conda-meta/cudnn-9.19.0-h0.json"
chown -R nobody "$IMG2/home/u"
for mode in interactive silent; do
	for how in home image; do
		set +e
		if [ $how = home ]; then
			HOME=$W/home "$UNPACKER" doctor $([ $mode = silent ] && echo /silent) </dev/null >"$W/last.out" 2>"$W/last.err"
		else
			"$UNPACKER" doctor --root "$IMG2" $([ $mode = silent ] && echo /silent) </dev/null >"$W/last.out" 2>"$W/last.err"
		fi
		set -e
		if grep 'fix:' "$W/last.out" | grep -v 'fix: not shown' | grep -q "$W/home/.local/bin/python3\|conda remove -p $env2"; then
			cat "$W/last.out" >&2; fail "doctor ($how) printed a fix that runs a user's program"
		fi
		assert_contains last.out "fix: not shown as a command: a user's"
	done
done
[ ! -e "$W/python-ran" ] || fail "the user's python ran"
record doctor_fix_user_program "a user's ~/.local/bin/python3 beside their pip copy of cuDNN; a user's conda environment" "doctor's fix names no program of that user: advice for its owner instead" "threats/doctor_fix_user_program" "pass (both modes)"

echo "== doctor prints no command a user's directory name could turn into another one"
# A directory name is the user's: pasted as root, 'rm DIR/libcudnn*' must not run its ';'.
# (doctor looks in /home/*/*conda*/lib, here of an image given with --root.)
IMG=$W/img
up=$IMG/home/u/'x;touch${IFS}PWNED;conda'/lib
mkdir -p "$up" "$IMG/etc"
cp "$W/src-good/lib/libcudnn.so.9" "$up/"
chown -R nobody "$IMG/home/u"
for mode in interactive silent; do
	set +e
	if [ $mode = silent ]; then
		"$UNPACKER" doctor --root "$IMG" /silent </dev/null >"$W/last.out" 2>"$W/last.err"
	else
		"$UNPACKER" doctor --root "$IMG" >"$W/last.out" 2>"$W/last.err"
	fi
	set -e
	assert_contains last.out "PWNED;conda/lib/libcudnn.so.9"
	if grep 'fix:' "$W/last.out" | grep -q 'PWNED'; then cat "$W/last.out" >&2; fail "doctor printed a fix command holding the user's ';'"; fi
	assert_contains last.out "fix: not shown"
done
record doctor_fix_injection "a directory named 'x;touch\${IFS}PWNED;' holding a libcudnn.so.9 (a command in its name)" "doctor names the copy, escaped, and prints no runnable fix for it" "threats/doctor_fix_injection" "pass (both modes)"

# Terminal escapes in names a user chooses (the outside review of 2026-12-04): a conda-meta
# file whose version part holds ESC and BEL, and a directory name that erases lines. doctor
# and inventory, run by root, print them as \xNN, never raw.
IMG3=$W/img3
ESC=$(printf '\033') BEL=$(printf '\007')
env3="/home/u/p${ESC}[1A${ESC}[2Kconda"
mkdir -p "$IMG3/etc" "$IMG3$env3/lib" "$IMG3$env3/conda-meta"
cp "$W/src-good/lib/libcudnn.so.9" "$IMG3$env3/lib/"
echo '{}' > "$IMG3$env3/conda-meta/cudnn-9${ESC}]0;OWNED${BEL}x-h0.json"
chown -R nobody "$IMG3/home/u"
for verb in doctor inventory; do
	set +e
	"$UNPACKER" $verb --root "$IMG3" >"$W/last.out" 2>"$W/last.err"
	set -e
	grep -q "conda" "$W/last.out" || { cat "$W/last.out" >&2; fail "$verb did not list the user's copy"; }
	if grep -q "$ESC\|$BEL" "$W/last.out" "$W/last.err"; then cat -v "$W/last.out" >&2; fail "$verb printed a raw ESC or BEL from a user's name"; fi
	grep -qF '\x1b' "$W/last.out" || { cat -v "$W/last.out" >&2; fail "$verb did not print the name escaped"; }
done
record terminal_escapes_user_names "a user's conda-meta/cudnn-9<ESC>]0;OWNED<BEL>x-h0.json and a directory p<ESC>[1A<ESC>[2Kconda holding libcudnn.so.9" "doctor and inventory print the names with \\xNN, no raw ESC or BEL" "threats/terminal_escapes_user_names" "pass"
echo ok
