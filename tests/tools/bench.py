#!/usr/bin/env python3
"""bench.py BUILD_DIR - make bench: cuferry against the baselines, side by side, in one run,
on the real cuDNN of this machine (the CUDA toolkit's lib/ and include/).

Every row is the median of BENCH_RUNS runs (default 3; the unpack rows take turns, run after
run); the slow baselines (xz -6,
zstd -19) run BENCH_SLOW_RUNS times (default 1). BENCH_CUDA_LIBS=1 bundles cuBLAS/NVRTC too.
Wall time and peak RSS come from /usr/bin/time. Results: a table on stdout and
BUILD_DIR/bench/results.md."""
import os
import shutil
import statistics
import subprocess
import sys
import time

B = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
W = os.path.join(B, "bench")
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SLOW = int(os.environ.get("BENCH_SLOW_RUNS", "1"))
CUDA_LIBS = os.environ.get("BENCH_CUDA_LIBS") == "1"
BUNDLER, UNPACKER = os.path.join(B, "bundler"), os.path.join(B, "unpacker")
# The seams builds: CUFERRY_DECODE_WORKERS picks the decoder's workers, CUFERRY_PACK_CHUNK_SIZE
# and CUFERRY_PACK_FRAME_SIZE the bundle's chunks and frames (the shipped programs have none).
UNPACKER_SEAMS, BUNDLER_SEAMS = os.path.join(B, "test-bin", "unpacker"), os.path.join(B, "bundler-test-seams")
# BENCH_ONLY=decode: only the decode rows (parallel vs one thread, peak RSS by chunk size).
ONLY = os.environ.get("BENCH_ONLY", "")


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


def timed(cmd, runs, before=None):
    """median wall seconds and max peak RSS (KiB) of cmd over runs"""
    walls, rss = [], []
    for _ in range(runs):
        if before:
            sh(before)
        out = os.path.join(W, "time.out")
        t0 = time.monotonic()
        sh("/usr/bin/time -f '%%M' -o %s sh -c %s >/dev/null 2>&1" % (out, shq(cmd)))
        walls.append(time.monotonic() - t0)
        rss.append(int(open(out).read().split()[-1]))
    return statistics.median(walls), max(rss)


def interleaved(rows, runs):
    """rows: (name, cmd, before); each run runs every row once, in turn. name -> (median, peak)"""
    walls = {name: [] for name, _, _ in rows}
    rss = {name: 0 for name, _, _ in rows}
    for _ in range(runs):
        for name, cmd, before in rows:
            t, m = timed(cmd, 1, before)
            walls[name].append(t)
            rss[name] = max(rss[name], m)
    return {name: (statistics.median(walls[name]), rss[name]) for name in walls}


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def size(path):
    return os.path.getsize(path)


