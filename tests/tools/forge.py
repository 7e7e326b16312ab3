#!/usr/bin/env python3
"""forge.py - signed bundles with chosen defects, made at test time (never committed).

Builds a small, valid bundle (manifest, pax tar, zstd payload, chunk hashes, frame) and then
applies one CASE, so that a test sees exactly one thing wrong. Signing uses the openssl
command line with a test key, so hostile payloads carry valid signatures and only the
unpacker's own rules stand between them and the disk.

usage: forge.py --key K.key [--key K2.key ...] --out B.bundle [--case NAME] [--outside DIR]
                [--counter N] [--expires ISO] [--created ISO] [--platform P] [--salt S]
                [--bundle-id ID] [--version V] [--cuda MAJOR]
                [--driver-min V] [--cc-min CC] [--name NAME [--data FILE]] [--tar-name NAME]
       forge.py --list

With --platform windows-*, the bundle is laid out as NVIDIA's Windows archives are (bin/ with
the DLL, include/, no links): the cases then aim at the same entries there.
"""
import argparse
import hashlib
import io
import json
import os
import struct
import subprocess
import tarfile
import tempfile

N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
CHUNK = 4096

# case -> expected exit code (DESIGN.md §9)
CASES = {
    "valid": 0,
    # trust (nothing written, exit 2)
    "unsigned": 2, "header_bitflip": 2, "truncated_frame": 2, "frame_over_cap": 2,
    "sig_len63": 2, "sig_len65": 2, "sig_r0": 2, "sig_s0": 2, "sig_r_ge_n": 2,
    "keyid_lie": 2,
    # with --key A --key B: B's key id lies beside A's valid, trusted signature (the frame is
    # malformed, whatever else it carries)
    "keyid_lie_second": 2,
    # integrity of the payload (exit 3)
    "payload_bitflip": 3, "appended_byte": 3, "appended_frame": 3,
    "dotdot": 3, "absolute": 3, "symlink_then_write": 3, "symlink_out": 3,
    "hardlink_abs": 3, "hardlink_dotdot": 3, "chardev": 3, "fifo": 3, "setuid": 3,
    "duplicate": 3, "dir_then_file": 3, "extra": 3, "missing": 3, "size_lie": 3,
    "hash_lie": 3, "truncated_zstd": 3, "sparse": 3,
    # the manifest itself (signed but unacceptable)
    "bad_path_in_manifest": 3, "unknown_format": 4,
    # names every file system must accept unchanged (use with --name, or the collision case)
    "case_collision": 3,
    # an entry whose header claims 4 GiB of zeros (a few hundred KB compressed)
    "bomb": 3,
    # signed manifest fields outside their allow-lists (issue 11, finding 10)
    "version_slash": 3, "bundle_id_newline": 3, "created_unpadded": 3, "cuferry_entry": 3,
    # the payload as independent zstd frames with an index (payload.frames, issue 29): valid,
    # then signed indexes that do not fit the payload (checked before use) or its frames
    "frames_valid": 0, "frames_gap": 3, "frames_overlap": 3, "frames_sum": 3,
    "frames_merged": 3, "frames_size_moved": 3,
}
FRAME_TAR = 2048  # tar bytes per frame in the frames_* cases: the small tar makes several
# Cases that mean something only with --platform windows-* (listed only with it: the Linux tests
# run --list's cases with the default platform): a signed manifest listing a link, which Windows
# bundles never carry (on Linux the same bundle is valid).
WINDOWS_CASES = {"listed_symlink": 3}


def run(cmd, data=None):
    return subprocess.run(cmd, input=data, stdout=subprocess.PIPE, check=True).stdout


def spki_of(key):
    return run(["openssl", "pkey", "-in", key, "-pubout", "-outform", "DER"])


def sign(key, data):
    der = run(["openssl", "dgst", "-sha256", "-sign", key], data)
    # DER SEQUENCE { INTEGER r, INTEGER s } -> r || s
    i = 2 if der[1] < 0x80 else 3
    vals = []
    for _ in range(2):
        assert der[i] == 2
        n = der[i + 1]
        vals.append(int.from_bytes(der[i + 2:i + 2 + n], "big"))
        i += 2 + n
    return vals[0].to_bytes(32, "big") + vals[1].to_bytes(32, "big")


def entry(name, data=b"", mode=0o644, kind=tarfile.REGTYPE, link="", size=None):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = link
    info.size = len(data) if size is None else size
    info.mtime = 1760486400
    return info, data


def is_windows(args):
    return args.platform.startswith("windows")


def lib_name(args):
    """The library entry most cases aim at."""
    return "bin/cudnn64_9.dll" if is_windows(args) else "lib/libcudnn.so.9"


