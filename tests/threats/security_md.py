#!/usr/bin/env python3
"""security_md.py BUILD FUZZ_BUILD - write docs/SECURITY.md from real runs: the threat table
from BUILD/threat-results*.tsv (tests/threats/test_*threats.sh, test_review.sh), the fuzzing record from
FUZZ_BUILD/fuzz-record.tsv (tests/fuzz/run.sh), and the lint verdict (make lint)."""
import collections
import datetime
import os
import subprocess
import sys

build, fuzz = sys.argv[1], sys.argv[2]
top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TARGETS = {
    "frame": ("the signed frame: bounded parser, every signature check, the manifest it carries",
              "every defect is a trust failure (exit 2); an accepted frame re-encodes to the same bytes"),
    "manifest": ("the strict manifest reader",
                 "a verdict from the exit-code table on one line; an accepted manifest round-trips byte for byte"),
    "pathrule": ("the portable path and name policy",
                 "the same verdict as a slow, obvious reference implementation; case folding is symmetric"),
    "redist": ("NVIDIA's redistrib JSON reader and every lookup the bundler makes",
               "no crash; a relative_path is never absolute and never contains '..'"),
    "unpack": ("a whole install of a signed bundle built from the fuzzer's manifest and tar",
               "exit code in the table; nothing outside the root changes; no mode beyond 0755, no set-id, no special files"),
}

RULES = [
    "**Threshold fails closed.** A `threshold` file in the trust directory that is a link, "
    "not a regular file, not root's, writable by group or others, longer than one number, or "
    "anything but one number 1-8 (one trailing newline allowed) is exit 2 with the reason; so "
    "is a threshold in a trust directory that is ignored as unsafe. `make TRUSTED_THRESHOLD=N` "
    "compiles a threshold in; the file may raise it, never lower it.",
    "**Prefix.** Absolute, normalized, only `[A-Za-z0-9._+@/-]`, else exit 1. Run as root, the "
    "prefix and every existing directory above it up to `/` (under `--root`, the root's own "
    "parents too) must be owned by root and not writable by group or others, else exit 4 "
    "before anything is written (checked again after the missing directories are made). A "
    "root-owned sticky directory such as `/tmp` is accepted only above a name that already "
    "exists and passes the same test: a name still to be created in it could be planted first. "
    "The log's directory is checked the same way, with one tolerance: a directory above it "
    "writable by a system group (gid < 1000, as Ubuntu's `/var/log` is root:syslog 0775), "
    "since every silent install there would fail otherwise; the log file itself is opened "
    "without following links.",
    "**`--root` images.** Every existing component of the prefix, `var/log/cuferry`, "
    "`etc/ld.so.conf.d` and `etc/profile.d` inside the root must be a real directory: a "
    "symbolic link there (absolute or relative) is exit 4, named, never followed. Host links "
    "above the root are resolved and the resolved path is checked.",
    "**No-follow opens.** The log is opened `O_NOFOLLOW` (a FIFO or device as the log "
    "refused); the `--json` report is written to a temporary beside its name and renamed over "
    "it (a planted hard link replaced, never written through; a link, FIFO or device under the "
    "name refused), its directory, as root, passing the log's rule before any work (else exit "
    "4, no report); a `--trust` or `trust add` key file is opened once, checked (regular, "
    "root's, not writable by others, one hard link, its directories by the prefix's rule, its "
    "own as the parent of an existing name: a sticky root-owned `/tmp` passes, a link there "
    "another user owns does not; then the name must still be the file opened, and the file "
    "one PEM block or exact DER) and read through that "
    "one open file, and `--remember` stores those bytes, never the path read again; state and "
    "journal are read `O_NOFOLLOW` and written through a fresh temporary and a rename. "
    "Recovery believes a journal only where it names what the unpacker makes (the install "
    "directory name, `.old-*`, `PREFIX/.staging-*`, single components); anything else is exit "
    "10 and nothing is removed.",
    "**Space.** Bytes and inodes (`f_favail`) are checked before writing; a full disk or quota "
    "anywhere is exit 4 with its cause; `current` is only re-pointed in a rollback when it "
    "changed, so a rollback on a full disk does not report itself failed.",
    "**Downgrade.** A cuDNN older than `current`'s for the same CUDA variant (numeric per "
    "component: 9.2 < 9.19) is exit 7, unless `--allow-downgrade` (switch) or "
    "`--keep-current` (install beside).",
    "**Manifest fields.** `cudnn.version` and `cuda_variant` are digits and dots; `bundle_id` "
    "follows the file-name component rule (at most 128 bytes); `created`/`expires` are exactly "
    "`YYYY-MM-DDTHH:MM:SSZ`, a real date, compared as times; a `.cuferry/…` entry is exit 3. "
    "Every log line escapes control characters as `\\xNN`.",
    "**Modes.** Installed directories 0755 and files the manifest's mode, whatever the umask.",
    "**Test seams.** `CUFERRY_FAULT` is compiled only into `build/test-bin/unpacker` "
    "(`-DCUFERRY_TEST_SEAMS`); the shipped `build/unpacker` ignores it. (`CUFERRY_SHA256=portable` "
    "only picks the portable SHA-256 code and can change no verdict.)",
]

