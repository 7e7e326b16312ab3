#!/bin/sh
# The Ansible collection cuferry.cudnn against real targets: localhost (--root sandboxes), a
# chroot (community.general.chroot) and two podman containers, each a minimal Debian 12 made
# here, with the host's CUDA libraries bound in read-only as a target's CUDA runtime. First
# run: changed; second: changed=0; check mode: reports, changes nothing; one host whose
# validation fails (a fake cuDNN of the wrong version) fails with exit 6 while the others
# finish; the fleet summary lists every host. ansible-lint passes on the collection.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook not installed (make deps installs ansible)"; exit 0; }
CUDA=$(cat "$FX/cuda_dir")
A=$TOP/ansible
export ANSIBLE_CONFIG=$A/ansible.cfg ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_LOCAL_TEMP=$W/ansible-tmp \
	ANSIBLE_HOME=$W/ansible-home ANSIBLE_SSH_CONTROL_PATH_DIR=$W/cp ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3

note "ansible-lint and syntax checks (Linux and Windows tasks)"
if command -v ansible-lint >/dev/null; then
	(cd "$A" && ansible-lint --offline -q 2>&1) > lint.out || { cat lint.out; fail "ansible-lint"; }
else
	echo "SKIP ansible-lint: not installed (make deps installs it)"
fi
(cd "$A" && ansible-playbook --syntax-check -i inventory/example.ini playbooks/install.yml playbooks/rolling-upgrade.yml playbooks/windows.yml) >/dev/null

note "targets"
# A fake cuDNN that says 9.14 in a bundle that says 9.19: validation step 2 fails (exit 6).
mkdir -p bad/lib bad/include
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > bad/include/cudnn_version.h
cc -shared -fPIC -o bad/lib/libcudnn_graph.so.9 -Wl,-soname,libcudnn_graph.so.9 "$TOP/tests/tools/fakegraph.c"
cc -shared -fPIC -O2 -I"$TOP" -DFAKE_VERSION=91400 -o bad/lib/libcudnn.so.9 -Wl,-soname,libcudnn.so.9 \
	"$TOP/tests/tools/fakecudnn.c" "$TOP/unpacker/validate/convref.c" bad/lib/libcudnn_graph.so.9 -lm
"$BUNDLER" create --from-dir bad --cuda 13 --key "$FX/test.key" -o bad.bundle --counter 5 --level 1 -q >/dev/null

# The CUDA libraries cuDNN opens (cuBLAS, NVRTC) come from the target's CUDA runtime: the
# host's, bound read-only; a conf that sorts after the unpacker's keeps its cuDNN behind ours.
cudalib=$(dirname "$(readlink -f "$CUDA/lib/libcudnn.so.9" 2>/dev/null || readlink -f "$CUDA"/lib*/libcudnn.so.9)")
# The same cuDNN as parts (NAME.bundle.001, ...) and as a self-extracting .run.
mkdir parts
"$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 --key "$FX/test.key" -o parts/small.bundle --split 1M \
	--counter 100 --level 1 -q >/dev/null
[ -f parts/small.bundle.002 ] || fail "expected two parts or more: $(ls parts)"
"$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 --key "$FX/test.key" -o small.run --sfx --unpacker "$UNPACKER" \
	--counter 100 --level 1 -q >/dev/null
HOSTS="local_a local_bad local_parts local_run"
sandbox() { echo "$1 ansible_connection=local cudnn_root=$W/$1 cudnn_remote_dir=$W/$1/var/cache/cuferry ${2-}"; }
{
	echo "[cudnn_hosts]"
	sandbox local_a
	sandbox local_bad "cudnn_bundle=$W/bad.bundle"
	sandbox local_parts "cudnn_bundle=$W/parts/small.bundle.001"
	sandbox local_run "cudnn_bundle=$W/small.run"
} > inventory.ini
# The sandboxes stand for a host's /: traversable by the unprivileged user validation runs as.
for h in local_a local_bad local_parts local_run; do mkdir -p "$W/$h" && chmod 0755 "$W/$h"; done
ROOTFS=$B/fleet/rootfs
if [ "$(id -u)" != 0 ]; then
	echo "SKIP chroot and podman hosts: they need root (chroot, mounts, rootful podman)"
	ROOTFS=
elif ! why=$(sh "$TOP/tests/tools/fleet-rootfs.sh" "$ROOTFS" 2>&1); then
	echo "SKIP chroot and podman hosts: $why"
	ROOTFS=
