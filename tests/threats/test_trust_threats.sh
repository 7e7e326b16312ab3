#!/bin/sh
# Trust statements as threats (DESIGN §10 "Trust lifecycle"): a replayed or forged statement,
# one by a key that is not trusted or is revoked, one below its threshold, and a leaked key
# that tries to take the site over. Each: 'unpacker trust apply' in both modes, the suite's
# four assertions, and the trust directory unchanged. Results: threat-results-trust.tsv.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
RES=$B/threat-results-trust.tsv
. "$TOP/tests/threats/lib.sh"
: > "$RES"
fp() { openssl pkey -pubin -in "$1" -outform DER | sha256sum | cut -c1-64; }
K1=$FX/test.key K2=$FX/other.key F1=$(fp "$FX/test.pub") F2=$(fp "$FX/other.pub")
R=$W/root
mkdir -p outside root
echo target > outside/target
"$UNPACKER" "$FX/small.bundle" --root "$R" --trust "$FX/test.pub" --no-validate >/dev/null
"$UNPACKER" trust add "$FX/test.pub" --root "$R" >/dev/null
"$UNPACKER" trust add "$FX/other.pub" --root "$R" >/dev/null
"$BUNDLER" keygen leaked-friend >/dev/null
"$BUNDLER" keygen stranger >/dev/null
st() { "$BUNDLER" trust-statement "$@" >/dev/null || fail "trust-statement $*"; }

# A statement applied first: counter 10 (T = 1 and two keys: the statement threshold is 2).
st --threshold 1 --counter 10 --key "$K1" -o applied.st
st applied.st --key "$K2"
expect 0 "$UNPACKER" trust apply applied.st --root "$R"

T2="refused, exit 2; the trust directory unchanged"
st --threshold 1 --counter 9 --key "$K1" -o replay.st
st replay.st --key "$K2"
run_statement_case statement_replayed "an older statement replayed (counter below the last applied)" "refused, exit 7; the trust directory unchanged" 7 replay.st
st --threshold 1 --statement-threshold 2 --counter 10 --key "$K1" -o same.st
st same.st --key "$K2"
cmp -s same.st applied.st && fail "same.st should differ from applied.st"
run_statement_case statement_same_counter "another statement with the counter already applied" "refused, exit 7; the trust directory unchanged" 7 same.st
st --revoke "$F2" --counter 20 --key stranger.key -o stranger.st
run_statement_case statement_untrusted_key "a statement signed by a key that is not trusted" "$T2" 2 stranger.st
st --revoke "$F2" --counter 20 --key "$K1" -o below.st
run_statement_case statement_below_threshold "a statement revoking another key, signed by one of two" "$T2" 2 below.st
st --revoke "$F2" --revoke "$F1" --counter 20 --key "$K1" -o takeover.st
run_statement_case statement_leak_revokes_others "a leaked key revoking the other key with itself" "$T2" 2 takeover.st
st --add leaked-friend.pub --counter 20 --key "$K1" -o friend.st
run_statement_case statement_leak_adds_friend "a leaked key adding itself a friend" "$T2" 2 friend.st
st --statement-threshold 1 --counter 20 --key "$K1" -o lower.st
run_statement_case statement_leak_lowers_threshold "a leaked key lowering the statement threshold" "$T2" 2 lower.st
st --threshold 1 --counter 21 --key "$K1" -o tampered.st
st tampered.st --key "$K2"
py - tampered.st <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
i = b.index(b'"counter": 21'); b[i + 11] = ord("9")   # 21 -> 91 after signing
open(p, "wb").write(b)
PY
run_statement_case statement_tampered "a statement changed after signing (its counter raised)" "$T2" 2 tampered.st
run_statement_case statement_is_a_bundle "a bundle header given as a statement (the other tag)" "$T2" 2 "$FX/small.bundle"

