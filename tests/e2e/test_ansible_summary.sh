#!/bin/sh
# The fleet summary goes where the hosts were told, and only there (issue 25, the trial's
# finding 16): with cudnn_summary_dir under [cudnn_hosts:vars] (where the inventory sets every
# other variable), the last play runs on localhost, which does not see that group's value; it
# used to write a second summary into the playbooks' default directory, which later --limit
# runs left stale, looking current. Hosts given different directories refuse before installing.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$CUFERRY_TOP/tests/e2e/ansible_lib.sh"
# A copy of the collection, so that its default directory (playbook_dir/fleet-summary) is
# under this test's directory, never in the checkout.
cp -a "$TOP/ansible" "$W/ansible"
rm -rf "$W/ansible/playbooks/fleet-summary"
A=$W/ansible
export ANSIBLE_CONFIG=$A/ansible.cfg
DEFAULT=$A/playbooks/fleet-summary
run() { # LOG [ansible-playbook options]: no -e cudnn_summary_dir, the inventory's value only
	l=$1; shift
	(cd "$A" && ansible-playbook -i "$W/inventory.ini" playbooks/install.yml "$@") > "$l" 2>&1
}
{
	echo "[cudnn_hosts]"; sandbox local_a; sandbox local_b
	group_vars; echo "cudnn_summary_dir=$W/hostsum"
} > inventory.ini

note "cudnn_summary_dir under [cudnn_hosts:vars]: one summary, there, and the last play shows that one"
run run1.log || { cat run1.log; fail "the install failed"; }
for h in local_a local_b; do grep -q "^$h " "$W/hostsum/fleet-summary.txt" || { cat "$W/hostsum/fleet-summary.txt"; fail "$h not in the summary"; }; done
[ ! -e "$DEFAULT" ] || fail "a second summary in the default directory: $(ls "$DEFAULT")"
assert_contains run1.log "($W/hostsum/fleet-summary.txt, .md and .json)"
written=$(sed -n 's/.*written \([^;]*\);.*/\1/p' "$W/hostsum/fleet-summary.txt")
grep -F "written $written;" run1.log >/dev/null || fail "the last play showed another summary than the one written ($written)"

note "a --limit run (the last play is skipped) updates the same summary"
run run2.log --limit local_a || { cat run2.log; fail "the --limit run failed"; }
assert_contains "$W/hostsum/fleet-summary.txt" "limit local_a"
[ ! -e "$DEFAULT" ] || fail "a --limit run wrote into the default directory"

note "hosts given different directories: refused before anything is installed, naming both"
{
	echo "[cudnn_hosts]"; sandbox local_c; sandbox local_d "cudnn_summary_dir=$W/other"
	group_vars; echo "cudnn_summary_dir=$W/hostsum"
} > inventory.ini
run run3.log && fail "hosts with two summary directories were installed"
assert_contains run3.log "cudnn_summary_dir differs between the hosts of the summary"
assert_contains run3.log "$W/other"
for h in local_c local_d; do [ ! -e "$W/$h/opt/cudnn" ] || fail "$h was installed although the summary directories differ"; done
[ ! -e "$W/other" ] && [ ! -e "$DEFAULT" ] || fail "a summary was written in a directory the run refused"
