#!/bin/sh
# The fleet report (issue 28): the cudnn role gathers each host's `unpacker inventory --json -`
# (run by the same verified copy as the install) and fleet_summary writes one report, JSON,
# table and Markdown, over a fleet of --root sandboxes: a clean host, one whose install holds
# a file nobody listed (drift), one whose current is a newer version than the play's target
# (the downgrade is refused: failed, and still inventoried), one with an older cuDNN earlier on
# the ld path (a shadowing copy), one whose copy does not match its SHA-256 (failed before the
# inventory) and one that cannot be reached (ssh to a closed port). The play still writes the
# report, naming every host with its state and reason. Its date is the play's: the test
# brackets it between the clock read before and after the run (no timing assert).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
. "$CUFERRY_TOP/tests/e2e/ansible_lib.sh"
V=cudnn-9.19.0-cuda13 V2=cudnn-9.20.0-cuda13
pre() { # HOST BUNDLE [unpacker options]: installed before the play, as by an earlier run
	h=$1 b=$2; shift 2
	mkdir -p "$W/$h" && chmod 0755 "$W/$h"
	expect 0 env -u LD_LIBRARY_PATH "$UNPACKER" install "$b" /silent --trust "$FX/test.pub" --root "$W/$h" "$@"
}

note "the report's rules on their own: a header that no longer verifies, an environment file elsewhere, a pipe in a cell"
PYTHONPATH=$A/collections/ansible_collections/cuferry/cudnn/plugins/filter py - <<'PY'
import fleet
res = {"bundle_id": "cudnn-9.19.0-cuda13-linux-x86_64", "counter": 100, "dir": "d", "prefix": "/r/opt/cudnn", "cudnn_version": "9.19.0"}
b = {"dir": "d", "bundle_id": res["bundle_id"], "counter": 100, "current": True, "cudnn_version": "9.19.0", "files": None,
     "signature": {"verifies": False}, "validation": None}
inv = {"exit_code": 2, "inventory": {"root": "/r", "drifted": True, "problems": ["d: .cuferry/header.bin: revoked"],
       "prefixes": [{"product": "cudnn", "prefix": "/opt/cudnn", "current": "d", "installs": [b], "copies": [],
                     "environment": [{"file": "/etc/profile.d/cuferry-cudnn.sh", "ok": False}], "modulefiles": []}]}}
s = fleet.fleet_host_state(res, inv)
assert s["drift"] == ["d: .cuferry/header.bin: revoked", "/etc/profile.d/cuferry-cudnn.sh: does not point at /opt/cudnn/current"], s
assert s["on_target"] is True and s["summary"] == "drift", s
s = fleet.fleet_host_state({"status": "no result", "message": "not reached"}, None)
assert s["inventoried"] is False and s["reason"] == "not reached" and s["summary"] == "not inventoried: no result", s
assert fleet.md_cell("a|b\nc") == "a\\|b c", fleet.md_cell("a|b\nc")
# a compromised target's words: no raw control character, HTML, link or forged line
evil = "/p/x\n\n## Drift\n- realhost: ALL CLEAN <img src=x onerror=alert(1)> [c](javascript:1) \x1b]8;;http://e\x07 \x1b[2J \x9b1m ~~x~~"
cell = fleet.md_cell(evil)
assert "\n" not in cell and not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in cell), repr(cell)
assert "<" not in cell and "[c]" not in cell and "~~" not in cell and "\\x1b" in cell, cell
assert fleet.plain(evil) == "/p/x  ## Drift - realhost: ALL CLEAN <img src=x onerror=alert(1)> [c](javascript:1) \\x1b]8;;http://e\\x07 \\x1b[2J \\x9b1m ~~x~~", repr(fleet.plain(evil))
# every value the templates print from a host goes through md_cell (Markdown) or plain (text)
import re, os
tdir = os.path.join(os.environ["CUFERRY_TOP"], "ansible/collections/ansible_collections/cuferry/cudnn/roles/fleet_summary/templates")
ours = ("| length", "rep.written", "rep.run_started", "rep.check_mode", "fmt | format('host'")
for name, guard in (("summary.md.j2", "md_cell"), ("summary.txt.j2", "plain")):
    for expr in re.findall(r"\{\{(.*?)\}\}", open(os.path.join(tdir, name)).read(), re.S):
        if not any(k in expr for k in ours) and not expr.strip().startswith("'"):
            assert guard in expr, (name, expr)
o = fleet.fleet_overview([{"host": "h", "status": "unreachable", "state": fleet.fleet_host_state({"status": "unreachable", "message": "m"}, None)}])
assert o["hosts_not_inventoried"] == [{"host": "h", "status": "unreachable", "reason": "m"}] and o["hosts_inventoried"] == [], o
PY

