# ansible_lib.sh - what the Ansible tests share (sourced after lib.sh): the collection's
# configuration, localhost sandboxes (each a host's /, used through --root), and running a
# playbook with its recap kept.
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook not installed (make deps installs ansible)"; exit 0; }
A=$TOP/ansible
export ANSIBLE_CONFIG=$A/ansible.cfg ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_LOCAL_TEMP=$W/ansible-tmp \
	ANSIBLE_HOME=$W/ansible-home ANSIBLE_SSH_CONTROL_PATH_DIR=$W/cp ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3

# sandbox HOST [VARS]: an inventory line for a localhost sandbox under $W/HOST, traversable by
# the unprivileged user validation runs as.
sandbox() {
	mkdir -p "$W/$1" && chmod 0755 "$W/$1"
	echo "$1 ansible_connection=local cudnn_root=$W/$1 ${2-}"
}

# group_vars: the fixtures' unpacker, bundle and key for every host of cudnn_hosts.
group_vars() {
	cat <<INV
[cudnn_hosts:vars]
cudnn_unpacker=$UNPACKER
cudnn_bundle=$FX/small.bundle
cudnn_trust_keys=["$FX/test.pub"]
INV
}

# playbook LOG PLAYBOOK [ansible-playbook options]: run it on $W/inventory.ini with the
# summary in $W/summary; its recap lines in LOG.recap; returns its exit code.
playbook() {
	log=$1 book=$2; shift 2
	set +e
	(cd "$A" && ansible-playbook -i "$W/inventory.ini" "playbooks/$book" -e cudnn_summary_dir="$W/summary" "$@") > "$log" 2>&1
	rc=$?
	set -e
	sed -n '/PLAY RECAP/,$p' "$log" > "$log.recap"
	return $rc
}

recap() { # LOG HOST FIELD
	sed -n "s/^$2 *:.* $3=\([0-9]*\).*/\1/p" "$1.recap"
}

# No check-mode copies left in the temporary directory.
no_check_copies() {
	left=$(ls -d "${TMPDIR:-/tmp}"/*.cuferry-check 2>/dev/null | head -1)
	[ -z "$left" ] || fail "check mode left its temporary copies: $left"
}
