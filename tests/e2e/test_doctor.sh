#!/bin/sh
# doctor: every cuDNN copy is listed with its version, the one the loader would pick is named,
# and an older copy that would shadow the install is reported (exit 6).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
R=$W/root
mkdir root
"$UNPACKER" "$FX/small.bundle" --root "$R" --trust "$FX/test.pub" >/dev/null

note "only the install: it wins through the ld cache"
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
assert_contains last.out "=> 9.19.0     $R/opt/cudnn/cudnn-9.19.0-cuda13/lib/libcudnn.so.9"
assert_contains last.out "on the search path through: $R/etc/ld.so.conf.d/00-cuferry-cudnn.conf (ld cache)"
assert_contains last.out "the installed copy wins"

note "--no-env in an image whose ld cache has a toolkit's copy: step 3 and doctor name it alike"
# Neither may call it "this shell (its LD_LIBRARY_PATH)": under --root there is none (the trial
# of issue 25: the label claimed an LD_LIBRARY_PATH that was not set).
N=$W/noenv
mkdir -p "$N/usr/local/cuda-13.0/lib" "$N/etc/ld.so.conf.d"
cp "$R/opt/cudnn/current/lib/libcudnn.so.9" "$N/usr/local/cuda-13.0/lib/libcudnn.so.9.14.0"
ln -s libcudnn.so.9.14.0 "$N/usr/local/cuda-13.0/lib/libcudnn.so.9"
echo /usr/local/cuda-13.0/lib > "$N/etc/ld.so.conf.d/988_cuda-13.conf"
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" "$FX/small.bundle" --root "$N" --no-env --trust "$FX/test.pub"
assert_contains last.out "3    resolution    skip   a program loading libcudnn.so.9 gets $N/usr/local/cuda-13.0/lib/libcudnn.so.9"
assert_contains last.out "not the install (cuDNN 9.14.0; a program without the install.s environment (no LD_LIBRARY_PATH)"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$N"
assert_contains last.err "shadowed by $N/usr/local/cuda-13.0/lib/libcudnn.so.9.14.0"
assert_contains last.err "for a program without the install's environment (no LD_LIBRARY_PATH)"
one_line_reason
! grep -q 'its LD_LIBRARY_PATH' last.out last.err || fail "doctor names an LD_LIBRARY_PATH that is not set"

note "an old 9.14 earlier in the ld cache (a file that sorts before ours) shadows it"
mkdir -p "$R/usr/lib/old"
cp "$R/opt/cudnn/current/lib/libcudnn.so.9" "$R/usr/lib/old/libcudnn.so.9.14.0"
ln -s libcudnn.so.9.14.0 "$R/usr/lib/old/libcudnn.so.9"
echo /usr/lib/old > "$R/etc/ld.so.conf.d/00-aaa-old.conf"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
assert_contains last.out "=> 9.14.0"
assert_contains last.err "shadowed by $R/usr/lib/old/libcudnn.so.9.14.0"
one_line_reason
rm "$R/etc/ld.so.conf.d/00-aaa-old.conf"

note "a decoy on the image's LD_LIBRARY_PATH (its /etc/environment) wins for login shells"
mkdir -p "$R/decoy"
cp "$R/opt/cudnn/current/lib/libcudnn.so.9" "$R/decoy/libcudnn.so.9.1.0"
ln -s libcudnn.so.9.1.0 "$R/decoy/libcudnn.so.9"
echo 'LD_LIBRARY_PATH="/decoy"' > "$R/etc/environment"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
assert_contains last.out "a login shell (LD_LIBRARY_PATH set in /etc/environment or profile.d) gets $R/decoy/libcudnn.so.9.1.0"
assert_contains last.out "on the search path through: LD_LIBRARY_PATH in $R/etc/environment"
assert_contains last.err "shadowed by $R/decoy/libcudnn.so.9.1.0 (cuDNN 9.1.0, unknown"
one_line_reason
rm "$R/etc/environment"

note "on an RPM system a copy no dpkg list names is asked of rpm, not removed by hand"
mkdir -p "$R/var/lib/rpm"
echo 'LD_LIBRARY_PATH="/decoy"' > "$R/etc/environment"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
assert_contains last.err "fix: chroot $R dnf remove \"\$(chroot $R rpm -qf /decoy/libcudnn.so.9.1.0)\""
rm -r "$R/etc/environment" "$R/var/lib/rpm"

note "under --root the caller's own LD_LIBRARY_PATH is this host's, not the image's: not used"
LD_LIBRARY_PATH=/decoy expect 0 "$UNPACKER" doctor --root "$R"
assert_contains last.out "the installed copy wins"