# K1 revokes itself (allowed alone); afterwards its signatures count nowhere, statements included.
st --revoke "$F1" --counter 30 --key "$K1" -o self.st
expect 0 "$UNPACKER" trust apply self.st --root "$R"
# Its .pub put back by hand (a restored backup): the revocation still wins.
cp "$FX/test.pub" "$R/etc/cuferry/trusted-keys/restored.pub"
chmod 644 "$R/etc/cuferry/trusted-keys/restored.pub"
st --threshold 1 --counter 31 --key "$K1" -o revoked-signer.st
run_statement_case statement_revoked_signer "a statement signed by a revoked key whose .pub was put back" "$T2" 2 revoked-signer.st
assert_contains last.err "revoked"
$FORGE --key "$K1" --out "$W/k1.bundle" --bundle-id t-k1
run_case bundle_revoked_signer "a bundle signed by a revoked key (its .pub put back, --trust given)" "trust: exit 2, signed by a revoked key" 2 "$W/k1.bundle"
assert_contains last.err "signed by a revoked key"

echo "== a revocation list that cannot be believed: install refuses, never ignores it"
chmod 666 "$R/etc/cuferry/trusted-keys/revoked"
"$BUNDLER" keygen fresh >/dev/null
$FORGE --key fresh.key --out "$W/fresh.bundle" --bundle-id t-fresh
cp fresh.pub "$R/etc/cuferry/trusted-keys/" && chmod 644 "$R/etc/cuferry/trusted-keys/fresh.pub"
run_case revoked_file_writable "the trust directory's revoked file writable by others" "trust: exit 2 with the reason, not ignored" 2 "$W/fresh.bundle"
assert_contains last.err "revoked must be owned by root and not writable"
chmod 644 "$R/etc/cuferry/trusted-keys/revoked"

