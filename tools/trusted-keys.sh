#!/bin/sh
# trusted-keys.sh - the keys a build compiles into its unpackers, kept as part of the build's
# configuration (like build/flags): the key bytes in BUILD/trusted-keys/, so that a later
# `make` without TRUSTED_KEYS (or `make demo`, `make windows`) builds the same trust, and
# `bundler kit` never carries a key-less unpacker by accident. `make clean` removes them.
#
#   trusted-keys.sh save DIR KEYS_GIVEN "a.pub,b.pub" THRESHOLD_GIVEN N [STATEMENT_GIVEN S]
#       KEYS_GIVEN 1: TRUSTED_KEYS was set (empty removes the keys); 0: keep what DIR holds.
#       The same for the threshold, and for the statement threshold (TRUSTED_STATEMENT_
#       THRESHOLD; empty goes back to the default rule). Says what changed.
#   trusted-keys.sh files DIR      the kept keys as a comma-separated list (embed-keys.sh)
#   trusted-keys.sh threshold DIR  the kept threshold (1 when none)
#   trusted-keys.sh statement-threshold DIR  the kept statement threshold (empty when none:
#                                  the unpacker's default rule)
#   trusted-keys.sh show DIR       which keys the unpackers trust: fingerprints (SHA-256 of
#                                  the SubjectPublicKeyInfo DER, as 'unpacker' prints them)
set -eu
cmd=$1 dir=$2

files() {
	list=
	for f in "$dir"/key-*.pub; do
		[ -f "$f" ] || continue
		list=${list:+$list,}$f
	done
	echo "$list"
}

fingerprint() { # PEM file: the SHA-256 of the DER inside its PUBLIC KEY block
	sed -n '/-----BEGIN PUBLIC KEY-----/,/-----END PUBLIC KEY-----/{/-----/!p}' "$1" |
		base64 -d | sha256sum | cut -c1-64
}

case $cmd in
save)
	keys_given=$3 keys=$4 threshold_given=$5 threshold=$6
	statement_given=${7:-0} statement=${8:-}
	mkdir -p "$dir"
	if [ "$keys_given" = 1 ]; then
		before=$(files | tr , '\n' | grep -c . || true)
		new=$dir/new.tmp
		rm -rf "$new" && mkdir "$new"
		n=0 old_ifs=$IFS
		IFS=,
		for key in $keys; do
			[ -n "$key" ] || continue
			[ -r "$key" ] || { echo "trusted-keys.sh: cannot read $key (TRUSTED_KEYS)" >&2; rm -rf "$new"; exit 1; }
			grep -q -e '-----BEGIN PUBLIC KEY-----' "$key" ||
				{ echo "trusted-keys.sh: $key is not a PEM public key (TRUSTED_KEYS)" >&2; rm -rf "$new"; exit 1; }
			n=$((n + 1))
			cp "$key" "$new/key-$(printf %02d $n).pub"
		done
		IFS=$old_ifs
		changed=0
		for f in "$dir"/key-*.pub "$new"/key-*.pub; do
			[ -f "$f" ] || continue
			cmp -s "$dir/${f##*/}" "$new/${f##*/}" 2>/dev/null || changed=1
		done
		if [ $changed = 1 ]; then
			rm -f "$dir"/key-*.pub
			for f in "$new"/key-*.pub; do [ -f "$f" ] && mv "$f" "$dir/"; done
			if [ $n = 0 ]; then
				echo "TRUSTED_KEYS= (empty): removed the $before compiled-in key(s); the unpackers of this build trust no compiled-in key now"
			else
				echo "TRUSTED_KEYS: the unpackers of this build compile in $n key(s), kept for later builds"
			fi
		fi
		rm -rf "$new"
	fi
	if [ "$threshold_given" = 1 ]; then
		case $threshold in
		[1-8]) ;;
		*) echo "trusted-keys.sh: TRUSTED_THRESHOLD must be a number from 1 to 8, not '$threshold'" >&2; exit 1 ;;
		esac
		[ "$(cat "$dir/threshold" 2>/dev/null || echo 1)" = "$threshold" ] ||
			echo "TRUSTED_THRESHOLD: $threshold, kept for later builds"
		echo "$threshold" > "$dir/threshold"
	fi
	if [ "$statement_given" = 1 ]; then
		case $statement in
		[1-8]) ;;
		'') [ ! -f "$dir/statement-threshold" ] ||
			echo "TRUSTED_STATEMENT_THRESHOLD= (empty): the compiled-in statement threshold removed; the default rule applies"
		    rm -f "$dir/statement-threshold" ;;
		*) echo "trusted-keys.sh: TRUSTED_STATEMENT_THRESHOLD must be a number from 1 to 8 (or empty for the default), not '$statement'" >&2; exit 1 ;;
		esac
		if [ -n "$statement" ]; then
			[ "$(cat "$dir/statement-threshold" 2>/dev/null)" = "$statement" ] ||
				echo "TRUSTED_STATEMENT_THRESHOLD: $statement, kept for later builds"
			echo "$statement" > "$dir/statement-threshold"
		fi
	fi
	;;
files) files ;;
threshold) cat "$dir/threshold" 2>/dev/null || echo 1 ;;
statement-threshold) cat "$dir/statement-threshold" 2>/dev/null || true ;;
show)
	list=$(files)
	statement=$(cat "$dir/statement-threshold" 2>/dev/null || true)
	if [ -z "$list" ]; then
		echo "trusted keys: none compiled in (make TRUSTED_KEYS=site.pub to compile one in; a target then needs /etc/cuferry/trusted-keys or --trust)"
		[ -z "$statement" ] || echo "statement threshold $statement compiled in (kept until make TRUSTED_STATEMENT_THRESHOLD=... or make clean)"
		exit 0
	fi
	echo "trusted keys compiled into the unpackers (threshold $(cat "$dir/threshold" 2>/dev/null || echo 1), statement threshold ${statement:-default}; kept until make TRUSTED_KEYS=... or make clean):"
	for f in "$dir"/key-*.pub; do
		echo "  $(fingerprint "$f")"
	done
	;;
*) echo "usage: trusted-keys.sh save|files|threshold|statement-threshold|show DIR ..." >&2; exit 1 ;;
esac
