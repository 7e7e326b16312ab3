# bash completion for bundler and unpacker (installed as both names by make install). The
# words come from the program typed, from its own command table: PROGRAM --complete-words
# lists the commands, PROGRAM --complete-words COMMAND [SUB] what COMMAND takes (its
# subcommands, then each option and the kind of value it takes: file, dir, word W..., text).

_cuferry_complete()
{
	local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local lines name kind words
	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		lines=$("$prog" --complete-words 2>/dev/null)
	else
		local args=("${COMP_WORDS[1]}")
		[ "$COMP_CWORD" -gt 2 ] && args+=("${COMP_WORDS[2]}")
		# a subcommand that is none yet, or a first word that is no command (unpacker
		# BUNDLE ...): what the command, or no command, takes
		lines=$("$prog" --complete-words "${args[@]}" 2>/dev/null) ||
			lines=$("$prog" --complete-words "${COMP_WORDS[1]}" 2>/dev/null) ||
			lines=$("$prog" --complete-words 2>/dev/null)
	fi
	while read -r name kind words; do
		[ "$name" = "$prev" ] || continue
		case $kind in
		file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
		word) COMPREPLY=($(compgen -W "$words" -- "$cur")); return ;;
		text) return ;;
		esac
	done <<< "$lines"
	if [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = help ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$("$prog" --complete-words 2>/dev/null | grep -v '^-')" -- "$cur"))
		return
	fi
	local opts subs
	opts=$(cut -d' ' -f1 <<< "$lines" | grep '^-')
	subs=$(cut -d' ' -f1 <<< "$lines" | grep -v '^-')
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [ -n "$subs" ] && [ "$COMP_CWORD" -le 2 ]; then
		COMPREPLY=($(compgen -W "$subs" -- "$cur"))
		# unpacker BUNDLE: the first word may be a file
		[ "$COMP_CWORD" -eq 1 ] && [ "$1" = unpacker ] && COMPREPLY+=($(compgen -f -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

_cuferry_bundler() { _cuferry_complete bundler; }
_cuferry_unpacker() { _cuferry_complete unpacker; }

complete -F _cuferry_bundler bundler
complete -F _cuferry_unpacker unpacker