# A key named on the command line is held to the trust directory's rule too (issue 23 A9): as
# root, one another user owns or may write is refused, by --trust and by trust add.
if [ "$(id -u)" = 0 ]; then
	"$BUNDLER" keygen users >/dev/null
	$FORGE --key users.key --out "$W/users.bundle" --bundle-id t-users
	R=$W/root-a9
	mkdir -p "$R"
	chown nobody users.pub
	run_case trust_file_user_owned "--trust KEY.pub owned by another user" "trust: exit 2, the file named, nothing written" 2 "$W/users.bundle" --trust "$W/users.pub"
	assert_contains last.err "users.pub is owned by uid"
	chown root users.pub && chmod 666 users.pub
	run_case trust_file_writable "--trust KEY.pub writable by others" "trust: exit 2, the file named, nothing written" 2 "$W/users.bundle" --trust "$W/users.pub"
	assert_contains last.err "users.pub is writable by group or others"
	expect 2 "$UNPACKER" trust add "$W/users.pub" --root "$R"
	one_line_reason
	[ ! -d "$R/etc/cuferry/trusted-keys" ] || [ -z "$(ls "$R/etc/cuferry/trusted-keys")" ] || fail "trust add wrote a key others may write"
	record trust_add_writable "trust add KEY.pub writable by others" "trust: exit 2, nothing written" "threats/trust_add_writable" "pass (exit 2)"

	# The key's directory passes the prefix's rule (DESIGN §6): a user who may rename entries
	# there chooses which file the name is, whatever the file's own owner and mode.
	"$BUNDLER" keygen dirkey >/dev/null
	$FORGE --key dirkey.key --out "$W/dirkey.bundle" --bundle-id t-dirkey
	mkdir -p open theirs && chmod 777 open && chown nobody theirs
	cp dirkey.pub open/k.pub && cp dirkey.pub theirs/k.pub
	R=$W/root-keydir
	mkdir -p "$R"
	run_case trust_dir_world_writable "--trust KEY.pub (root's, 0644) in a directory anyone may write (a relative path)" \
		"trust: exit 2, the directory named, nothing written" 2 "$W/dirkey.bundle" --trust open/k.pub --no-validate
	assert_contains last.err "open is writable by group or others"
	run_case trust_dir_other_owner "--trust KEY.pub (root's, 0644) in a directory another user owns" \
		"trust: exit 2, the directory named, nothing written" 2 "$W/dirkey.bundle" --trust "$W/theirs/k.pub" --no-validate
	assert_contains last.err "theirs is owned by uid"
	expect 2 "$UNPACKER" trust add open/k.pub --root "$R"
	one_line_reason
	[ ! -d "$R/etc/cuferry/trusted-keys" ] || [ -z "$(ls "$R/etc/cuferry/trusted-keys")" ] || fail "trust add took a key from a directory anyone may write"
	record trust_add_dir_writable "trust add KEY.pub in a directory anyone may write" "trust: exit 2, nothing written" "threats/trust_add_dir_writable" "pass (exit 2)"

	# sshd's exception, /tmp's mode: in a sticky root-owned directory nobody else may rename or
	# remove root's key, so it is read (Debian 11's chroot keeps the test key in /tmp); a link
	# there that another user owns is theirs to point at any root-owned file, and is refused.
	mkdir -p sticky && chmod 1777 sticky
	cp dirkey.pub sticky/k.pub && chmod 644 sticky/k.pub
	ln -sf "$W/dirkey.pub" sticky/theirs.pub && chown -h nobody sticky/theirs.pub
	R=$W/root-sticky
	mkdir -p "$R"
	expect 0 "$UNPACKER" "$W/dirkey.bundle" --root "$R" --trust sticky/k.pub --no-validate
	[ -d "$R/opt/cudnn/current" ] || fail "root's key in a sticky directory: nothing installed"
	record trust_dir_sticky_root_key "--trust KEY.pub (root's, 0644) in a sticky directory anyone may write (/tmp)" \
		"installs: nobody else may rename or remove root's file there" "threats/trust_dir_sticky_root_key" "pass (exit 0)"
	R=$W/root-sticky-link
	mkdir -p "$R"
	run_case trust_link_sticky_other_owner "--trust LINK.pub in a sticky directory, the link another user's (pointing at root's key)" \
		"trust: exit 2, the link named, nothing written" 2 "$W/dirkey.bundle" --trust "$W/sticky/theirs.pub" --no-validate
	assert_contains last.err "theirs.pub is a symbolic link owned by uid"
	# A second hard link to root's key (made by anyone where fs.protected_hardlinks is 0) could
	# have made the name any root-owned file: refused, whatever the directory.
	ln sticky/k.pub sticky/k-again.pub
	R=$W/root-sticky-hardlink
	mkdir -p "$R"
	run_case trust_key_hard_linked "--trust KEY.pub (root's, 0644) with a second hard link, in a sticky directory" \
		"trust: exit 2, the file named, nothing written" 2 "$W/dirkey.bundle" --trust "$W/sticky/k.pub" --no-validate
	assert_contains last.err "k.pub has 2 hard links"
	# The name checked is the file opened (the outside review of 2026-12-04): a user's link in
	# the sticky directory to a root-owned file when root opens it, the user's own file renamed
	# over it for the path's checks. Refused: the name is no longer the file opened.
	cp "$FX/test.pub" gadget.pub && chmod 644 gadget.pub
	R=$W/root-sticky-race
	rm -f sticky/race.pub && mkdir -p "$R"
	su -s /bin/sh nobody -c "ln -s '$W/gadget.pub' '$W/sticky/race.pub'"
	CUFERRY_FAULT=trust-key-open:pause "$UNPACKER_SEAMS" "$FX/small.bundle" --root "$R" \
		--trust "$W/sticky/race.pub" --no-validate >"$W/last.out" 2>"$W/last.err" &
	pid=$!
	wait_paused $pid "the trust-key-open pause"
	su -s /bin/sh nobody -c "echo theirs > '$W/sticky/own.tmp' && mv -f '$W/sticky/own.tmp' '$W/sticky/race.pub'"
	kill -CONT $pid
	rc=0 && wait $pid || rc=$?
	[ $rc -eq 2 ] || { cat "$W/last.err" >&2; fail "trust_key_name_swapped: exit $rc, expected 2"; }
	one_line_reason
	assert_contains last.err "race.pub was replaced while it was read"
	[ ! -d "$R/opt/cudnn" ] || fail "trust_key_name_swapped: something was installed"
	record trust_key_name_swapped "--trust /tmp/KEY.pub: a user's link to a root-owned file when root opens it, their own file renamed over it before the path is checked" \
		"trust: exit 2, the name is not the file opened; nothing written" "threats/trust_key_name_swapped" "pass (exit 2)"
	echo "ok   threat trust_key_name_swapped"
	# A key is a file that holds one key: a PEM block inside other text (a root-owned report that
	# quotes users' directory names) is not taken.
	{ printf 'report of /home/x/'; tr -d '\n' < "$FX/test.pub"; printf 'conda\n'; } > quoted.txt
	chmod 644 quoted.txt
	R=$W/root-quoted
	mkdir -p "$R"
	expect 2 "$UNPACKER" "$FX/small.bundle" --root "$R" --trust "$W/quoted.txt" --no-validate
	one_line_reason
	assert_contains last.err "not a public key"
	record trust_key_pem_in_text "--trust FILE: a root-owned file whose text quotes a PEM key (one line, inside other text)" \
		"trust: exit 2, not a public key: only a file that is one PEM block (or DER) is a key" "threats/trust_key_pem_in_text" "pass (exit 2)"

	# One open decides (F1): the key file is checked and read through the same open file, so
	# another key renamed over its name after the check is never read, and --remember stores
	# the key that verified, not what the name holds at the end of the install.
	mkdir -p keys && cp "$FX/test.pub" keys/k.pub && cp "$FX/other.pub" keys/other.pub
	SHORT1=$(echo "$F1" | cut -c1-16) SHORT2=$(echo "$F2" | cut -c1-16)
	swap_case() { # ID POINT "threat": pause at POINT, rename other.pub over k.pub, go on
		R=$W/root-$1
		rm -rf "$R" && mkdir -p "$R"
		cp "$FX/test.pub" keys/k.pub
		CUFERRY_FAULT=$2:pause "$UNPACKER_SEAMS" "$FX/small.bundle" --root "$R" --trust "$W/keys/k.pub" \
			--remember --no-validate >"$W/last.out" 2>"$W/last.err" &
		pid=$!
		wait_paused $pid "the $2 pause"
		cp keys/other.pub keys/swap.pub && mv keys/swap.pub keys/k.pub
		kill -CONT $pid
		rc=0 && wait $pid || rc=$?
		[ $rc -eq 0 ] || { cat "$W/last.err" >&2; fail "$1: exit $rc: the key renamed over the name was read"; }
		[ -f "$R/etc/cuferry/trusted-keys/$SHORT1.pub" ] || fail "$1: the key that verified was not remembered"
		[ ! -e "$R/etc/cuferry/trusted-keys/$SHORT2.pub" ] || fail "$1: --remember stored the key renamed over the name"
		[ "$(ls "$R/etc/cuferry/trusted-keys")" = "$SHORT1.pub" ] || fail "$1: the trust directory holds more than the key that verified"
		record "$1" "$3" "the key checked is the key read and verified; --remember stores it, never the name's new file" "threats/$1" "pass (exit 0)"
		echo "ok   threat $1"
	}
	swap_case trust_key_swapped_after_check trust-key-opened "--trust KEY.pub: another key renamed over its name after the file was checked, before it was read"
	swap_case trust_key_swapped_before_remember verified "install --trust KEY.pub --remember: another key renamed over its name after the bundle verified"
