#!/usr/bin/env python3
"""mirror_server.py ROOT PORTFILE [--drop-once SUFFIX:BYTES] [--no-range]

A stand-in for NVIDIA's download mirror on 127.0.0.1: serves ROOT with directory listings
and HTTP Range requests. --drop-once cuts the connection after BYTES bytes the first time a
path ending in SUFFIX is fetched, to test resumed downloads. Writes the chosen port to
PORTFILE. Stops by itself after 15 minutes, so a failed test never leaves it running."""
import http.server
import os
import sys
import threading


class Handler(http.server.SimpleHTTPRequestHandler):
    drop = {}          # suffix -> bytes, consumed once
    allow_range = True

    def log_message(self, fmt, *args):
        sys.stderr.write("mirror: " + (fmt % args) + "\n")

    def send_head_range(self, path):
        size = os.path.getsize(path)
        start, end = 0, size - 1
        rng = self.headers.get("Range") if self.allow_range else None
        if rng and rng.startswith("bytes="):
            a, _, b = rng[6:].partition("-")
            start = int(a) if a else 0
            end = int(b) if b else size - 1
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.end_headers()
                return None
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        return start, end

    def do_GET(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path) or not os.path.isfile(path):
            return super().do_GET()
        span = self.send_head_range(path)
        if span is None:
            return
        start, end = span
        limit = None
        for suffix in list(Handler.drop):
            if self.path.endswith(suffix):
                limit = Handler.drop.pop(suffix)
        with open(path, "rb") as f:
            f.seek(start)
            left = end - start + 1
            sent = 0
            while left > 0:
                chunk = f.read(min(65536, left))
                if not chunk:
                    break
                if limit is not None and sent + len(chunk) > limit:
                    self.wfile.write(chunk[: limit - sent])
                    self.wfile.flush()
                    self.connection.shutdown(2)  # the broken connection
                    return
                self.wfile.write(chunk)
                sent += len(chunk)
                left -= len(chunk)


def main():
    root, portfile = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    while args:
        opt = args.pop(0)
        if opt == "--drop-once":
            suffix, _, n = args.pop(0).rpartition(":")
            Handler.drop[suffix] = int(n)
        elif opt == "--no-range":
            Handler.allow_range = False
    os.chdir(root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Timer(900, server.shutdown).start()
    with open(portfile + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
