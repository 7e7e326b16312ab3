#!/usr/bin/env python3
"""arm-sandbox.py ROOT CMD... - run CMD chrooted into ROOT, a tree of aarch64 programs and
libraries, under qemu-aarch64-static, as on an aarch64 machine.

qemu-user alone cannot run a program that executes itself (the unpacker's validation probe):
the kernel does not know how to start the aarch64 child. So CMD runs in a private user and
mount namespace in which binfmt_misc is mounted and qemu-aarch64-static registered for
aarch64 ELF files (Linux 6.7+ gives each user namespace its own binfmt_misc): the host's
binfmt settings are never touched. The O flag hands qemu the program as an open file: the
probe is executed from a sealed memfd (fexecve), which has no path qemu could open. IDs 0-65535 map to themselves, so root inside is root
outside and a program may still drop to `nobody`. ROOT/proc is the host's /proc, bound.

On an older kernel (Debian 12's 6.1) where the host already runs aarch64 programs through
binfmt_misc with the F flag (qemu-user-static with binfmt-support registers it), CMD runs
in a private mount namespace only, through that registration."""
import ctypes
import os
import sys

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
QEMU = "/usr/bin/qemu-aarch64-static"
# magic and mask of an aarch64 ELF executable or shared object (e_machine 183), escaped as
# the register file expects them (raw NULs would end the string)
ELF_MAGIC = rb"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00"
ELF_MASK = rb"\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff"
libc = ctypes.CDLL(None, use_errno=True)


def check(rc, what):
    if rc != 0:
        err = ctypes.get_errno()
        sys.exit("arm-sandbox: %s: %s" % (what, os.strerror(err)))


def mount(src, target, fstype, flags):
    check(libc.mount(src.encode(), target.encode(), fstype.encode() if fstype else None,
                     ctypes.c_ulong(flags), None), "mount " + target)


def host_handler():
    """True when the host's binfmt_misc already runs aarch64 ELF files, preopened (F)."""
    d = "/proc/sys/fs/binfmt_misc"
    try:
        names = os.listdir(d)
    except OSError:
        return False
    for n in names:
        try:
            text = open(os.path.join(d, n)).read()
        except OSError:
            continue
        if text.startswith("enabled") and "7f454c460201010000000000000000000200b700" in text \
                and any(l.startswith("flags:") and "F" in l for l in text.splitlines()):
            return True
    return False


def child(root, cmd, ready_w, go_r, use_host):
    if use_host:
        check(libc.unshare(CLONE_NEWNS), "unshare (mount namespace)")
        os.write(ready_w, b"h")
        mount("none", "/", None, MS_REC | MS_PRIVATE)
    else:
        check(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare (user namespaces disabled?)")
        os.write(ready_w, b"u")
        os.read(go_r, 1)  # the parent has written the ID maps
        mount("none", "/", None, MS_REC | MS_PRIVATE)
        try:
            mount("binfmt_misc", "/proc/sys/fs/binfmt_misc", "binfmt_misc", 0)
        except SystemExit:
            sys.exit("arm-sandbox: no binfmt_misc of its own in a user namespace (Linux 6.7 or "
                     "newer), and the host has no aarch64 handler (qemu-user-static with "
                     "binfmt-support registers one)")
        with open("/proc/sys/fs/binfmt_misc/register", "wb") as f:
            f.write(b":cuferry-aarch64:M::" + ELF_MAGIC + b":" + ELF_MASK + b":" + QEMU.encode() + b":FO")
    os.makedirs(os.path.join(root, "proc"), exist_ok=True)
    mount("/proc", os.path.join(root, "proc"), None, MS_BIND | MS_REC)
    os.chroot(root)
    os.chdir("/")
    os.execve(cmd[0], cmd, {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/root", "LC_ALL": "C"})


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: arm-sandbox.py ROOT CMD...")
    root, cmd = os.path.abspath(sys.argv[1]), sys.argv[2:]
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    use_host = host_handler()
    pid = os.fork()
    if pid == 0:
        try:
            child(root, cmd, ready_w, go_r, use_host)
        except OSError as e:
            print("arm-sandbox: %s" % e, file=sys.stderr)
        os._exit(127)
    # The parent keeps no write end of the child's pipe: a child that dies before it is
    # ready (unshare refused, as in a chroot) gives end-of-file here, not a hang.
    os.close(ready_w)
    os.close(go_r)
    ready = os.read(ready_r, 1)
    if not ready:
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status) or 127)
    if ready == b"u":
        for m in ("uid_map", "gid_map"):
            with open("/proc/%d/%s" % (pid, m), "w") as f:
                f.write("0 0 65536\n")
    os.write(go_w, b"g")
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