fi
echo "== a --root image's own record of its signers is not trust (issue 23 A3)"
# An image anyone could build: an install whose header a stranger signed, and whose
# .cuferry/signers names the stranger's key, in a root-owned image. Step 1 fails, the reason
# names the key that signed it and says that the image's record is not trust.
$FORGE --key stranger.key --out "$W/stranger.bundle" --bundle-id t-stranger
R=$W/root-a3
mkdir -p "$R"
"$UNPACKER" "$W/stranger.bundle" --root "$R" --trust stranger.pub --no-validate >/dev/null || fail "the stranger's image"
[ -s "$R/opt/cudnn/current/.cuferry/signers" ] || fail "the stranger's install recorded no signer"
SNAPSHOT_IGNORE=$VALIDATE_WRITES
STRANGER_ID=$(openssl pkey -pubin -in stranger.pub -outform DER | sha256sum | cut -c1-16)
run_case image_signers_record "a root-owned --root image signed by a stranger, its .cuferry/signers naming the stranger's key" \
	"trust: exit 2 at step 1, the signer named, the image's record not taken as trust" 2 validate
assert_contains last.err "signed by $STRANGER_ID"
assert_contains last.err "image's own record of its signers (.cuferry/signers) is not trust"
assert_contains last.out "1    signature     fail"

echo "ok"