def link_name(args):
    """The symbolic link of the tree: on Windows, where bundles have none, a name unlisted."""
    return "bin/cudnn64.dll" if is_windows(args) else "lib/libcudnn.so"


def base_tree(args):
    a = b"cuferry test library " + args.salt.encode() + b"\n" * 3000
    h = b"#define CUDNN_MAJOR 9\n"
    return [("include/cudnn_version.h", h, 0o644), (lib_name(args), a, 0o755)]


def build(args):
    files = base_tree(args)
    if args.name is not None:
        data = None
        if args.data is not None:
            with open(args.data, "rb") as f:
                data = f.read()
        files = [(args.name, d if data is None else data, m) if p == "include/cudnn_version.h"
                 else (p, d, m) for p, d, m in files]
    if args.case == "case_collision" and is_windows(args):
        # the second would overwrite the first on NTFS, directory and name alike
        files += [("bin/a.dll", b"lower", 0o644), ("BIN/A.DLL", b"upper", 0o644)]
    elif args.case == "case_collision":
        files += [("lib/F.dll", b"upper", 0o644), ("lib/f.dll", b"lower", 0o644)]
    if args.case == "cuferry_entry":
        files += [(".cuferry/report.json", b"{}", 0o644)]
    manifest_files = []
    entries = []
    for path, data, mode in sorted(files):
        manifest_files.append({"path": path, "type": "file", "size": len(data),
                               "mode": "%04o" % mode, "sha256": hashlib.sha256(data).hexdigest()})
        entries.append(entry(path, data, mode))
    if not is_windows(args) or args.case == "listed_symlink":
        link, target = link_name(args), os.path.basename(lib_name(args))
        manifest_files.append({"path": link, "type": "symlink", "target": target})
        entries.append(entry(link, kind=tarfile.SYMTYPE, link=target, mode=0o777))
    manifest_files.sort(key=lambda f: f["path"].encode())
    entries.sort(key=lambda e: e[0].name.encode())
    return manifest_files, entries


def mutate_entries(args, entries):
    """Payload defects: the manifest stays valid, the tar does not match it."""
    case, outside, libname, linkname = args.case, args.outside, lib_name(args), link_name(args)
    if args.tar_name is not None:
        return [entry(args.tar_name, d, i.mode) if i.name == "include/cudnn_version.h" else (i, d)
                for i, d in entries]
    lib = [e for e in entries if e[0].name == libname][0]
    rest = [e for e in entries if e is not lib]
    data = lib[1]

    def swap(*new):
        """new in the library's place, so that only the intended defect shows (on Linux the
        library sorts last; on Windows bin/ sorts first)."""
        return [x for e in entries for x in (new if e is lib else (e,))]
    if case == "dotdot":
        return [entry("lib/../../../../outside/x", data, 0o755)] + rest
    if case == "absolute":
        return [entry(outside + "/abs", data, 0o755)] + rest
    if case == "symlink_then_write":
        return [e for e in swap(entry(linkname, kind=tarfile.SYMTYPE, link=outside),
                                entry(linkname + "/planted", data, 0o644), lib)
                if e[0].name != linkname or e[0].linkname == outside]
    if case == "symlink_out":
        return [e for e in entries if e[0].name != linkname] + \
            [entry(linkname, kind=tarfile.SYMTYPE, link="../../../../outside/target")]
    if case == "hardlink_abs":
        return swap(entry(libname, kind=tarfile.LNKTYPE, link=outside + "/target"))
    if case == "hardlink_dotdot":
        return swap(entry(libname, kind=tarfile.LNKTYPE, link="../../outside/target"))
    if case == "chardev":
        info, _ = entry(libname, kind=tarfile.CHRTYPE, mode=0o666)
        info.devmajor, info.devminor = 1, 3
        return swap((info, b""))
    if case == "fifo":
        return swap(entry(libname, kind=tarfile.FIFOTYPE))
    if case == "setuid":
        return swap(entry(libname, data, 0o4755))
    if case == "duplicate":
        return entries + [lib]
    if case == "dir_then_file":
        return [entry(libname, kind=tarfile.DIRTYPE, mode=0o755)] + entries
    if case == "extra":
        return entries + [entry("lib/zz-extra", b"extra", 0o644)]
    if case == "missing":
        return rest
    if case == "size_lie":
        return swap(entry(libname, data + b"more", 0o755))
    if case == "hash_lie":
        return swap(entry(libname, bytes([data[0] ^ 1]) + data[1:], 0o755))
    if case == "sparse":
        info, d = entry(libname, data, 0o755)
        info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0",
                            "GNU.sparse.name": libname,
                            "GNU.sparse.realsize": str(len(data))}
        return swap((info, d))
    return entries