out = []
p = out.append
p("# Security: the threat table and the fuzzing record")
p("")
p("Generated by `tests/threats/security_md.py` from real runs on %s (the development machine: "
  "Debian 12, 2 cores). Rerun: `make test` (threats, a short fuzz run), `make fuzz "
  "FUZZ_SECONDS=N` (longer fuzzing), `make lint`, then `make security-doc`."
  % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"))
p("")
p("## Threats")
p("")
p("Each test runs twice, interactive and `/silent` with stdin closed, and asserts: the "
  "documented exit code and a one-line reason; a sentinel tree outside the prefix "
  "byte-identical before and after; no staging leftovers; `state.json`, `ld.so.conf.d` and "
  "`profile.d` unchanged. The hostile bundles are signed with a trusted test key "
  "(`tests/tools/forge.py`), so only the unpacker's own rules stand in the way.")
p("")
p("| threat | behaviour | test | result |")
p("| --- | --- | --- | --- |")
def table(name):
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(build, name))]
    for tid, threat, behaviour, test, result in rows:
        p("| %s | %s | `%s` | %s |" % (threat.replace("|", "\\|"), behaviour.replace("|", "\\|"), test, result))
    p("")


table("threat-results.tsv")
def section(name, title, intro):
    """A results table of another threat script, when that script ran."""
    if not os.path.exists(os.path.join(build, name)):
        return False
    p("### " + title)
    p("")
    p(intro)
    p("")
    p("| threat | behaviour | test | result |")
    p("| --- | --- | --- | --- |")
    table(name)
    return True


if section("threat-results-review.tsv", "The outside review (issue 11)",
           "`tests/threats/test_review.sh`, run as root: the review's findings on thresholds, "
           "prefixes, `--root` images, inodes, quoting, downgrades, manifest fields and the low "
           "ones, each with the same four assertions where it is an install (the "
           "self-extracting stub and the unprivileged probe are tested by their own scripts). "
           "The rules they hold are in the next section."):
    p("### Rules the review led to")
    p("")
    for line in RULES:
        p("- " + line)
    p("")
section("threat-results-probe.tsv", "The probe starts clean (issue 23)",
        "`tests/threats/test_probe.sh`, run as root: every name the shipped unpacker NEEDs "
        "(`readelf -d`, not a hand list) as a link to cuDNN and as a planted file in a `--root` "
        "image's install `lib/`, in a signed manifest and through `bundler create --add-file`; "
        "library constructors record the uid they run as, and none may be 0. A library that "
        "forks and double-forks (`setsid`) leaves no process behind, at the probe's end or at "
        "its deadline; doctor never loads a user's copy.")
section("threat-results-sfx.tsv", "Self-extracting files",
        "`tests/threats/test_sfx_threats.sh`: damaged or forged `.run` files, each refused (exit 2) "
        "by `unpacker verify`, by both install modes and, where the stub still runs, by the `.run` "
        "itself; nothing is written.")
section("threat-results-hygiene.tsv", "Environment hygiene (issue 23)",
        "`tests/threats/test_hygiene_threats.sh`, run as root: a signed bundle carrying a "
        "distribution base library (`libz.so.1`, OpenSSL) that the install's `lib/`, first in the "
        "loader's search, would make every program's, and `--modulefiles` directories that do "
        "not pass the prefix's ownership rule; the same four assertions, and the modulefiles "
        "directory left empty. The `arclink_*` and `fromdir_*` cases are the bundler's: an "
        "archive or `--from-dir` tree with a link to a directory or out of the tree (exit 9, no "
        "bundle written).")
section("threat-results-kit.tsv", "The stick (a kit on a USB medium)",
        "`tests/threats/test_kit_threats.sh`: the stick attacker, who can change every byte of a "
        "kit but has no signing key: a swapped unpacker with `SHA256SUMS` and `README.txt` to "
        "match (refused by `openssl` and by `unpacker verify KIT`), a link to `/etc/shadow` "
        "named like a bundle (never opened: strace), 300 junk names before the real bundle "
        "(every name read), escape sequences in a name (printed as `\\xNN`), an expired kit "
        "and a linked `cuferry-kit/`, each with the four assertions in both modes.")