def validation_rows(cuda):
    """validation's CPU-side cost on a fake cuDNN that returns at once, against the time the
    probe takes to load the real cuDNN; both from report.json's timings, median of RUNS"""
    import json
    tools = os.path.join(TOP, "tests", "tools")
    fake = os.path.join(W, "fake-src")
    os.makedirs(os.path.join(fake, "lib"))
    os.makedirs(os.path.join(fake, "include"))
    open(os.path.join(fake, "include", "cudnn_version.h"), "w").write(
        "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n")
    conf = os.path.join(W, "fake.conf")
    open(conf, "w").write("fast=1\n")
    flags = "-I%s -I%s -DFAKE_CONF='\"%s\"'" % (TOP, tools, conf)
    lib = os.path.join(fake, "lib")
    sh("cc -shared -fPIC -o %s/libcudnn_graph.so.9 -Wl,-soname,libcudnn_graph.so.9 %s/fakegraph.c" % (lib, tools))
    sh("cc -shared -fPIC -O2 %s -o %s/libcudnn.so.9 -Wl,-soname,libcudnn.so.9 -Wl,-rpath,'$ORIGIN' "
       "%s/fakecudnn.c %s/fakebackend.c %s/unpacker/validate/convref.c %s/libcudnn_graph.so.9 -lm -ldl"
       % (flags, lib, tools, tools, TOP, lib))
    # The driver's version comes from its file name here (no /proc/driver/nvidia).
    sh("cc -shared -fPIC %s -o %s/libcuda.so.580.95.05 -Wl,-soname,libcuda.so.1 %s/fakecuda.c && "
       "ln -sf libcuda.so.580.95.05 %s/libcuda.so.1" % (flags, W, tools, W))
    # The CUDA component list, offline: from the toolkit's own JSON (as gpu-run.sh does).
    sh("%s cuda-json --from-dir %s -o %s/mirror >/dev/null" % (BUNDLER, cuda, W))
    sh("%s create --from-dir %s --cuda 13 --key k.key -o fake.bundle --level 1 -q --mirror file://%s/mirror >/dev/null"
       % (BUNDLER, fake, W))
    sh("%s install fake.bundle --root %s/fr --trust k.pub --no-validate >/dev/null" % (UNPACKER, W))

    def report(root):
        return json.load(open(os.path.join(root, "opt/cudnn/current/.cuferry/report.json")))["validation"]["timings_s"]

    comp, libt, files = [], [], []
    for _ in range(RUNS):
        subprocess.run("CUFERRY_LIBCUDA=%s/libcuda.so.1 %s validate --root %s/fr --trust k.pub >/dev/null 2>&1"
                       % (W, UNPACKER, W), shell=True)
        comp.append(report(W + "/fr")["compute_gpu0"])
        subprocess.run("%s validate --root %s/r --trust k.pub >/dev/null 2>&1" % (UNPACKER, W), shell=True)
        t = report(W + "/r")
        libt.append(t["library"])
        files.append(t["files"])
    # The old reference: one whole forward pass of N8 C3 224x224 K64 3x3 on the CPU (of the
    # three such passes validation used to make per shape), timed with the fake's own code.
    old = os.path.join(W, "oldref")
    open(old + ".c", "w").write(r'''
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "unpacker/validate/convref.h"
int main(void) {
	struct conv_shape s = { 8, 3, 224, 224, 64, 3, 3, 1, 1, 1, 1, 0, 0 };
	conv_shape_finish(&s);
	float *x = malloc(conv_x_count(&s) * 4), *w = malloc(conv_w_count(&s) * 4);
	float *y = malloc(conv_y_count(&s) * 4), *m = malloc(conv_y_count(&s) * 4);
	conv_fill(x, conv_x_count(&s), 1); conv_fill(w, conv_w_count(&s), 2);
	struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
	conv_ref_forward(&s, x, w, y, m);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	return y[7] > 1e30;
}
''')
    sh("cc -O2 -I%s -o %s %s.c %s/unpacker/validate/convref.c -lm" % (TOP, old, old, TOP))
    oldt = float(subprocess.run([old], capture_output=True, text=True).stdout)
    return {"compute": statistics.median(comp), "library": statistics.median(libt),
            "files": statistics.median(files), "old": oldt}


def decode_rows(cuda, libs, env):
    """the same bundle decoded by one worker and by one per core, taking turns, run after run;
    zstd -dc of it on one thread beside them; then the peak RSS of an install of the same tree
    bundled with 1 MiB and with 64 MiB chunks (the format's largest)"""
    if not os.path.exists("ours.bundle"):
        sh("%s %s create --from-dir %s %s --key k.key -o ours.bundle -q >/dev/null" % (env, BUNDLER, cuda, libs))
    sh("%s CUFERRY_PACK_CHUNK_SIZE=67108864 %s create --from-dir %s %s --key k.key -o c64.bundle -q >/dev/null"
       % (env, BUNDLER_SEAMS, cuda, libs))
    sh("%s CUFERRY_PACK_FRAME_SIZE=0 %s create --from-dir %s %s --key k.key -o one.bundle -q >/dev/null"
       % (env, BUNDLER_SEAMS, cuda, libs))
    fresh = "rm -rf r && mkdir r && sync"
    inst = "%s install %%s --root %s/r --trust k.pub --no-validate" % (UNPACKER_SEAMS, W)
    ver = "%s verify %%s --trust k.pub" % UNPACKER_SEAMS
    t = interleaved([
        ("verify 1", "CUFERRY_DECODE_WORKERS=1 " + ver % "ours.bundle", "sync"),
        ("verify N", ver % "ours.bundle", "sync"),
        ("verify one", ver % "one.bundle", "sync"),
        ("install 1", "CUFERRY_DECODE_WORKERS=1 " + inst % "ours.bundle", fresh),
        ("install N", inst % "ours.bundle", fresh),
        ("zstd", "zstd -dc ours.bundle >/dev/null", "sync"),
        ("zstd one", "zstd -dc one.bundle >/dev/null", "sync"),
        ("install 64", inst % "c64.bundle", fresh),
    ], RUNS)
    return t, size("ours.bundle"), size("one.bundle")