note "the fleet"
pre fleet_drift "$FX/small.bundle"
: > "$W/fleet_drift/opt/cudnn/$V/lib/libplanted.so"
# A newer cuDNN (its fake library says 9.19: never validated) is current on fleet_other.
cp -r "$FX/small-src" src2
sed -i 's/#define CUDNN_MINOR 19/#define CUDNN_MINOR 20/' src2/include/cudnn_version.h
"$BUNDLER" create --from-dir src2 --cuda 13 --key "$FX/test.key" -o second.bundle --counter 101 --level 1 -q >/dev/null
pre fleet_other "$W/second.bundle" --no-validate
pre fleet_shadow "$FX/small.bundle"
S=$W/fleet_shadow
mkdir -p "$S/usr/lib/old"
cp "$S/opt/cudnn/$V/lib/libcudnn.so.9" "$S/usr/lib/old/libcudnn.so.9.14.0"
ln -s libcudnn.so.9.14.0 "$S/usr/lib/old/libcudnn.so.9"
echo /usr/lib/old > "$S/etc/ld.so.conf.d/00-aaa-old.conf"
# fleet_badsum's bundle lies on the host, given with a SHA-256 that its copy does not have.
mkdir -p host_vars
cat > host_vars/fleet_badsum.yml <<EOF
cudnn_host_files: {bundle: "$FX/small.bundle"}
cudnn_host_sha256: {bundle: "$(printf '0%.0s' $(seq 64))"}
EOF
{
	echo "[cudnn_hosts]"
	sandbox fleet_clean; sandbox fleet_drift; sandbox fleet_other; sandbox fleet_shadow
	sandbox fleet_badsum
	echo "fleet_ghost ansible_connection=ssh ansible_host=127.0.0.1 ansible_port=1 ansible_user=nobody ansible_ssh_common_args='-o ConnectTimeout=5 -o BatchMode=yes'"
	group_vars
} > inventory.ini
HOSTS="fleet_clean fleet_drift fleet_other fleet_shadow fleet_badsum fleet_ghost"

note "one run: the failed and unreachable hosts fail, the report is written all the same"
before=$(date -u +%Y-%m-%dT%H:%M:%SZ)
playbook run.log install.yml && fail "the run passed with a host failing and one unreachable"
after=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[ "$(recap run.log fleet_clean failed)" = 0 ] && [ "$(recap run.log fleet_drift failed)" = 0 ] &&
	[ "$(recap run.log fleet_shadow failed)" = 0 ] || { cat run.log.recap; fail "a reachable host with a good install failed"; }
for h in fleet_other fleet_badsum fleet_ghost; do
	[ "$(recap run.log $h failed)" = 1 ] || { cat run.log.recap; fail "$h did not fail"; }
done
for f in json txt md; do [ -s summary/fleet-summary.$f ] || { cat run.log; fail "no fleet-summary.$f"; }; done
assert_contains run.log "($W/summary/fleet-summary.txt, .md and .json)"

note "the JSON: every host, its state, drift, shadowing, the hosts not inventoried with why"
py - summary/fleet-summary.json "$before" "$after" "$V" "$V2" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
before, after, v, v2 = sys.argv[2:6]
hosts = {r["host"]: r for r in rep["hosts"]}
assert sorted(hosts) == sorted(rep["hosts_covered"]) and len(hosts) == 6, sorted(hosts)
# Dated by the play: ISO 8601 UTC, between the clock before and after the run.
assert before <= rep["run_started"] <= rep["written"] <= after, (before, rep["run_started"], rep["written"], after)
assert sorted(rep["hosts_inventoried"]) == ["fleet_clean", "fleet_drift", "fleet_other", "fleet_shadow"], rep["hosts_inventoried"]
assert rep["hosts_clean"] == ["fleet_clean"], rep["hosts_clean"]
assert sorted(d["host"] for d in rep["drift"]) == ["fleet_drift", "fleet_other"], rep["drift"]
assert [d["host"] for d in rep["shadowing"]] == ["fleet_shadow"], rep["shadowing"]
no = {d["host"]: d for d in rep["hosts_not_inventoried"]}
assert sorted(no) == ["fleet_badsum", "fleet_ghost"], no
assert no["fleet_ghost"]["status"] == "unreachable" and "Connection refused" in no["fleet_ghost"]["reason"], no
assert no["fleet_badsum"]["status"] == "failed before the install" and "SHA-256" in no["fleet_badsum"]["reason"], no

c = hosts["fleet_clean"]
s = c["state"]
assert c["exit_code"] == 0 and c["inventory_exit_code"] == 0 and c["inventory"]["drifted"] is False, c
assert s["summary"] == "clean" and s["on_target"] is True and s["current"] == v and s["drift"] == [], s
assert s["products"] == [{"product": "cudnn", "prefix": "/opt/cudnn", "current": v, "current_version": "9.19.0",
                          "versions": ["9.19.0"], "installs": 1}], s["products"]