section("threat-results-trust.tsv", "Trust statements and revocation (issue 24)",
        "`tests/threats/test_trust_threats.sh`, run as root: `unpacker trust apply` of statements "
        "that are replayed (a counter at or below the last applied), signed by a key that is not "
        "trusted or by fewer keys than the threshold, a leaked key revoking the others or adding "
        "a friend alone, and damaged or foreign files; each with the four assertions in both "
        "modes, and the trust directory unchanged.")
section("threat-results-windows.tsv", "Windows (unpacker.exe under Wine)",
        "`tests/threats/test_windows_threats.sh`: the cases above that apply to Windows and the "
        "Windows spellings of a path escape (`..\\`, `C:\\…`, `\\…`, UNC, `C:x`, alternate "
        "data streams, device names, a trailing dot or space, names differing only in case), "
        "each in the signed manifest and in the payload only, against `unpacker.exe` in a "
        "private Wine prefix, interactive and `/S`. Beside the four assertions the registry's "
        "PATH and `CUDNN_PATH` (machine and user) must be unchanged. Wine reads every file as "
        "the user's: the installs run the test build with `CUFERRY_FAULT=no-acl`, and one case "
        "shows the shipped `unpacker.exe` refusing for that reason. Not shown under Wine: real "
        "ACLs, junctions and symbolic links on NTFS (Wine has none).")
p("More cases live in `tests/e2e/` (trust, hostile entries, transactions with injected "
  "failures and kills, validation failure paths).")
p("")
p("## Fuzzing")
p("")
p("libFuzzer (clang 14) with ASan and UBSan; seed corpora made at run time by "
  "`tests/fuzz/seeds.sh` (every forged defect case, NVIDIA's sample JSON, the hostile path "
  "table). Time is wall-clock; the long runs shared the 2 cores five ways, so each got about "
  "0.4 of a core.")
p("")
p("| target | what it reads | oracle | runs | total time | executions | findings |")
p("| --- | --- | --- | ---: | ---: | ---: | --- |")
rec = collections.defaultdict(lambda: [0, 0, 0, 0])
path = os.path.join(fuzz, "fuzz-record.tsv")
for line in open(path) if os.path.exists(path) else []:
    t, when, secs, execs, result = line.rstrip("\n").split("\t")
    r = rec[t]
    r[0] += 1
    r[1] += int(secs)
    r[2] += int(execs or 0)
    r[3] += result != "clean"
for t, (what, oracle) in TARGETS.items():
    r = rec[t]
    p("| `fuzz_%s` | %s | %s | %d | %d min %02d s | %d | %s |" % (
        t, what, oracle, r[0], r[1] // 60, r[1] % 60, r[2], "%d, fixed (below)" % r[3] if r[3] else "none"))
p("")
p("Found and fixed while building this:")
p("")
p("- `fuzz_unpack`'s first run stopped on a leak in the harness's own setup (an `xasprintf` "
  "result never freed); fixed in the harness. It was not a product bug.")
p("- `fuzz_redist` found, after 7 minutes and 2.85 million executions, that "
  "`redist_variants` passed a NULL `relative_path` (a JSON value that is not a string) to "
  "`strstr`: a crash on a malformed mirror manifest. `gcc -fanalyzer` reported the same line "
  "at the same time. Fixed in `manifests/redist.c`; the reproducer is the unit test "
  "`test_redist_regression_non_string_relative_path`; the target then ran on clean.")
p("- Writing the two-step threat test showed that a planted `PREFIX/.cuferry` symlink would "
  "have carried the lock, journal and `state.json` outside the prefix. The unpacker now "
  "refuses a prefix or `.cuferry` that is not a real directory (exit 5).")
p("- A forged frame whose key id did not match its key was accepted (the key id was "
  "recomputed and the lie ignored); such a frame is now malformed and refused (exit 2).")
p("")
p("## Static analysis")
p("")
lint = subprocess.run(["make", "-s", "-C", top, "lint"], capture_output=True, text=True)
verdict = (lint.stdout.strip().splitlines() or ["(no output)"])[-1].replace("lint: ", "")
p("`make lint`: %s. It runs `gcc -fanalyzer` on every source and `cppcheck` (warning, "
  "portability, performance); one cppcheck report is suppressed in place with its reason "
  "(`common/sha256.c`, a context filled by `sha256_init` taken for uninitialised)." % verdict)
p("")
sys.stdout.write("\n".join(out) + "\n")
