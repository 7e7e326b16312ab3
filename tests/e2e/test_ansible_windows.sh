#!/bin/sh
# The Windows role's private copy directory (issue 23 A6, A13), checked statically: there is no
# Windows Ansible host and no PowerShell here, so its PowerShell is read, not run (what a real
# host would show is listed in docs/testing.md). ansible-lint passes on the tasks; the script
# checks every directory above the copy directory (no junction, an admin owner, no one else may
# delete, rename or re-permission: Assert-Guarded on each, the missing ones made with a
# protected DACL first), holds the copy directory's owner to SYSTEM/Administrators, and never
# removes a tree recursively: no Remove-Item, and every Directory.Delete is non-recursive.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$CUFERRY_TOP/tests/e2e/ansible_lib.sh"
T=$A/collections/ansible_collections/cuferry/cudnn/roles/cudnn/tasks/windows.yml

note "ansible-lint on the Windows tasks"
if command -v ansible-lint >/dev/null; then
	(cd "$A" && ansible-lint --offline -q "$T" 2>&1) > lint.out || { cat lint.out; fail "ansible-lint"; }
else
	echo "SKIP ansible-lint: not installed (make deps installs it)"
fi

note "the copy directory's PowerShell, read from the task"
python3 - "$T" > dir.ps1 <<'PY'
import sys, yaml
for task in yaml.safe_load(open(sys.argv[1])):
    if task.get('name', '').startswith('Windows - the private copy directory'):
        print(task['ansible.windows.win_powershell']['script'])
PY
[ -s dir.ps1 ] || fail "no task 'Windows - the private copy directory' in $T"

note "every directory above the copy directory is checked, missing ones made private (A6)"
grep -q 'function Assert-Guarded' dir.ps1 || fail "no check of the directories above the copy directory"
awk '/^foreach \(\$d in \$above\)/,/^}/' dir.ps1 > chain.ps1
grep -q 'Assert-Guarded \$d' chain.ps1 || fail "Assert-Guarded is not applied to each directory above"
grep -q 'CreateDirectory(\$d, (New-Dacl \$true))' chain.ps1 || fail "a missing parent is not made with a protected DACL"
awk '/^function Assert-Guarded/,/^}/' dir.ps1 > guard.ps1
for want in ReparsePoint 'Get-OwnerSid' 'InheritOnly' '\$unsafe'; do
	grep -q "$want" guard.ps1 || fail "Assert-Guarded does not look at $want"
done
awk '/^function Test-Private/,/^}/' dir.ps1 | grep -q 'Get-OwnerSid' || fail "the copy directory's owner is not checked"

note "nothing is removed recursively, nothing through a junction (A13)"
! grep -n 'Remove-Item' dir.ps1 || fail "Remove-Item in the copy directory's script"
! grep -n 'Delete([^)]*\$true)' dir.ps1 || fail "a recursive Directory.Delete"
grep -q 'Directory\]::Move(\$full, \$aside)' dir.ps1 || fail "a copy directory that is not private is not renamed aside"
echo "ok"
