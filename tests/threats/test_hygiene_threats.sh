#!/bin/sh
# Environment hygiene (issue 23, items 7 and 9) as threat cases, each in both modes with the
# suite's four assertions (tests/threats/lib.sh), recorded in
# $CUFERRY_BUILD/threat-results-hygiene.tsv for docs/SECURITY.md: a signed bundle carrying a
# distribution base library (libz.so.1, OpenSSL) that the install's lib/, first in the
# loader's search, would make every program's is refused (exit 3), and the bundler will not
# pack one; --modulefiles DIR is held to the prefix's ownership rule (exit 4, nothing
# written there); --env=user as root follows no link planted below the user's home (exit 4);
# the bundler follows no link of an archive or a --from-dir tree to a directory or out of the
# tree (exit 9).
# Run as root, as the unpacker is on a real target.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
RES=$B/threat-results-hygiene.tsv
. "$TOP/tests/threats/lib.sh"
: > "$RES"
as_root_cases

echo "== a bundle's lib/ never shadows the system's base libraries (exit 3)"
for lib in libz.so.1 libssl.so.3 libcrypto.so.3 libtinfo.so.6 libpam.so.0 libnss_files.so.2 libcuda.so.1; do
	$FORGE --key "$FX/test.key" --out "$W/$lib.bundle" --name "lib/$lib" --bundle-id "t-$lib" --version 9.20.0.1
	fresh_root "$W/shadow-$lib"
	run_case "shadow_${lib%%.so*}" "a signed bundle carrying lib/$lib" \
		"integrity: exit 3, a manifest entry that may not be (it would become every program's $lib)" \
		3 "$lib.bundle" --no-validate
	assert_contains last.err "is the distribution's own library"
done
# By stem, every name of a library (issue 23 follow-up F3): unversioned, fully versioned, and
# any module of the NSS family (glibc loads libnss_SERVICE.so.2 for whatever SERVICE
# nsswitch.conf names).
for lib in libz.so.1.2.13 libz.so libcrypto.so.3.0 libnss_winbind.so.2 libpthread.so.0.1; do
	id=shadow_stem_$(echo "$lib" | tr . _)
	$FORGE --key "$FX/test.key" --out "$W/$lib.bundle" --name "lib/$lib" --bundle-id "t-$lib" --version 9.20.0.1
	fresh_root "$W/shadow-$lib"
	run_case "$id" "a signed bundle carrying lib/$lib (another name of a base or C library)" \
		"integrity: exit 3, a manifest entry that may not be (any name of the library, by stem)" \
		3 "$lib.bundle" --no-validate
	case $lib in
	libpthread.*) assert_contains last.err "named like the C library" ;;
	*) assert_contains last.err "is the distribution's own library" ;;
	esac
done
# Never a prefix: a name that only starts like one installs.
$FORGE --key "$FX/test.key" --out "$W/libzz.bundle" --name lib/libzz.so.1 --bundle-id t-libzz --version 9.20.0.1
fresh_root "$W/shadow-ok"
expect 0 "$UNPACKER" libzz.bundle --root "$R" --trust "$FX/test.pub" --no-validate
record shadow_prefix_ok "lib/libzz.so.1 (starts like libz)" "accepted: by stem, never a prefix" "threats/shadow_prefix_ok" "pass (exit 0)"

echo zlib > libz.so.1
expect 1 "$BUNDLER" create --from-dir "$FX/small-src" --key "$FX/test.key" -o addz/ --add-file libz.so.1
one_line_reason
assert_contains last.err "libz.so.1 is the distribution's own library"
[ -z "$(ls addz 2>/dev/null)" ] || fail "the bundler wrote a bundle with libz.so.1"
record shadow_add_file "bundler create --add-file libz.so.1" "usage: exit 1, nothing written" "threats/shadow_add_file" "pass (exit 1)"
for lib in libz.so.1.2.13 libnss_winbind.so.2; do
	echo lib > "$lib"
	expect 1 "$BUNDLER" create --from-dir "$FX/small-src" --key "$FX/test.key" -o "add-$lib/" --add-file "$lib"
	one_line_reason
	assert_contains last.err "$lib is the distribution's own library"
	[ -z "$(ls "add-$lib" 2>/dev/null)" ] || fail "the bundler wrote a bundle with $lib"