fi
if [ -n "$ROOTFS" ]; then
	mkdir -p "$W/image"
	cp -a "$ROOTFS/." "$W/image/"
	mkdir -p "$W/image$cudalib"
	echo "$cudalib" > "$W/image/etc/ld.so.conf.d/zz-cuda-runtime.conf"
	# chroot host: /proc for validation, the CUDA runtime bound read-only.
	cp -a "$W/image" "$W/chroot1"
	# Unmounted before lib.sh removes $W; read-only, so nothing there could be removed anyway.
	mount -t proc proc "$W/chroot1/proc" || fail "cannot mount /proc in the chroot"
	CLEANUP="umount '$W/chroot1/proc';$CLEANUP"
	mount --bind "$cudalib" "$W/chroot1$cudalib" || fail "cannot bind $cudalib into the chroot"
	CLEANUP="umount '$W/chroot1$cudalib';$CLEANUP"
	mount -o remount,bind,ro "$W/chroot1$cudalib" || fail "cannot make the bound $cudalib read-only"
	echo "chroot1 ansible_connection=community.general.chroot ansible_host=$W/chroot1" >> inventory.ini
	HOSTS="$HOSTS chroot1"
	if command -v podman >/dev/null && command -v runc >/dev/null; then
		img=localhost/cuferry-fleet-test:$$
		if tar -C "$W/image" -c . | podman import - "$img" >/dev/null 2>podman.err; then
			CLEANUP="$CLEANUP podman rmi -f '$img' >/dev/null 2>&1;"
			for c in 1 2; do
				name=cuferry-fleet-$$-$c
				podman run -d --name "$name" --runtime=runc --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
					--network=none -v "$cudalib:$cudalib:ro" "$img" sleep infinity >/dev/null 2>>podman.err ||
					fail "podman run: $(cat podman.err)"
				CLEANUP="podman rm -f -t 0 '$name' >/dev/null 2>&1; $CLEANUP"
				echo "pod$c ansible_connection=containers.podman.podman ansible_host=$name" >> inventory.ini
				HOSTS="$HOSTS pod$c"
			done
		else
			echo "SKIP podman hosts: podman import failed: $(cat podman.err)"
		fi
	else
		echo "SKIP podman hosts: podman or runc not installed (make deps installs them)"
	fi
fi
cat >> inventory.ini <<INV
[cudnn_hosts:vars]
cudnn_unpacker=$UNPACKER
cudnn_bundle=$FX/small.bundle
cudnn_trust_keys=["$FX/test.pub"]
INV
echo "hosts: $HOSTS"

play() { # LOG [ansible-playbook options]: the install playbook; its recap lines in LOG.recap
	log=$1; shift
	set +e
	(cd "$A" && ansible-playbook -i "$W/inventory.ini" playbooks/install.yml -e cudnn_summary_dir="$W/summary" "$@") > "$log" 2>&1
	rc=$?
	set -e
	sed -n '/PLAY RECAP/,$p' "$log" > "$log.recap"
	return $rc
}
recap() { # LOG HOST FIELD
	sed -n "s/^$2 *:.* $3=\([0-9]*\).*/\1/p" "$1.recap"
}
good_hosts=$(echo $HOSTS | tr ' ' '\n' | grep -v local_bad)

note "check mode on fresh hosts: says what would change, changes nothing"
play check0.log --check || { cat check0.log; fail "check mode on fresh hosts failed"; }
for h in $good_hosts; do
	[ "$(recap check0.log $h changed)" -ge 1 ] || { cat check0.log; fail "$h: check mode reported no change"; }
done
[ ! -e "$W/local_a/opt" ] && [ ! -e "$W/local_a/var/cache/cuferry" ] || fail "check mode wrote on local_a"
[ -n "$ROOTFS" ] && { [ ! -e "$W/chroot1/opt/cudnn" ] || fail "check mode installed in the chroot"; }

note "first run: every good host changed, local_bad fails with exit 6, the others finish"
play run1.log && fail "the playbook passed although local_bad's validation fails"
for h in $good_hosts; do
	[ "$(recap run1.log $h failed)" = 0 ] || { cat run1.log; fail "$h failed"; }
	[ "$(recap run1.log $h changed)" -ge 1 ] || { cat run1.log; fail "$h: not changed on the first run"; }
done
[ "$(recap run1.log local_bad failed)" = 1 ] || { cat run1.log; fail "local_bad did not fail"; }
assert_contains run1.log "unpacker exit 6 (validation): validation failed"
[ "$(readlink "$W/local_a/opt/cudnn/current")" = cudnn-9.19.0-cuda13 ] || fail "local_a: not installed"
[ ! -e "$W/local_bad/opt/cudnn/current" ] || fail "local_bad: the failed install was kept"
for h in local_parts local_run; do
	[ "$(readlink "$W/$h/opt/cudnn/current")" = cudnn-9.19.0-cuda13 ] || fail "$h: not installed"
done
[ -f "$W/local_parts/var/cache/cuferry/small.bundle.002" ] || fail "local_parts: not every part copied"
[ ! -e "$W/local_run/var/cache/cuferry/unpacker" ] || fail "local_run: the unpacker copied beside a .run"
if [ -n "$ROOTFS" ]; then
	[ "$(readlink "$W/chroot1/opt/cudnn/current")" = cudnn-9.19.0-cuda13 ] || fail "chroot1: not installed"
	assert_contains "$W/chroot1/etc/ld.so.conf.d/cuferry-cudnn.conf" /opt/cudnn/current/lib