def decode_table(d, p):
    t, framed, one = d
    p("| decode (the same bundle; %d cores here) | time | vs one worker | peak memory |" % os.cpu_count())
    p("| --- | ---: | ---: | ---: |")
    p("| unpacker verify, one decoding worker | %.2f s | 1.00x | %.0f MiB |" % (t["verify 1"][0], t["verify 1"][1] / 1024))
    p("| unpacker verify, one worker per core | %.2f s | %.2fx | %.0f MiB |" % (t["verify N"][0], t["verify 1"][0] / t["verify N"][0], t["verify N"][1] / 1024))
    p("| unpacker verify, the same tree as one zstd stream (no index: libarchive, one thread) | %.2f s | %.2fx | %.0f MiB |" % (t["verify one"][0], t["verify 1"][0] / t["verify one"][0], t["verify one"][1] / 1024))
    p("| unpacker install --no-validate, one decoding worker | %.2f s | 1.00x | %.0f MiB |" % (t["install 1"][0], t["install 1"][1] / 1024))
    p("| unpacker install --no-validate, one worker per core | %.2f s | %.2fx | %.0f MiB |" % (t["install N"][0], t["install 1"][0] / t["install N"][0], t["install N"][1] / 1024))
    p("| zstd -dc of it (one thread, decodes only) | %.2f s | | |" % t["zstd"][0])
    p("| zstd -dc of the one-stream bundle | %.2f s | | |" % t["zstd one"][0])
    p("")
    p("| install peak RSS (RSS bound 256 MiB) | peak memory |")
    p("| --- | ---: |")
    p("| 1 MiB chunks (the default) | %.0f MiB |" % (t["install N"][1] / 1024))
    p("| 64 MiB chunks (the format's largest) | %.0f MiB |" % (t["install 64"][1] / 1024))
    p("")
    p("Frames: the indexed bundle is %.0f bytes, %.2f %% more than the same tree as one stream (%.0f)."
      % (framed, (framed - one) * 100.0 / one, one))


