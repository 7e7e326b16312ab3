#!/bin/sh
# The Ansible collection cuferry.cudnn against real targets: localhost (--root sandboxes), a
# chroot (community.general.chroot) and two podman containers, each a minimal Debian 12 made
# here, with the host's CUDA libraries bound in read-only as a target's CUDA runtime. First
# run: changed; second: changed=0; check mode: reports, changes nothing; one host whose
# validation fails (a fake cuDNN of the wrong version) fails with exit 6 while the others
# finish; the fleet summary lists every host. ansible-lint passes on the collection.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$CUFERRY_TOP/tests/e2e/ansible_lib.sh"
CUDA=$(cat "$FX/cuda_dir")

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
{
	echo "[cudnn_hosts]"
	sandbox local_a
	sandbox local_bad "cudnn_bundle=$W/bad.bundle"
	sandbox local_parts "cudnn_bundle=$W/parts/small.bundle.001"
	sandbox local_run "cudnn_bundle=$W/small.run"
} > inventory.ini
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
	# The sanitizer build's unpacker (make sanitize) loads ASan's and UBSan's runtimes and
	# libarchive, jansson and zstd as shared libraries, which a minimal Debian lacks: those it
	# needs are carried in at the host's paths. The release unpacker needs none of them (only
	# libc's, which every image has): nothing is copied for it.
	for lib in $(ldd "$UNPACKER" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
		[ -e "$W/image$lib" ] || { mkdir -p "$W/image${lib%/*}" && cp -L "$lib" "$W/image$lib"; } ||
			fail "cannot carry $lib into the image"
	done
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
group_vars >> inventory.ini
echo "hosts: $HOSTS"

play() { l=$1; shift; playbook "$l" install.yml "$@"; } # LOG [ansible-playbook options]
good_hosts=$(echo $HOSTS | tr ' ' '\n' | grep -v local_bad)

note "check mode on fresh hosts: says what would change, changes nothing"
play check0.log --check || { cat check0.log; fail "check mode on fresh hosts failed"; }
for h in $good_hosts; do
	[ "$(recap check0.log $h changed)" -ge 1 ] || { cat check0.log; fail "$h: check mode reported no change"; }
done
[ ! -e "$W/local_a/opt" ] && [ ! -e "$W/local_a/var" ] || fail "check mode wrote on local_a"
no_check_copies
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
[ "$(stat -c %a "$W/local_a/var/cache/cuferry")" = 700 ] || fail "the copies' directory is not 0700"
[ ! -e "$W/local_run/var/cache/cuferry/unpacker" ] || fail "local_run: the unpacker copied beside a .run"
if [ -n "$ROOTFS" ]; then
	[ "$(readlink "$W/chroot1/opt/cudnn/current")" = cudnn-9.19.0-cuda13 ] || fail "chroot1: not installed"
	assert_contains "$W/chroot1/etc/ld.so.conf.d/00-cuferry-cudnn.conf" /opt/cudnn/current/lib
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
report = json.load(open(sys.argv[1]))
rows = {r["host"]: r for r in report["hosts"]}
assert sorted(rows) == sorted(sys.argv[2:]), rows.keys()
assert sorted(report["hosts_covered"]) == sorted(sys.argv[2:]), report
assert report["hosts_without_result"] == [] and not report["limit"], report
assert report["run_started"] <= report["written"], report
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

note "check mode predicts the real run: a newer bundle of the same name, the host's cache holding the old"
# Before, check mode judged the host's old copy and said "current" while the real run installed.
mkdir -p newer
"$BUNDLER" create --from-dir "$FX/small-src" --cuda 13 --key "$FX/test.key" -o newer/small.bundle --counter 101 \
	--level 1 -q >/dev/null
before=$(tree_listing "$W/local_a")
play check2.log --check --limit local_a -e cudnn_bundle="$W/newer/small.bundle" || { cat check2.log; fail "check mode failed"; }
[ "$(recap check2.log local_a changed)" -ge 1 ] || { cat check2.log; fail "check mode: no change predicted"; }
assert_contains check2.log "dry run: would install"
[ "$(tree_listing "$W/local_a")" = "$before" ] || fail "check mode changed local_a (its cache included)"
no_check_copies
py - "$W/summary/fleet-summary-check.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = {h["host"]: h for h in r["hosts"]}
assert r["check_mode"] and r["limit"] == "local_a", r
assert list(rows) == ["local_a"] and rows["local_a"]["status"] == "would install", rows
assert "local_bad" in r["hosts_outside_limit"], r
PY
play run4.log --limit local_a -e cudnn_bundle="$W/newer/small.bundle" || { cat run4.log; fail "the real run failed"; }
[ "$(recap run4.log local_a changed)" -ge 1 ] || { cat run4.log; fail "the real run did not change what check mode said it would"; }
"$UNPACKER" list --root "$W/local_a" | grep -q "101" || fail "the newer bundle is not installed"

note "a --limit run's summary: dated, its limit, the hosts outside it; no row left from the last run"
py - "$W/summary/fleet-summary.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["limit"] == "local_a" and not r["check_mode"], r
assert [h["host"] for h in r["hosts"]] == ["local_a"], r["hosts"]
assert r["hosts"][0]["already_installed"] is False and r["hosts"][0]["counter"] == 101, r["hosts"][0]
assert sorted(r["hosts_outside_limit"]) == sorted(set(r["hosts_covered"] + r["hosts_outside_limit"]) - {"local_a"}), r
PY
assert_contains "$W/summary/fleet-summary.txt" "limit local_a"
assert_contains "$W/summary/fleet-summary.txt" "not in this run (outside --limit): "
if grep -q "^local_bad " "$W/summary/fleet-summary.txt"; then fail "the last run's row of local_bad is still in the summary"; fi

note "check mode of a refused bundle fails as the real run does (exit 7), changing nothing installed"
# The real run copies the refused bundle into the cache before the unpacker refuses it.
installed() { tree_listing "$W/local_a/opt"; tree_listing "$W/local_a/etc"; }
before=$(installed)
play check3.log --check --limit local_a && fail "check mode passed a bundle the real run refuses"
assert_contains check3.log "unpacker exit 7 (policy): bundle counter 100 is lower than 101"
play run5.log --limit local_a && fail "the real run installed a replayed bundle"
assert_contains run5.log "unpacker exit 7 (policy): bundle counter 100 is lower than 101"
[ "$(installed)" = "$before" ] || fail "a refused bundle changed what local_a has installed"
no_check_copies

note "a rolling upgrade whose canary fails stops, and still writes this run's summary"
{ echo "[cudnn_canary]"; echo local_bad; cat inventory.ini; } > rolling.ini
cp rolling.ini inventory.ini
playbook rolling.log rolling-upgrade.yml && fail "the rolling upgrade passed with a failing canary"
if grep -q "PLAY \[The rest of the fleet" rolling.log; then fail "the run went on after its canary failed"; fi
grep "^local_bad " "$W/summary/fleet-summary.txt" | grep -q "exit 6" || { cat "$W/summary/fleet-summary.txt"; fail "no canary row"; }
py - "$W/summary/fleet-summary.json" $good_hosts <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert not r["limit"], r
assert sorted(r["hosts_without_result"]) == sorted(sys.argv[2:]), r["hosts_without_result"]
assert [h["host"] for h in r["hosts"] if h["exit_code"] is not None] == ["local_bad"], r["hosts"]
PY
assert_contains "$W/summary/fleet-summary.txt" "no result (unreachable, or not reached): "
[ ! -e "$W/local_bad/opt/cudnn/current" ] || fail "local_bad: the failed install was kept"

note "a copy already on the host is copied into the private directory, checked there, and that copy run"
mkdir -p "$W/local_c/media"
cp "$FX/small.bundle" "$UNPACKER" "$W/local_c/media/"
sha() { sha256sum "$1" | cut -d' ' -f1; }
(cd "$A" && ansible-playbook -i "$W/inventory.ini" playbooks/install.yml --limit local_a -e cudnn_summary_dir="$W/summary" \
	-e "{\"cudnn_root\": \"$W/local_c\",
	     \"cudnn_host_files\": {\"bundle\": \"$W/local_c/media/small.bundle\", \"unpacker\": \"$W/local_c/media/unpacker\"},
	     \"cudnn_host_sha256\": {\"bundle\": \"$(sha "$FX/small.bundle")\", \"unpacker\": \"$(sha "$UNPACKER")\"},
	     \"cudnn_trust_keys\": [], \"cudnn_extra_args\": [\"--trust\", \"$FX/test.pub\"]}") > hostcopy.log 2>&1 ||
	{ cat hostcopy.log; fail "install from a copy on the host"; }
[ "$(readlink "$W/local_c/opt/cudnn/current")" = cudnn-9.19.0-cuda13 ] || fail "local_c: not installed"
cmp -s "$W/local_c/var/cache/cuferry/small.bundle" "$FX/small.bundle" || fail "the host's bundle was not copied"
cmp -s "$W/local_c/var/cache/cuferry/unpacker" "$UNPACKER" || fail "the host's unpacker was not copied"
printf 'x' >> "$W/local_c/media/small.bundle"
if (cd "$A" && ansible-playbook -i "$W/inventory.ini" playbooks/install.yml --limit local_a -e cudnn_summary_dir="$W/summary" \
	-e "{\"cudnn_root\": \"$W/local_c\",
	     \"cudnn_host_files\": {\"bundle\": \"$W/local_c/media/small.bundle\"},
	     \"cudnn_host_sha256\": {\"bundle\": \"$(sha "$FX/small.bundle")\"}}") > hostcopy2.log 2>&1; then
	fail "a host copy with the wrong SHA-256 was used"
fi
assert_contains hostcopy2.log "SHA-256 is not the one in cudnn_host_sha256.bundle"
[ ! -e "$W/local_c/var/cache/cuferry/small.bundle" ] || fail "the copy with the wrong SHA-256 was kept"
echo "fleet: $HOSTS"