done
record shadow_add_file_stem "bundler create --add-file libz.so.1.2.13 (libnss_winbind.so.2)" "usage: exit 1, nothing written" "threats/shadow_add_file_stem" "pass (exit 1)"

echo "== the name rules hold for an ELF's DT_SONAME too, whatever the file is called (exit 9 / exit 3, A11)"
# ldconfig enters a library under its soname: an innocently named file whose soname is
# libz.so.1 (or libc.so.6) would be every program's zlib (C library) through
# 00-cuferry-cudnn.conf. Built here, as an attacker would.
mkdir -p "$W/so"
echo 'int innocent(void) { return 0; }' > "$W/so/e.c"
for soname in libz.so.1 libc.so.6 libcuda.so.1; do
	cc -shared -fPIC -o "$W/so/libinnocent.so.1" -Wl,-soname,$soname "$W/so/e.c" ||
		fail "cc -shared failed"
	readelf -d "$W/so/libinnocent.so.1" | grep -q "(SONAME).*\[$soname\]" || fail "the test library has no soname $soname"
	expect 9 "$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 --key "$FX/test.key" -o "$W/innocent.bundle" \
		--add-file "$W/so/libinnocent.so.1" -q
	one_line_reason
	assert_contains last.err "lib/libinnocent.so.1"
	assert_contains last.err "its soname is $soname"
	[ ! -e "$W/innocent.bundle" ] || fail "the bundler wrote a bundle with a library whose soname is $soname"
done
record soname_bundler "bundler create --add-file libinnocent.so.1 whose DT_SONAME is libz.so.1 (libc.so.6, libcuda.so.1)" \
	"refused, exit 9, the file and its soname named; no bundle written" "threats/soname_bundler" "pass (exit 9)"
# The unpacker does not take the bundler's word: a bundle signed by an older or a compromised
# bundler carrying it is refused before anything becomes current.
for soname in libz.so.1 libc.so.6; do
	cc -shared -fPIC -o "$W/so/libinnocent.so.1" -Wl,-soname,$soname "$W/so/e.c"
	$FORGE --key "$FX/test.key" --out "$W/soname-${soname%%.so*}.bundle" --name lib/libinnocent.so.1 \
		--data "$W/so/libinnocent.so.1" --bundle-id "t-soname-${soname%%.so*}" --version 9.20.0.1
	fresh_root "$W/soname-${soname%%.so*}"
	run_case "soname_${soname%%.so*}" "a signed bundle carrying lib/libinnocent.so.1 whose DT_SONAME is $soname" \
		"integrity: exit 3, a manifest entry that may not be (ldconfig would make it every program's $soname)" \
		3 "soname-${soname%%.so*}.bundle" --no-validate
	assert_contains last.err "lib/libinnocent.so.1"
	assert_contains last.err "its soname is $soname"
	[ ! -e "$R/opt/cudnn/current/lib/libinnocent.so.1" ] || fail "lib/libinnocent.so.1 was installed"
done
# An allowed soname under any name installs: the rule is the soname's, not the file's.
cc -shared -fPIC -o "$W/so/libinnocent.so.1" -Wl,-soname,libcudnn_innocent.so.9 "$W/so/e.c"
$FORGE --key "$FX/test.key" --out "$W/soname-ok.bundle" --name lib/libinnocent.so.1 \
	--data "$W/so/libinnocent.so.1" --bundle-id t-soname-ok --version 9.20.0.1
fresh_root "$W/soname-ok"
expect 0 "$UNPACKER" soname-ok.bundle --root "$R" --trust "$FX/test.pub" --no-validate
[ -f "$R/opt/cudnn/current/lib/libinnocent.so.1" ] || fail "lib/libinnocent.so.1 (soname libcudnn_innocent.so.9) was not installed"
record soname_ok "lib/libinnocent.so.1 whose DT_SONAME is libcudnn_innocent.so.9" "accepted: the lists' exact sonames only" \
	"threats/soname_ok" "pass (exit 0)"

