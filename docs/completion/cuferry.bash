# bash completion for bundler and unpacker (installed as both names by make install)

_cuferry_bundler()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands="keygen create resolve inspect sign split sfx kit cuda-json trust-statement help"
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$commands --version --help" -- "$cur"))
		return
	fi
	case $prev in
	--key|--from-archive|--unpacker|--pub|--signature|-o|--output|--bundle|--add|--statement)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--from-dir|--cache|--export)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--split)
		COMPREPLY=($(compgen -W "fat32 700M 2G" -- "$cur")); return ;;
	--platform)
		COMPREPLY=($(compgen -W "linux-x86_64 linux-sbsa linux-aarch64 windows-x86_64" -- "$cur")); return ;;
	help)
		COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
	esac
	local opts
	case ${COMP_WORDS[1]} in
	create) opts="--cudnn --cuda --platform --key -o --mirror --from-archive --from-dir
		--with-cuda-libs --add-file --counter --expires --allow-future --level --threads --split --sfx --unpacker
		--cache --offline -q --verbose --help" ;;
	resolve) opts="--cudnn --cuda --platform --mirror --with-cuda-libs --offline --help" ;;
	cuda-json) opts="--from-dir -o --platform --release --help" ;;
	inspect) opts="--export --help" ;;
	sign) opts="--key --external --pub --signature --help" ;;
	split) opts="--split --help" ;;
	sfx) opts="--platform --unpacker -o --key --external --pub --signature --force --help" ;;
	kit) opts="-o --cudnn --cuda --platform --key --mirror --bundle --unpacker --no-unpacker
		--split --cache --offline --valid-days --statement -q --help" ;;
	trust-statement) opts="--revoke --add --threshold --statement-threshold --counter --key
		--external --pub --signature -o --help" ;;
	*) opts="--help" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

_cuferry_unpacker()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands="install verify validate list use uninstall env doctor self-install trust help"
	local trust_commands="list add remove threshold statement-threshold apply reset-clock"
	if [ "$COMP_CWORD" -eq 1 ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur") $(compgen -f -- "$cur"))
		return
	fi
	case $prev in
	--trust|--log|--json) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--prefix|--root|--modulefiles) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--shell) COMPREPLY=($(compgen -W "sh ps cmd" -- "$cur")); return ;;
	--platform) COMPREPLY=($(compgen -W "linux-x86_64 linux-sbsa linux-aarch64 windows-x86_64" -- "$cur")); return ;;
	help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
	trust) [ "$COMP_CWORD" -eq 2 ] && { COMPREPLY=($(compgen -W "$trust_commands" -- "$cur")); return; } ;;
	esac
	local opts="--prefix --trust --trust-fingerprint --silent --log --json --no-env --env=user
		--allow-downgrade --keep-current --allow-expired --repair --dry-run --cuda --root --no-validate --require-gpu
		--keep-failed --gpu --quick-validate --force --shell --verbose --help --version
		--modulefiles --platform --remember --fingerprint"
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

complete -F _cuferry_bundler bundler
complete -F _cuferry_unpacker unpacker