fi
for c in $(echo $HOSTS | tr ' ' '\n' | grep pod); do
	podman exec "cuferry-fleet-$$-${c#pod}" readlink /opt/cudnn/current > pod.out
	grep -qx cudnn-9.19.0-cuda13 pod.out || fail "$c: not installed"
done

note "the fleet summary lists every host, as a table and as JSON"
for h in $HOSTS; do grep -q "^$h " "$W/summary/fleet-summary.txt" || { cat "$W/summary/fleet-summary.txt"; fail "$h not in the summary"; }; done
grep "^local_bad " "$W/summary/fleet-summary.txt" | grep -q "exit 6" || fail "the summary hides local_bad's exit 6"
py - "$W/summary/fleet-summary.json" $HOSTS <<'PY'
import json, sys
rows = {r["host"]: r for r in json.load(open(sys.argv[1]))}
assert sorted(rows) == sorted(sys.argv[2:]), rows.keys()
for h, r in rows.items():
    want = 6 if h == "local_bad" else 0
    assert int(r["exit_code"]) == want, (h, r)
    assert r["cudnn_version"] == "9.19.0" and r["cuda_variant"] == "13", r
    checks = {c["check"]: c["status"] for c in r["validation"]["checks"]} if want == 0 else {}
    assert want or checks.get("library") == "pass", (h, checks)
PY
cat "$W/summary/fleet-summary.txt"

note "second run: changed=0 everywhere (local_bad still fails)"
play run2.log || true
for h in $good_hosts; do
	[ "$(recap run2.log $h changed)" = 0 ] || { cat run2.log; fail "$h changed on the second run"; }
	[ "$(recap run2.log $h failed)" = 0 ] || { cat run2.log; fail "$h failed on the second run"; }
done
grep "^local_a " "$W/summary/fleet-summary.txt" | grep -q "already installed" || fail "summary: local_a not 'already installed'"

note "check mode on installed hosts: verify runs, nothing would change, nothing changes"
before=$(tree_listing "$W/local_a")
play check1.log --check || true
for h in $good_hosts; do
	[ "$(recap check1.log $h changed)" = 0 ] || { cat check1.log; fail "$h: check mode says it would change"; }
done
[ "$(tree_listing "$W/local_a")" = "$before" ] || fail "check mode changed local_a"

note "a re-run that repairs a damaged file reports changed"
truncate -s 1000 "$W/local_a/opt/cudnn/current/lib/libcudnn.so.9"
play run3.log --limit local_a || { cat run3.log; fail "the repairing run failed"; }
[ "$(recap run3.log local_a changed)" -ge 1 ] || { cat run3.log; fail "local_a: a repair reported changed=0"; }
cmp -s "$W/local_a/opt/cudnn/current/lib/libcudnn.so.9" "$FX/small-src/lib/libcudnn.so.9" || fail "local_a: not repaired"

note "a copy already on the host, checked by SHA-256, is used instead of copying"
mkdir -p "$W/local_c/media"
cp "$FX/small.bundle" "$UNPACKER" "$W/local_c/media/"
sha() { sha256sum "$1" | cut -d' ' -f1; }
(cd "$A" && ansible-playbook -i "$W/inventory.ini" playbooks/install.yml --limit local_a -e cudnn_summary_dir="$W/summary" \
	-e "{\"cudnn_root\": \"$W/local_c\", \"cudnn_remote_dir\": \"$W/local_c/cache\",
	     \"cudnn_host_files\": {\"bundle\": \"$W/local_c/media/small.bundle\", \"unpacker\": \"$W/local_c/media/unpacker\"},
	     \"cudnn_host_sha256\": {\"bundle\": \"$(sha "$FX/small.bundle")\", \"unpacker\": \"$(sha "$UNPACKER")\"},
	     \"cudnn_trust_keys\": [], \"cudnn_extra_args\": [\"--trust\", \"$FX/test.pub\"]}") > hostcopy.log 2>&1 ||
	{ cat hostcopy.log; fail "install from a copy on the host"; }
[ "$(readlink "$W/local_c/opt/cudnn/current")" = cudnn-9.19.0-cuda13 ] || fail "local_c: not installed"
[ ! -e "$W/local_c/cache/small.bundle" ] || fail "the bundle was copied although the host had it"
printf 'x' >> "$W/local_c/media/small.bundle"
if (cd "$A" && ansible-playbook -i "$W/inventory.ini" playbooks/install.yml --limit local_a -e cudnn_summary_dir="$W/summary" \
	-e "{\"cudnn_root\": \"$W/local_c\", \"cudnn_remote_dir\": \"$W/local_c/cache\",
	     \"cudnn_host_files\": {\"bundle\": \"$W/local_c/media/small.bundle\"},
	     \"cudnn_host_sha256\": {\"bundle\": \"$(sha "$FX/small.bundle")\"}}") > hostcopy2.log 2>&1; then
	fail "a host copy with the wrong SHA-256 was used"
fi
assert_contains hostcopy2.log "SHA-256 is not the one in cudnn_host_sha256.bundle"
echo "fleet: $HOSTS"