echo "== --modulefiles DIR passes the prefix's ownership rule (exit 4)"
$FORGE --key "$FX/test.key" --out "$W/new.bundle" --bundle-id t-new --version 9.20.0.1
modules_case() { # ID "what" SETUP-COMMAND
	fresh_root "$W/mf-$1"
	mkdir -p "$R/site/modulefiles"
	eval "$3"
	run_case "modulefiles_$1" "--modulefiles DIR: $2" \
		"exit 4 before anything is written, the directory named" 4 new.bundle --no-validate \
		--modulefiles /site/modulefiles
	assert_contains last.err "the modulefiles directory"
	[ -z "$(ls -A "$R/site/modulefiles")" ] || fail "modulefiles_$1: written into $R/site/modulefiles"
}
modules_case world_writable "mode 0777, owned by nobody" \
	'chmod 777 "$R/site/modulefiles"; chown nobody "$R/site/modulefiles"'
modules_case other_owner "owned by another user" 'chown nobody "$R/site/modulefiles"'
modules_case parent_writable "a parent writable by group" 'chmod 775 "$R/site"'
# DIR itself root's, DIR/cudnn (where the files go) another user's: its owner could replace
# root's modulefiles with their own Tcl or Lua (issue 23 A5).
fresh_root "$W/mf-sub"
mkdir -p "$R/site/modulefiles/cudnn" && chown nobody "$R/site/modulefiles/cudnn"
run_case modulefiles_subdir_owner "--modulefiles DIR: DIR/cudnn owned by another user" \
	"exit 4 before anything is written, the directory named" 4 new.bundle --no-validate \
	--modulefiles /site/modulefiles
assert_contains last.err "modulefiles/cudnn is owned by uid"
[ -z "$(ls -A "$R/site/modulefiles/cudnn")" ] || fail "modulefiles_subdir_owner: written into DIR/cudnn"
# A root-owned 0755 directory is fine.
fresh_root "$W/mf-ok"
mkdir -p "$R/site/modulefiles"
expect 0 "$UNPACKER" new.bundle --root "$R" --trust "$FX/test.pub" --no-validate --modulefiles /site/modulefiles
[ -f "$R/site/modulefiles/cudnn/9.20.0.1-cuda13.lua" ] || fail "no modulefile in a root-owned 0755 directory"
record modulefiles_ok "--modulefiles DIR: root-owned 0755" "accepted, the modulefiles written" "threats/modulefiles_ok" "pass (exit 0)"
echo "== --env=user as root follows nothing the user planted below the home (exit 4)"
# A fake home (never the real /root or /home) owned by a user, uid 4242: its ~/.config/cuferry
# is a link to a directory of root's ($W/outside/sub), where root would otherwise write.
fresh_root "$W/userenv"
H=$W/home4242
mkdir -p "$H/.config"
ln -s "$W/outside/sub" "$H/.config/cuferry"
chown -hR 4242:4242 "$H"
chmod 0755 "$H" "$H/.config"
saved_home=$HOME
HOME=$H; export HOME
run_case env_user_link "--env=user as root, ~/.config/cuferry a link (planted by the home's owner) to root's directory" \
	"incompatible: exit 4, the link named, nothing written through it, the install rolled back" \
	4 "$W/new.bundle" --no-validate --env=user