def main():
    shutil.rmtree(W, ignore_errors=True)
    os.makedirs(W)
    os.chdir(W)
    cuda = subprocess.check_output(["sh", os.path.join(TOP, "tests", "tools", "cuda-dir.sh")], text=True).strip()
    sh("%s keygen k >/dev/null" % BUNDLER)
    libs = "--with-cuda-libs" if CUDA_LIBS else ""
    env = "SOURCE_DATE_EPOCH=1760486400"
    rows = []
    if ONLY == "decode":
        out = []
        decode_table(decode_rows(cuda, libs, env), out.append)
        text = "\n".join(out) + "\n"
        print(text)
        open(os.path.join(W, "results.md"), "w").write(text)
        shutil.rmtree("r", ignore_errors=True)
        return

    # The payload tree, as the bundle installs it: the baselines archive the same files.
    sh("%s %s create --from-dir %s %s --key k.key -o ref.bundle --level 1 -q >/dev/null" % (env, BUNDLER, cuda, libs))
    os.makedirs("tree")
    sh("zstd -dc ref.bundle | tar -x -C tree")
    sh("cd tree && find . -type f -print0 | sort -z | xargs -0 sha256sum > ../SUMS")
    raw = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk("tree") for f in fs
              if not os.path.islink(os.path.join(d, f)))

    # ---- bundle ----
    ours_t, ours_m = timed("%s %s create --from-dir %s %s --key k.key -o ours.bundle -q" % (env, BUNDLER, cuda, libs), RUNS,
                           before="rm -f ours.bundle SHA256SUMS")
    xz_t, _ = timed("tar -cJf base.tar.xz -C tree .", SLOW, before="rm -f base.tar.xz")
    zs_t, _ = timed("tar --zstd -cf base.tar.zst -C tree .", RUNS, before="rm -f base.tar.zst")
    z19_t, _ = timed("tar -cf - -C tree . | zstd -19 --long=27 -T0 -q -o base19.tar.zst", SLOW, before="rm -f base19.tar.zst")
    xz_s = size("base.tar.xz")
    bundle_rows = [
        ("cuferry bundler (default: zstd -9, long 27, signed, self-checked)", ours_t, size("ours.bundle")),
        ("tar -cJf (xz -6, NVIDIA's format)", xz_t, xz_s),
        ("tar --zstd (zstd -3)", zs_t, size("base.tar.zst")),
        ("tar | zstd -19 --long=27 -T0", z19_t, size("base19.tar.zst")),
    ]
    sweep = []
    for level in (3, 6, 9, 12, 15):
        t, _ = timed("%s %s create --from-dir %s %s --key k.key -o L%d.bundle --level %d -q" % (env, BUNDLER, cuda, libs, level, level), 1,
                     before="rm -f L%d.bundle" % level)
        sweep.append((level, t, size("L%d.bundle" % level)))

    # ---- unpack and verify ----
    # The baselines read the same bundle (zstd skips its signed skippable frame), and the
    # commands take turns, run after run, so that drift in the machine hits all of them alike.
    # Each starts from a synced, empty target: no one pays for another's write-back.
    unpack = interleaved([
        ("install", "%s install ours.bundle --root %s/r --trust k.pub --no-validate" % (UNPACKER, W),
         "rm -rf r && mkdir r && sync"),
        ("untar", "zstd -dc ours.bundle | tar -x -C x", "rm -rf x && mkdir x && sync"),
        ("untar+sync", "zstd -dc ours.bundle | tar -x -C x && sync -f x", "rm -rf x && mkdir x && sync"),
        ("xz+sha", "tar -xJf base.tar.xz -C x && cd x && sha256sum --quiet -c ../SUMS",
         "rm -rf x && mkdir x && sync"),
        ("verify", "%s verify ours.bundle --trust k.pub" % UNPACKER, "sync"),
    ], RUNS)
    un_t, un_m = unpack["install"]
    zx_t, _ = unpack["untar"]
    zxs_t, _ = unpack["untar+sync"]
    xzx_t, _ = unpack["xz+sha"]
    ver_t, ver_m = unpack["verify"]

    val = validation_rows(cuda)
    dec = decode_rows(cuda, libs, env)

    # ---- SHA-256 ----
    ours_sha = float(subprocess.run([os.path.join(B, "sha256_speed")], capture_output=True, text=True).stdout)
    port_sha = float(subprocess.run([os.path.join(B, "sha256_speed"), "--portable"], capture_output=True, text=True).stdout)
    o = subprocess.run("openssl speed -evp sha256 -bytes 1048576 -seconds 3 2>/dev/null | tail -1",
                       shell=True, capture_output=True, text=True).stdout.split()
    ossl_sha = float(o[-1].rstrip("k")) * 1000 / 1e6

    cpu = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")]
    out = []
    p = out.append
    p("Machine: %s, %d cores; payload: cuDNN from %s%s, %.0f MB in %d files. Median of %d runs (xz -6 and zstd -19: %d)."
      % (cpu[0] if cpu else "?", os.cpu_count(), cuda, " with cuBLAS/NVRTC" if CUDA_LIBS else "", raw / 1e6,
         sum(len(fs) for _, _, fs in os.walk("tree")), RUNS, SLOW))
    p("")
    p("| bundle | time | size | size vs xz -6 | speed vs xz -6 |")
    p("| --- | ---: | ---: | ---: | ---: |")
    for name, t, s in bundle_rows:
        p("| %s | %.1f s | %.1f MB | %.3f | %.1fx |" % (name, t, s / 1e6, s / xz_s, xz_t / t))
    p("")
    p("| bundler --level | time | size vs xz -6 |")
    p("| ---: | ---: | ---: |")
    for level, t, s in sweep:
        p("| %d | %.1f s | %.3f |" % (level, t, s / xz_s))
    p("")
    p("| unpack and verify | time | vs zstd -dc \\| tar -x | peak memory |")
    p("| --- | ---: | ---: | ---: |")
    p("| cuferry unpacker install (signature, every chunk and file hash, fsync, atomic switch) | %.2f s | %.2fx | %.0f MiB |" % (un_t, un_t / zx_t, un_m / 1024))
    p("| cuferry unpacker verify (no writes) | %.2f s | %.2fx | %.0f MiB |" % (ver_t, ver_t / zx_t, ver_m / 1024))
    p("| zstd -dc BUNDLE \\| tar -x (the same bundle; verifies nothing) | %.2f s | 1.00x | |" % zx_t)
    p("| zstd -dc BUNDLE \\| tar -x, then sync | %.2f s | %.2fx | |" % (zxs_t, zxs_t / zx_t))
    p("| tar -xJf + sha256sum -c | %.2f s | %.2fx | |" % (xzx_t, xzx_t / zx_t))
    p("")
    decode_table(dec, p)
    p("")
    p("| validation (no GPU here) | time | vs loading cuDNN |")
    p("| --- | ---: | ---: |")
    p("| step 2 on the real cuDNN: the probe loads libcudnn and every sub-library | %.2f s | 1.00x |" % val["library"])
    p("| step 6's own CPU work, full (both shapes, every algorithm; sampled CPU reference, whole-tensor cross-check; fake cuDNN returning at once) | %.2f s | %.2fx |" % (val["compute"], val["compute"] / val["library"]))
    p("| the same, the old way (the whole reference on the CPU: one full forward pass of the big shape, single-threaded) | %.2f s | %.2fx |" % (val["old"], val["old"] / val["library"]))
    p("| step 1 on the real cuDNN: every file's SHA-256, in parallel | %.2f s | %.2fx |" % (val["files"], val["files"] / val["library"]))
    p("")
    p("| SHA-256 (1 MiB updates) | MB/s | vs OpenSSL |")
    p("| --- | ---: | ---: |")
    p("| cuferry (%s) | %.0f | %.2f |" % ("x86 SHA extensions" if ours_sha > 1.5 * port_sha else "portable", ours_sha, ours_sha / ossl_sha))
    p("| cuferry, mbedTLS fallback | %.0f | %.2f |" % (port_sha, port_sha / ossl_sha))
    p("| openssl speed -evp sha256 | %.0f | 1.00 |" % ossl_sha)
    p("")
    p("Targets: install %.2fx zstd|tar (<= 1.2), %.1fx faster than tar -xJf + sha256sum (>= 4); "
      "SHA-256 %.2fx OpenSSL (>= 0.85); default bundle %.3fx xz -6 size (<= 1.03), %.0fx faster (>= 20); "
      "unpacker peak %.0f MiB (< 256), bundler peak %.0f MiB."
      % (un_t / zx_t, xzx_t / un_t, ours_sha / ossl_sha, size("ours.bundle") / xz_s, xz_t / ours_t,
         un_m / 1024, ours_m / 1024))
    text = "\n".join(out) + "\n"
    print(text)
    open(os.path.join(W, "results.md"), "w").write(text)
    for d in ("tree", "x", "r"):
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