def bomb_payload(entries, libname):
    """The library entry's header claims 4 GiB; 4 GiB of zeros stream through zstd (never held
    in memory); the manifest still says the real, small size."""
    zeros = 4 << 30
    proc = subprocess.Popen(["zstd", "-q", "-c", "-3", "--long=27"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    out = []
    reader = __import__("threading").Thread(target=lambda: out.append(proc.stdout.read()))
    reader.start()
    total = 0
    for info, data in entries:
        if info.name == libname:
            info.size = zeros
            hdr = info.tobuf(format=tarfile.PAX_FORMAT)
            proc.stdin.write(hdr)
            block = bytes(1 << 20)
            for _ in range(zeros >> 20):
                proc.stdin.write(block)
            total += len(hdr) + zeros
        else:
            body = data if info.type == tarfile.REGTYPE else b""
            t = info.tobuf(format=tarfile.PAX_FORMAT) + body + bytes(-len(body) % 512)
            proc.stdin.write(t)
            total += len(t)
    proc.stdin.write(bytes(1024))
    proc.stdin.close()
    reader.join()
    proc.wait()
    return total + 1024, out[0]


def tar_bytes(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for info, data in entries:
            t.addfile(info, io.BytesIO(data) if info.type in (tarfile.REGTYPE, tarfile.AREGTYPE) else None)
    return buf.getvalue()


def framed_payload(tar, case):
    """The tar as independent zstd frames, the bundler's layout, with its index; then case's
    defect in the index (the payload itself stays valid)."""
    payload, frames = b"", []
    for at in range(0, len(tar), FRAME_TAR):
        z = run(["zstd", "-q", "-c", "-3"], tar[at:at + FRAME_TAR])
        frames.append({"offset": len(payload), "size": len(z),
                       "uncompressed_size": len(tar[at:at + FRAME_TAR])})
        payload += z
    assert len(frames) >= 3, "the frames cases need three frames"
    if case == "frames_gap":
        frames[1]["offset"] += 1
    elif case == "frames_overlap":
        frames[2]["offset"] -= 1
    elif case == "frames_sum":
        frames[-1]["uncompressed_size"] += 512
    elif case == "frames_merged":
        frames[0]["size"] += frames[1]["size"]
        frames[0]["uncompressed_size"] += frames[1]["uncompressed_size"]
        del frames[1]
    elif case == "frames_size_moved":
        frames[0]["uncompressed_size"] -= 1
        frames[1]["uncompressed_size"] += 1
    return payload, frames


def frame(header, sigs):
    body = b"CUFERRY1" + struct.pack("<I", len(header)) + header + struct.pack("<I", len(sigs))
    for keyid, spki, sig in sigs:
        body += keyid + struct.pack("<H", len(spki)) + spki + sig
    return struct.pack("<II", 0x184D2A5C, len(body)) + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--key", action="append", default=[])
    ap.add_argument("--out")
    ap.add_argument("--case", default="valid")
    ap.add_argument("--outside", default="/nonexistent-outside")
    ap.add_argument("--counter", type=int, default=1000)
    ap.add_argument("--expires")
    ap.add_argument("--created", default="2026-01-01T00:00:00Z")
    ap.add_argument("--platform", default="linux-x86_64")
    ap.add_argument("--salt", default="")
    ap.add_argument("--version", default="9.19.0.56")
    ap.add_argument("--cuda", default="13", help="the CUDA variant (major) it is built for")
    ap.add_argument("--bundle-id")
    ap.add_argument("--driver-min", default="580.65.06")
    ap.add_argument("--cc-min", default="7.5",
                    help="the recorded floor (an old bundle's, made before the table knew one)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--name", help="rename include/cudnn_version.h to this (hostile) name")
    ap.add_argument("--data", help="with --name: the renamed file's bytes, from this file")
    ap.add_argument("--tar-name", help="the same, in the payload only: the manifest stays valid")
    ap.add_argument("--fuzz-seed", action="store_true",
                    help="write [u32 n][manifest][tar] for tests/fuzz/fuzz_unpack.c instead")
    args = ap.parse_args()
    if args.list:
        for name, code in dict(CASES, **(WINDOWS_CASES if is_windows(args) else {})).items():
            print(name, code)
        return
    case = args.case
    files, entries = build(args)
    entries = mutate_entries(args, entries)
    if case == "bomb":
        tar = b""
        tar_len, payload = bomb_payload(entries, lib_name(args))
    else:
        tar = tar_bytes(entries)
        tar_len = len(tar)
        payload = run(["zstd", "-q", "-c", "-3"], tar)
    frames = None
    if case.startswith("frames_"):
        payload, frames = framed_payload(tar, case)
    if case == "truncated_zstd":
        payload = payload[: len(payload) * 2 // 3]
    if case == "appended_frame":
        payload_signed = payload
    else:
        payload_signed = payload
    chunks = [hashlib.sha256(payload_signed[i:i + CHUNK]).hexdigest()
              for i in range(0, len(payload_signed), CHUNK)]
    if case == "bad_path_in_manifest":
        files[0]["path"] = "include/CON.h"
    manifest = {
        "format": "cuferry-bundle-9" if case == "unknown_format" else "cuferry-bundle-1",
        "bundle_id": args.bundle_id or "cudnn-%s-cuda%s-%s" % (args.version, args.cuda, args.platform),
        "counter": args.counter, "source_date_epoch": 1760486400, "created": args.created,
        "expires": args.expires, "platform": args.platform,
        "cudnn": {"version": args.version, "cuda_variant": args.cuda,
                  "source": {"kind": "dir", "name": "forge", "sha256": None, "size": 0}},
        "cuda": {"release": args.cuda + ".0", "components": []},
        "requires": {"driver_min": args.driver_min, "compute_capability_min": args.cc_min},
        "payload": {"compressed_size": len(payload_signed), "uncompressed_size": tar_len,
                    "chunk_size": CHUNK, "chunk_sha256": chunks},
        "files": files,
        "env": {"PATH": ["bin"], "LD_LIBRARY_PATH": []} if is_windows(args) else
        {"PATH": [], "LD_LIBRARY_PATH": ["lib"]},
    }
    if frames is not None:
        manifest["payload"]["frames"] = frames
    if case == "version_slash":
        manifest["cudnn"]["version"] = "9.19.0.56/lib"
    if case == "bundle_id_newline":
        manifest["bundle_id"] = "cudnn-9\n2026-01-01T00:00:00Z unpacker: error: FORGED\x1b[2J"
    if case == "created_unpadded":
        manifest["created"] = "2026-1-1T0:0:0Z"
    header = json.dumps(manifest, indent=1, sort_keys=True).encode()
    if args.fuzz_seed:
        with open(args.out, "wb") as f:
            f.write(struct.pack("<I", len(header)) + header + tar)
        return
    sigs = []
    for key in args.key:
        spki = spki_of(key)
        sigs.append([hashlib.sha256(spki).digest(), spki, sign(key, header)])
    s = sigs[0] if sigs else None
    if case == "unsigned":
        sigs = []
    elif case == "sig_r0":
        s[2] = bytes(32) + s[2][32:]
    elif case == "sig_s0":
        s[2] = s[2][:32] + bytes(32)
    elif case == "sig_r_ge_n":
        # r + n is still r modulo n: only the range check can refuse it
        r = int.from_bytes(s[2][:32], "big")
        s[2] = (r + N if r + N < 2 ** 256 else N).to_bytes(32, "big") + s[2][32:]
    elif case == "keyid_lie":
        s[0] = hashlib.sha256(b"another key").digest()
    elif case == "keyid_lie_second":
        sigs[-1][0] = hashlib.sha256(b"another key").digest()
    elif case == "sig_high_s":
        # (r, n - s): the same signature's other valid form (ECDSA malleability)
        sv = int.from_bytes(s[2][32:], "big")
        s[2] = s[2][:32] + (N - sv).to_bytes(32, "big")
    out = frame(header, [tuple(x) for x in sigs])
    if case in ("sig_len63", "sig_len65"):
        # the frame's fixed 64-byte field: a shorter or longer signature shifts every byte after
        body_sig = s[2][:63] if case == "sig_len63" else s[2] + b"\0"
        body = b"CUFERRY1" + struct.pack("<I", len(header)) + header + struct.pack("<I", 1)
        body += s[0] + struct.pack("<H", len(s[1])) + s[1] + body_sig
        out = struct.pack("<II", 0x184D2A5C, len(body)) + body
    if case == "header_bitflip":
        i = out.index(b'"counter"')
        out = out[:i] + bytes([out[i] ^ 0x01]) + out[i + 1:]
    if case == "truncated_frame":
        out = out[: len(out) - 40]
    if case == "frame_over_cap":
        out = struct.pack("<II", 0x184D2A5C, (16 << 20) + 1) + out[8:]
    out += payload
    if case == "payload_bitflip":
        k = len(out) - len(payload) + min(len(payload) - 1, CHUNK + 10)
        out = out[:k] + bytes([out[k] ^ 0x40]) + out[k + 1:]
    if case == "appended_byte":
        out += b"\0"
    if case == "appended_frame":
        out += run(["zstd", "-q", "-c"], b"unsigned extra data")
    with open(args.out, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