assert_contains last.err "cuferry is a link"
[ ! -e "$W/outside/sub/cudnn.sh" ] || fail "root wrote through the planted link"
# A home's own directories are fine: the file is then written, owned by the home's owner.
rm "$H/.config/cuferry"
expect 0 "$UNPACKER" "$W/new.bundle" --root "$R" --trust "$FX/test.pub" --no-validate --env=user
[ "$(stat -c %u:%g "$H/.config/cuferry/cudnn.sh" "$H/.config/cuferry")" = "4242:4242
4242:4242" ] || fail "the user's snippet is not the home owner's: $(stat -c '%n %u:%g' "$H/.config/cuferry/cudnn.sh")"
HOME=$saved_home; export HOME
record env_user_ok "--env=user as root into the home's own directories" "written, owned by the home's owner" \
	"threats/env_user_ok" "pass (exit 0)"
echo "== validate of a prefix or --root image another user owns is refused (exit 4, issue 23 A10)"
# validate writes report.json and failed/ as root, and its probe loads the install: as the
# writing verbs do, it refuses a prefix whose owner could link .cuferry or failed/ elsewhere.
fresh_root "$W/val-prefix"
chown nobody "$R/opt/cudnn" "$R/opt/cudnn/.cuferry"
run_case validate_user_prefix "validate of a prefix owned by another user" \
	"exit 4 before anything is read or written, the directory named" 4 validate
assert_contains last.err "the prefix: .*owned by uid"
fresh_root "$W/val-image"
chown -R nobody "$R"
mv "$R/opt/cudnn/.cuferry" "$R/opt/cudnn/.cuferry-real"
ln -s "$W/outside" "$R/opt/cudnn/.cuferry"
run_case validate_user_image "validate --root of an image owned by another user, its .cuferry linked elsewhere" \
	"exit 4 before anything is read or written, the directory named" 4 validate
echo "== the bundler follows no link of its source out of the tree or to a directory (exit 9)"
# An archive (--from-archive, or one the mirror serves) or a --from-dir tree is the
# bundler's input, not its host's: a link in it that the walk followed would pack the
# bundling host's files into the signed bundle. NVIDIA's own library links
# (libcudnn.so -> libcudnn.so.9) stay links (test_legacy_archives, test_bundle_real).
mkdir -p "$W/host-dir" && echo host-secret > "$W/host-dir/s.txt"
linkarc() { # NAME LINK TARGET: a redist-layout archive of small-src with LINK -> TARGET
	stem=cudnn-linux-x86_64-9.19.0.56_cuda13-archive
	rm -rf "$W/arc-$1" && mkdir -p "$W/arc-$1" && cp -a "$FX/small-src" "$W/arc-$1/$stem"
	ln -s "$3" "$W/arc-$1/$stem/$2"
	tar -C "$W/arc-$1" -cJf "$W/arc-$1/$stem.tar.xz" "$stem"
	arc=$W/arc-$1/$stem.tar.xz
}
refused() { # WHAT SOURCE...: exit 9, one line naming WHAT (the entry and its target), no bundle
	what=$1; shift
	rm -f "$W/link.bundle"
	expect 9 "$BUNDLER" create "$@" --key "$FX/test.key" -o "$W/link.bundle" -q
	one_line_reason
	assert_contains last.err "$what"
	[ ! -e "$W/link.bundle" ] || fail "the bundler wrote a bundle with $what"
}
linkarc dir include/evil "$W/host-dir"
refused "include/evil -> $W/host-dir: a link out of the tree" --from-archive "$arc"
record arclink_dir "bundler create --from-archive holding include/evil -> a directory of the bundling host" \
	"refused, exit 9, the entry and its target named; no bundle written" "threats/arclink_dir" "pass (exit 9)"
linkarc inside include/evil ../lib
refused "include/evil -> ../lib: a link to a directory" --from-archive "$arc"
record arclink_dir_inside "bundler create --from-archive holding include/evil -> ../lib (a directory of the archive)" \
	"refused, exit 9, the entry and its target named; no bundle written" "threats/arclink_dir_inside" "pass (exit 9)"
for target in /etc/passwd ../../../../etc/passwd; do
	linkarc file lib/libx.so "$target"
	refused "lib/libx.so -> $target: a link out of the tree" --from-archive "$arc"
done
record arclink_file "bundler create --from-archive holding lib/libx.so -> /etc/passwd (../../../../etc/passwd)" \
	"refused, exit 9, the entry and its target named; no bundle written" "threats/arclink_file" "pass (exit 9)"
rm -rf "$W/dirlink" && cp -a "$FX/small-src" "$W/dirlink"
ln -s "$W/host-dir" "$W/dirlink/lib/libcudnn_evil.so"
refused "lib/libcudnn_evil.so -> $W/host-dir: a link out of the tree" --from-dir "$W/dirlink" --cuda 13
rm "$W/dirlink/lib/libcudnn_evil.so" && ln -s . "$W/dirlink/include/cudnn_evil.h"
refused "include/cudnn_evil.h -> .: a link to a directory" --from-dir "$W/dirlink" --cuda 13
record fromdir_dir_link "bundler create --from-dir, lib/libcudnn_evil.so -> a host directory (include/cudnn_evil.h -> .)" \
	"refused, exit 9, the entry and its target named; no bundle written" "threats/fromdir_dir_link" "pass (exit 9)"
rm "$W/dirlink/include/cudnn_evil.h" && mv "$W/dirlink/lib" "$W/host-lib" && ln -s "$W/host-lib" "$W/dirlink/lib"
refused "lib -> $W/host-lib: a link out of the tree" --from-dir "$W/dirlink" --cuda 13
# A layout directory linked inside the tree, as NVIDIA's .run installs link lib64/, is taken.
mv "$W/host-lib" "$W/dirlink/lib-real" && ln -sfn lib-real "$W/dirlink/lib"
expect 0 "$BUNDLER" create --from-dir "$W/dirlink" --cuda 13 --key "$FX/test.key" -o "$W/dirlink.bundle" -q
expect 0 "$BUNDLER" inspect "$W/dirlink.bundle"
assert_contains last.out "lib/libcudnn.so -> libcudnn.so.9"
record fromdir_layout_link "bundler create --from-dir whose lib/ is a link to a directory outside the tree" \
	"refused, exit 9, the link and its target named; no bundle written (lib -> lib-real inside: taken)" "threats/fromdir_layout_link" "pass (exit 9)"

# inspect needs no trusted key, so a stranger's bundle reaches it: the manifest's free text (the
# source's name, here a directory named with a terminal title sequence) is printed escaped.
ESC=$(printf '\033') BEL=$(printf '\007')
rm -rf "$W/src${ESC}]0;PWN${BEL}" && cp -a "$FX/small-src" "$W/src${ESC}]0;PWN${BEL}"
expect 0 "$BUNDLER" create --from-dir "$W/src${ESC}]0;PWN${BEL}" --cuda 13 --key "$FX/test.key" -o "$W/escname.bundle" -q
expect 0 "$BUNDLER" inspect "$W/escname.bundle"
if grep -q "$ESC\|$BEL" "$W/last.out" "$W/last.err"; then cat -v "$W/last.out" >&2; fail "inspect printed a raw ESC or BEL from the manifest"; fi
grep -qF '\x1b]0;PWN\x07' "$W/last.out" || { cat -v "$W/last.out" >&2; fail "inspect did not print the name escaped"; }
record inspect_escapes_manifest_text "bundler inspect of a bundle whose source name holds ESC ]0;PWN BEL (a terminal title sequence)" \
	"printed as \\xNN, no raw ESC or BEL" "threats/inspect_escapes_manifest_text" "pass"

# The dossier's provenance record is a bundle maker's text too: printed only as JSON the
# reader re-encodes (every control character escaped), and refused when it is not JSON.
printf 'not json \033]0;owned\007\033[2J FAKE: all checks passed\n' > "$W/prov-raw.json"
python3 "$TOP/tests/tools/forge.py" --key "$FX/test.key" --out "$W/provraw.bundle" \
	--name .cuferry-dossier/provenance.json --data "$W/prov-raw.json" || fail "forge provraw"
printf '{"format": "cuferry-provenance-1", "note": "\\u001b]0;owned\\u0007\\u009b2J"}\n' > "$W/prov-esc.json"
python3 "$TOP/tests/tools/forge.py" --key "$FX/test.key" --out "$W/provesc.bundle" \
	--name .cuferry-dossier/provenance.json --data "$W/prov-esc.json" || fail "forge provesc"
expect 3 "$BUNDLER" inspect "$W/provraw.bundle" --provenance
assert_contains last.err "is not a provenance record of the bundler's"
expect 3 "$UNPACKER" verify "$W/provraw.bundle" --trust "$FX/test.pub" --provenance
one_line_reason
for b in provraw provesc; do
	"$BUNDLER" inspect "$W/$b.bundle" --provenance > "$W/$b.i" 2>&1 || true
	"$UNPACKER" verify "$W/$b.bundle" --trust "$FX/test.pub" --provenance > "$W/$b.v" 2>&1 || true
	if LC_ALL=C grep -q "$ESC\|$BEL\|$(printf '\302\233')" "$W/$b.i" "$W/$b.v"; then
		cat -v "$W/$b.i" "$W/$b.v" >&2; fail "a --provenance print of $b carried a raw control character"
	fi
done
grep -qiF '\u001b]0;owned' "$W/provesc.v" || { cat "$W/provesc.v" >&2; fail "verify --provenance did not print the record escaped"; }
record provenance_print_escaped "bundler inspect / unpacker verify --provenance of a signed bundle whose provenance.json is raw ESC text, or JSON with ESC, BEL and C1 CSI" \
	"not JSON: exit 3, one line; JSON: printed with every control character escaped (\\u001b), no raw ESC, BEL or CSI" "threats/provenance_print_escaped" "pass"
echo "ok: environment hygiene"
