#!/bin/sh
# Each program's one command table (bundler/cmdtable.c, unpacker/cmdtable.c), read back from
# the program itself (--complete-words), so that this test cannot drift from it: every command
# (and each trust subcommand) refuses an option it does not take with exit 1 and one line
# naming the option, the command and its help, and refuses one argument too many (and one too
# few where it needs one) the same way; the help lists every command with the arguments its
# row gives it and has a text for each; the bash completion offers exactly the options the
# table gives each command.
. "$CUFERRY_TOP/tests/e2e/lib.sh"

# words PROGRAM [COMMAND [SUB]]: the table's lines (commands and subcommands, or "OPTION [KIND]")
words() { "$@" > words.out || fail "$* failed"; cat words.out; }
commands_of() { words "$@" --complete-words | grep -v '^-' || true; }
options_of() { words "$@" | grep '^-' | cut -d' ' -f1; }
completion_of() { # PROGRAM FUNCTION WORD...: what bash offers for the last word
	bash -c '. "$1"; shift; f=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $f; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$TOP/docs/completion/cuferry.bash" "$@"
}

# check PROGRAM FUNCTION COMMAND [SUB]: the refusal, the help and the completion of one row
check() {
	prog=$1 fn=$2 name=$(basename "$1"); shift 2
	cmdwords="$*" top=$1
	words "$prog" --complete-words "$@" | grep '^-' > takes
	cut -d' ' -f1 takes | sort > takes.names
	# the first option of the program this command does not take, a value after it if it takes one
	refused=$(comm -23 all.options takes.names | head -n 1)
	[ -n "$refused" ] || fail "$name $cmdwords: takes every option"
	value=
	[ -n "$(grep -m1 "^$refused " all.lines | cut -s -d' ' -f2)" ] && value=x
	# shellcheck disable=SC2086 # the command and its subcommand, the value when there is one
	expect 1 "$prog" $cmdwords "$refused" $value
	want="$name: $cmdwords does not take $refused (see $name help $top)"
	[ "$(cat last.err)" = "$want" ] || fail "$name $cmdwords: '$(cat last.err)', expected '$want'"
	[ ! -s last.out ] || fail "$name $cmdwords: wrote to stdout: $(cat last.out)"
	expect 0 "$prog" help "$top"
	[ -s last.out ] || fail "$name help $top: no text"
	# the completion offers what the table gives, nothing else
	# shellcheck disable=SC2086
	completion_of "$fn" "$prog" $cmdwords - | sort > offered
	cmp -s offered takes.names || { diff offered takes.names >&2; fail "$name $cmdwords: the completion differs from the table"; }
}

for p in unpacker bundler; do
	prog=$B/$p
	note "$p: every command refuses an option it does not take, has help and completion"
	: > all.lines
	commands_of "$prog" > commands
	[ -s commands ] || fail "$p --complete-words lists no command"
	"$prog" --complete-words | grep '^-' >> all.lines
	while read -r c; do
		"$prog" --complete-words "$c" | grep '^-' >> all.lines
		for s in $("$prog" --complete-words "$c" | grep -v '^-'); do
			"$prog" --complete-words "$c" "$s" | grep '^-' >> all.lines
		done
	done < commands
	cut -d' ' -f1 all.lines | sort -u > all.options
	expect 0 "$prog" help
	while read -r c; do
		grep -q "^  $c " last.out || fail "$p help does not list $c"
	done < commands
	cp last.out usage.out
	while read -r c; do
		subs=$("$prog" --complete-words "$c" | grep -v '^-' || true)
		if [ -z "$subs" ]; then
			check "$prog" "_cuferry_$p" "$c"
		else
			for s in $subs; do check "$prog" "_cuferry_$p" "$c" "$s"; done
		fi
	done < commands
	expect 1 "$prog" --complete-words nosuch

	note "$p: every command refuses one argument too many, and one too few where it needs one"
	# The list of commands in the help is made from the table: "NAME", "NAME X" (one X
	# required) or "NAME [X]" (at most one), then the summary.
	sed -n '/^commands:$/,$p' usage.out | tail -n +2 > rows
	[ "$(wc -l < rows)" -eq "$(wc -l < commands)" ] || fail "$p help: $(cat rows) for $(cat commands)"
	while read -r c args rest; do
		case $args in \[[A-Z]*\]|[A-Z]|[A-Z]*[A-Z]) ;; *) args= ;; esac
		subs=$("$prog" --complete-words "$c" | grep -v '^-' || true)
		if [ -n "$subs" ]; then
			# trust SUB: two arguments are one or two too many for each
			for s in $subs; do
				expect 1 "$prog" "$c" "$s" x1 x2
				grep -Eq "^$p: $c $s takes (no arguments|one [^ ]+|at most one [^ ]+) \(see $p help $c\)$" last.err ||
					fail "$p $c $s x1 x2: '$(cat last.err)'"
				[ ! -s last.out ] || fail "$p $c $s x1 x2: wrote to stdout"
			done
			continue
		fi
		case $args in
		'') expect 1 "$prog" "$c" x1; want="$c takes no arguments" ;;
		\[*) expect 1 "$prog" "$c" x1 x2; want="$c takes at most one $(echo "$args" | tr -d '[]')" ;;
		*) expect 1 "$prog" "$c" x1 x2; want="$c takes one $args" ;;
		esac
		[ "$(cat last.err)" = "$p: $want (see $p help $c)" ] ||
			fail "$p $c: '$(cat last.err)', expected '$p: $want (see $p help $c)'"
		[ ! -s last.out ] || fail "$p $c: wrote to stdout: $(cat last.out)"
		case $args in ''|\[*) continue ;; esac
		expect 1 "$prog" "$c"
		[ "$(cat last.err)" = "$p: $c needs $args (see $p help $c)" ] ||
			fail "$p $c: '$(cat last.err)', expected '$p: $c needs $args (see $p help $c)'"
	done < rows
done

note "the one line, by example"
expect 1 "$UNPACKER" list --repair
[ "$(cat last.err)" = "unpacker: list does not take --repair (see unpacker help list)" ] || fail "$(cat last.err)"
expect 1 "$UNPACKER" trust remove ab --fingerprint ab
assert_contains last.err "^unpacker: trust remove does not take --fingerprint (see unpacker help trust)$"
expect 1 "$BUNDLER" inspect x.bundle --key k.key
[ "$(cat last.err)" = "bundler: inspect does not take --key (see bundler help inspect)" ] || fail "$(cat last.err)"
expect 1 "$UNPACKER" list foo
[ "$(cat last.err)" = "unpacker: list takes no arguments (see unpacker help list)" ] || fail "$(cat last.err)"
# unpacker BUNDLE: the default command counts its arguments too, Windows switches between them
expect 1 "$UNPACKER" a.bundle /S b.bundle
[ "$(cat last.err)" = "unpacker: install takes at most one BUNDLE|DIR (see unpacker help install)" ] || fail "$(cat last.err)"
expect 1 "$UNPACKER" --root "$W/img" uninstall
[ "$(cat last.err)" = "unpacker: uninstall needs ID (see unpacker help uninstall)" ] || fail "$(cat last.err)"
expect 1 "$BUNDLER" keygen a b
[ "$(cat last.err)" = "bundler: keygen takes one NAME (see bundler help keygen)" ] || fail "$(cat last.err)"
# --help still shows the help, whatever else the line has
expect 0 "$UNPACKER" list --repair --help
assert_contains last.out "usage: unpacker list"
expect 0 "$UNPACKER" use a b --help
assert_contains last.out "usage: unpacker use"
echo ok
