#!/bin/sh
# Man pages render with man -l, name every command; bash completion offers every command of
# both programs (taken from their own help); make install puts binaries, pages and completion
# under DESTDIR.
. "$CUFERRY_TOP/tests/e2e/lib.sh"

note "man -l renders bundler(1) and unpacker(1)"
for p in bundler unpacker; do
	[ -f "$B/man/$p.1" ] || fail "no $B/man/$p.1 (make man)"
	MANPAGER=cat MANWIDTH=100 man -l "$B/man/$p.1" > $p.txt 2>man.err || { cat man.err; fail "man -l $p.1"; }
	for s in NAME SYNOPSIS COMMANDS OPTIONS "EXIT STATUS"; do assert_contains $p.txt "$s"; done
done
for c in keygen create resolve inspect sign split; do assert_contains bundler.txt "bundler $c"; done
for c in verify validate list use uninstall env doctor inventory trust reset-clock; do assert_contains unpacker.txt "$c"; done
assert_contains bundler.txt "bundler trust-statement"
assert_contains unpacker.txt "--repair"
assert_contains bundler.txt "fat32"
for o in --modulefiles --no-validate --require-gpu --keep-failed --gpu --allow-expired --platform \
	 --remember --fingerprint --deep; do
	sed -n '/^OPTIONS/,/^EXIT STATUS/p' unpacker.txt | grep -q -- "$o" || fail "unpacker(1) OPTIONS lack $o"
done
! grep -q 'cuda_N_' bundler.txt || fail "bundler(1) shows scdoc markup: $(grep cuda_N_ bundler.txt)"
assert_contains bundler.txt "cudaN"

note "bash completion lists each program's commands (asked of the program typed: word 0)"
complete_words() { # PROGRAM FUNCTION WORD...
	bash -c '. "$1"; shift; f=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $f; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$TOP/docs/completion/cuferry.bash" "$@"
}
complete_words _cuferry_bundler "$BUNDLER" "" > b.words
for c in keygen create resolve inspect sign split help; do
	grep -qx "$c" b.words || fail "completion misses bundler $c: $(cat b.words)"
done
complete_words _cuferry_unpacker "$UNPACKER" "" > u.words
for c in install verify validate list use uninstall env doctor inventory trust help; do
	grep -qx "$c" u.words || fail "completion misses unpacker $c"
done
complete_words _cuferry_unpacker "$UNPACKER" trust "" > t.words
grep -qx reset-clock t.words || fail "completion misses unpacker trust reset-clock"
complete_words _cuferry_bundler "$BUNDLER" create --sp > o.words
grep -qx -- "--split" o.words || fail "no option completion"
complete_words _cuferry_unpacker "$UNPACKER" install x --m > m.words
grep -qx -- "--modulefiles" m.words || fail "no --modulefiles completion for unpacker"
complete_words _cuferry_unpacker "$UNPACKER" install x --pl > p.words
grep -qx -- "--platform" p.words || fail "no --platform completion for unpacker"
complete_words _cuferry_unpacker "$UNPACKER" install x --platform "" > pv.words
grep -qx linux-sbsa pv.words || fail "--platform does not offer the platforms"
complete_words _cuferry_bundler "$BUNDLER" split x --split "" > s.words
grep -qx fat32 s.words || fail "--split does not offer fat32"
# Every command the programs' own help names is in the completion.
"$BUNDLER" help | sed -n 's/^ *\(usage:\)\{0,1\} *bundler \([a-z][a-z-]*\).*/\2/p' | sort -u > b.help
while read -r c; do grep -qx "$c" b.words || fail "bundler help names '$c', completion does not"; done < b.help

note "the bundler's own messages: exit codes in --help, warnings named 'bundler:'"
expect 0 "$BUNDLER" --help
assert_contains last.out "5 interrupted or I/O"
cp "$FX/small.bundle" five.bundle
expect 0 "$BUNDLER" split five.bundle --split 5G
assert_contains last.err "^bundler: warning: --split 5G"
! grep -q "cuferry:" last.err || fail "a warning not named bundler: $(cat last.err)"

note "make install puts everything under DESTDIR"
make -C "$TOP" -s B="$B" DESTDIR="$W/dest" PREFIX=/usr install >install.log 2>&1 || { cat install.log; fail "make install"; }
for f in bin/bundler bin/unpacker share/man/man1/bundler.1 share/man/man1/unpacker.1 \
	share/bash-completion/completions/bundler share/bash-completion/completions/unpacker; do
	[ -f "$W/dest/usr/$f" ] || fail "make install did not install $f"
done
echo ok