note "without --root, a user-style install (no ld.so.conf.d file) is judged by the caller's LD_LIBRARY_PATH"
expect 0 "$UNPACKER" "$FX/small.bundle" --prefix "$W/prefix" --no-env --trust "$FX/test.pub"
LD_LIBRARY_PATH=$W/prefix/current/lib expect 0 "$UNPACKER" doctor --prefix "$W/prefix"
assert_contains last.out "this shell (its LD_LIBRARY_PATH) gets $W/prefix/cudnn-9.19.0-cuda13/lib/libcudnn.so.9"
LD_LIBRARY_PATH=$R/decoy:$W/prefix/current/lib expect 6 "$UNPACKER" doctor --prefix "$W/prefix"
assert_contains last.err "shadowed by $R/decoy/libcudnn.so.9.1.0 (cuDNN 9.1.0, unknown"
assert_contains last.err "for this shell (its LD_LIBRARY_PATH), put on the search path by LD_LIBRARY_PATH of this shell"
one_line_reason

note "a copy no name, header or metadata dates: the host's is asked of the unprivileged probe"
# The real cuDNN (9.19.0), and a fake that says 9.14.2 and records the uid that loaded it.
mkdir -p "$W/bare" "$W/fake" "$W/loads" && chmod 1777 "$W/loads"
cp "$W/prefix/cudnn-9.19.0-cuda13/lib/libcudnn.so.9" "$W/bare/libcudnn.so.9"
printf '%s\n' '#include <stdio.h>' '#include <unistd.h>' \
	'__attribute__((constructor)) static void r(void) { FILE *f = fopen(LOADS "/uid", "a"); if (f) fprintf(f, "%u\n", getuid()), fclose(f); }' \
	'unsigned long cudnnGetVersion(void) { return 91402; }' > "$W/fake.c"
cc -shared -fPIC -DLOADS="\"$W/loads\"" -o "$W/fake/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 "$W/fake.c"
LD_LIBRARY_PATH=$W/bare:$W/fake:$W/prefix/current/lib expect 6 "$UNPACKER" doctor --prefix "$W/prefix"
assert_contains last.out "=> 9.19.0     $W/bare/libcudnn.so.9"
assert_contains last.out "version: 9.19.0, read by loading it unprivileged"
assert_contains last.out "   9.14.2     $W/fake/libcudnn.so.9"
assert_contains last.out "version: 9.14.2, read by loading it unprivileged"
assert_contains last.err "shadowed by $W/bare/libcudnn.so.9 (cuDNN 9.19.0, unknown"
one_line_reason
# Loaded once, in the probe child, never as root (nobody when the test runs as root).
[ "$(wc -l < "$W/loads/uid")" = 1 ] || fail "the fake was loaded $(wc -l < "$W/loads/uid") times"
[ "$(cat "$W/loads/uid")" != 0 ] || fail "the fake was loaded as root"
[ "$(id -u)" != 0 ] || [ "$(cat "$W/loads/uid")" = 65534 ] || fail "the fake was loaded as uid $(cat "$W/loads/uid")"
# A copy that crashes or hangs as it loads takes only the probe child down: doctor goes on.
mkdir -p "$W/crash" "$W/hang"
printf '%s\n' '#include <signal.h>' '__attribute__((constructor)) static void r(void) { raise(SIGSEGV); }' > "$W/crash.c"
printf '%s\n' '#include <unistd.h>' '__attribute__((constructor)) static void r(void) { for (;;) pause(); }' > "$W/hang.c"
cc -shared -fPIC -o "$W/crash/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 "$W/crash.c"
cc -shared -fPIC -o "$W/hang/libcudnn.so.9" -Wl,-soname,libcudnn.so.9 "$W/hang.c"
LD_LIBRARY_PATH=$W/crash:$W/hang:$W/prefix/current/lib CUFERRY_VALIDATE_TIMEOUT=1 expect 6 "$UNPACKER" doctor --prefix "$W/prefix"
assert_contains last.out "version: unknown (the unprivileged probe: crashed inside the library (signal 11"
assert_contains last.out "version: unknown (the unprivileged probe: timed out after 1 s (killed))"
assert_contains last.err "shadowed by $W/crash/libcudnn.so.9 (cuDNN unknown"
# The same copies inside an image are files of that image: never run, the version stays unknown.
mkdir -p "$R/usr/lib/fake"
cp "$W/fake/libcudnn.so.9" "$R/usr/lib/fake/libcudnn.so.9"
echo /usr/lib/fake > "$R/etc/ld.so.conf.d/00-aaa-fake.conf"
rm "$W/loads/uid"
expect 6 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$R"
assert_contains last.out "=> unknown    $R/usr/lib/fake/libcudnn.so.9"
assert_contains last.out "version: unknown (not loaded: inside --root)"
assert_contains last.err "shadowed by $R/usr/lib/fake/libcudnn.so.9 (cuDNN unknown"
[ ! -e "$W/loads/uid" ] || fail "a library of the image was loaded"
rm -r "$R/etc/ld.so.conf.d/00-aaa-fake.conf" "$R/usr/lib/fake"

note "nothing installed: nothing to shadow"
mkdir empty
expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" doctor --root "$W/empty"
assert_contains last.out "nothing is installed"