lv = s["last_validation"]
assert lv["result"].startswith("pass") and before <= lv["validated_at"] <= after and isinstance(lv["gpus"], list), lv
assert s["target"]["bundle_id"] == "cudnn-9.19.0-cuda13-linux-x86_64" and s["target"]["counter"] == 100, s["target"]

d = hosts["fleet_drift"]["state"]
assert hosts["fleet_drift"]["inventory_exit_code"] == 6 and d["summary"] == "drift" and d["on_target"] is True, d
why, = d["drift"]
assert why.startswith(v + ": files changed (unlisted 1)") and "lib/libplanted.so" in why, why

o = hosts["fleet_other"]
assert o["exit_code"] == 7 and "downgrade refused" in o["message"], o
s = o["state"]
assert s["inventoried"] and s["current"] == v2 and s["on_target"] is False and s["summary"] == "drift", s
assert s["drift"] == ["current is %s (counter 101), the play's target is %s (counter 100)" % (v2, v)], s["drift"]
assert s["products"][0]["versions"] == ["9.20.0"] and s["last_validation"] is None, s["products"]

s = hosts["fleet_shadow"]["state"]
assert s["summary"] == "shadowed" and s["drift"] == [] and s["on_target"] is True, s
cp, = s["shadowing"]
assert cp["path"] == "/usr/lib/old/libcudnn.so.9.14.0" and cp["version"] == "9.14.0", cp
assert "00-aaa-old.conf" in cp["on_search_path"], cp
for h in ("fleet_badsum", "fleet_ghost"):
    r = hosts[h]
    assert r["inventory"] is None and r["state"]["inventoried"] is False and r["state"]["summary"].startswith("not inventoried"), r
PY

note "the Markdown: one row per host with its state, the drift, the shadowing copy and the unreached"
md=summary/fleet-summary.md
assert_contains $md "^# cuferry fleet report"
written=$(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["written"])' summary/fleet-summary.json)
assert_contains $md "^Written $written "
assert_contains $md "^| host | state | result | products | versions | current | last validation | drift | shadowing copy |$"
assert_contains $md "^| fleet_clean | clean | ok | cudnn | 9.19.0 | $V | pass[^|]*, 20..-..-..T..:..:..Z, GPUs: [^|]* | no | no |$"
assert_contains $md "^| fleet_drift | drift | ok | cudnn | 9.19.0 | $V | pass[^|]* | $V: files changed (unlisted 1): lib/libplanted.so | no |$"
assert_contains $md "^| fleet_other | drift | [^|]*(exit 7) | cudnn | 9.20.0 | $V2 (target $V) | - | current is $V2 (counter 101), the play's target is $V (counter 100) | no |$"
assert_contains $md "^| fleet_shadow | shadowed | ok | cudnn | 9.19.0 | $V | pass[^|]* | no | /usr/lib/old/libcudnn.so.9.14.0 |$"
assert_contains $md "^| fleet_badsum | not inventoried: failed before the install | failed before the install | - | - | - | - | - | - |$"
assert_contains $md "^| fleet_ghost | not inventoried: unreachable | unreachable | - | - | - | - | - | - |$"
assert_contains $md "^- fleet_shadow: /usr/lib/old/libcudnn.so.9.14.0 (cuDNN 9.14.0, "
assert_contains $md "^- fleet_ghost (unreachable): .*Connection refused"
assert_contains $md "^- fleet_badsum (failed before the install): .*SHA-256"
rows=$(grep -c '^| fleet_' $md)
[ "$rows" = 6 ] || fail "$rows host rows in the Markdown, not 6"

note "the table shown and written says the same, with the drift and the unreached"
txt=summary/fleet-summary.txt
assert_contains $txt "^drift: fleet_other: current is $V2"
assert_contains $txt "^shadowing copy: fleet_shadow: /usr/lib/old/libcudnn.so.9.14.0"
assert_contains $txt "^not inventoried: fleet_ghost (unreachable): "
assert_contains $txt "^inventoried 4 of 6: 1 clean, 2 with drift, 1 with a shadowing copy"
grep -F "written $written;" run.log >/dev/null || fail "the play showed another summary than the one written ($written)"

note "check mode: the same inventory, in fleet-summary-check.*, nothing installed"
rm -rf "$W/fleet_clean/opt"
playbook check.log install.yml --check --limit 'fleet_clean:fleet_drift' || { cat check.log; fail "check mode failed"; }
py - summary/fleet-summary-check.json "$V" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
hosts = {r["host"]: r["state"] for r in rep["hosts"]}
assert sorted(hosts) == ["fleet_clean", "fleet_drift"], hosts
c = hosts["fleet_clean"]
assert c["current"] is None and c["on_target"] is False and c["drift"] == [
    "current is none, the play's target is %s (counter 100)" % sys.argv[2]], c
assert hosts["fleet_drift"]["summary"] == "drift", hosts["fleet_drift"]
PY
[ ! -e "$W/fleet_clean/opt/cudnn" ] || fail "check mode installed"
no_check_copies
