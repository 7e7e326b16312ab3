#!/bin/sh
# The role copies, verifies the copy and runs the copy (issue 23 item 4): the unpacker and the
# bundle lie on a medium that an unprivileged user can write (cudnn_host_files); that user
# swaps the unpacker for another program right after the role has read it. The swapped
# program never runs as root, the install is left as it was, the reason is given, and no
# unverified file is left in the role's private directory.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$CUFERRY_TOP/tests/e2e/ansible_lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the attacker is another user)"; exit 0; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
{ echo "[cudnn_hosts]"; sandbox local_s; group_vars; } > inventory.ini

note "a first install from the controller"
playbook run1.log install.yml || { cat run1.log; fail "the first install failed"; }
P=$W/local_s/opt/cudnn
[ "$(readlink "$P/current")" = cudnn-9.19.0-cuda13 ] || fail "not installed"

note "the medium: the unpacker and the bundle, owned by the user nobody, who swaps the unpacker"
mkdir -p "$W/medium"
cp "$UNPACKER" "$FX/small.bundle" "$W/medium/"
cat > "$W/medium/.evil" <<SH
#!/bin/sh
id -u > "$W/evil-ran"
printf '{"exit_code": 0, "status": "ok", "already_installed": true}' > "\$5"
SH
chmod 0755 "$W/medium/.evil"
chown -R 65534:65534 "$W/medium"
before=$(tree_listing "$W/local_s/opt")
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$TOP/tests/tools/swap-on-read.py" \
	"$W/medium/unpacker" "$W/medium/.evil" "$W/medium/.ready" > swap.out 2>&1 &
CLEANUP="$CLEANUP kill $! 2>/dev/null || true;"
i=0
while [ ! -e "$W/medium/.ready" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the swapping user did not start: $(cat swap.out)"; sleep 0.1
done
set +e
playbook swap.log install.yml -e "{\"cudnn_host_files\": {\"unpacker\": \"$W/medium/unpacker\", \"bundle\": \"$W/medium/small.bundle\"},
	\"cudnn_host_sha256\": {\"unpacker\": \"$(sha "$UNPACKER")\", \"bundle\": \"$(sha "$FX/small.bundle")\"}}"
rc=$?
set -e
wait
assert_contains swap.out "swapped"
[ ! -e "$W/evil-ran" ] || fail "the swapped program ran as uid $(cat "$W/evil-ran")"
note "what was installed is unchanged"
[ "$(tree_listing "$W/local_s/opt")" = "$before" ] || fail "the install changed"
note "the run either ran the verified copy, or refused with the reason"
C=$W/local_s/var/cache/cuferry
if [ "$rc" = 0 ]; then
	cmp -s "$C/unpacker" "$UNPACKER" || fail "the run passed with a copy that is not the unpacker"
else
	assert_contains swap.log "unpacker: its SHA-256 is not the one in cudnn_host_sha256.unpacker"
fi
note "nothing unverified left in the private directory"
[ ! -e "$C/unpacker" ] || cmp -s "$C/unpacker" "$UNPACKER" || fail "a swapped copy was left in $C"
[ "$(stat -c '%a %u' "$C")" = "700 0" ] || fail "$C is not root's 0700"
echo "swap: exit $rc"
