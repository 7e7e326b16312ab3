#!/usr/bin/env python3
"""make_mirror.py CUDA_DIR OUT_DIR - an NVIDIA-style redist mirror made from real files.
(A mirror of the CUDA component list alone, for offline bundling: `bundler cuda-json`.)

Layout, archive names and JSON follow NVIDIA's (see tests/data/nvidia): cudnn/redist/
redistrib_9.19.0.json with cuda12/cuda13 variants, cuda/redist/redistrib_13.0.2.json with
libcublas and cuda_nvrtc, nccl/redist/redistrib_2.28.9-cuda1{2.9,3.0}.json. To keep the test fast the archives hold a subset of the real
libraries (the cuDNN loader and graph library, cuBLAS without cuBLASLt, NVRTC's builtins)."""
import hashlib
import json
import os
import subprocess
import sys
import tarfile

cuda, out = sys.argv[1], sys.argv[2]
lib = os.path.join(cuda, "lib64") if os.path.isdir(os.path.join(cuda, "lib64")) else os.path.join(cuda, "lib")


def archive(path, stem, members):
    """members: list of (name inside stem/, source file or ('link', target))"""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tar_path = path[:-3]
    with tarfile.open(tar_path, "w", format=tarfile.PAX_FORMAT) as t:
        for name, src in members:
            if isinstance(src, tuple):
                info = tarfile.TarInfo(stem + "/" + name)
                info.type = tarfile.SYMTYPE
                info.linkname = src[1]
                t.addfile(info)
            else:
                t.add(src, arcname=stem + "/" + name)
    subprocess.run(["xz", "-0", "-T2", "-f", tar_path], check=True)
    data = open(path, "rb").read()
    return {"relative_path": None, "sha256": hashlib.sha256(data).hexdigest(),
            "md5": hashlib.md5(data).hexdigest(), "size": str(len(data))}


def leaf(product, rel, info):
    info["relative_path"] = rel
    return info


lic = os.path.join(out, "LICENSE.txt")
os.makedirs(out, exist_ok=True)
with open(lic, "w") as f:
    f.write("NVIDIA cuDNN Software License Agreement (test mirror copy)\n")
headers = sorted(f for f in os.listdir(os.path.join(cuda, "include")) if f.startswith("cudnn"))
members = [("include/" + h, os.path.join(cuda, "include", h)) for h in headers]
members += [("lib/libcudnn.so.9", os.path.join(lib, "libcudnn.so.9")),
            ("lib/libcudnn.so", ("link", "libcudnn.so.9")),
            ("lib/libcudnn_graph.so.9", os.path.join(lib, "libcudnn_graph.so.9")),
            ("lib/libcudnn_graph.so", ("link", "libcudnn_graph.so.9"))]
members.append(("LICENSE", lic))

v = "9.19.0.56"
variants = {}
for major in ("12", "13"):
    stem = "cudnn-linux-x86_64-%s_cuda%s-archive" % (v, major)
    rel = "cudnn/linux-x86_64/%s.tar.xz" % stem
    variants["cuda" + major] = leaf("cudnn", rel, archive(os.path.join(out, "cudnn/redist", rel), stem, members))
cudnn_json = {"release_date": "2026-01-20", "release_label": "9.19.0", "release_product": "cudnn",
              "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
                        "license_path": "cudnn/LICENSE.txt", "version": v,
                        "linux-x86_64": variants, "cuda_variant": ["12", "13"]}}
with open(os.path.join(out, "cudnn/redist/redistrib_9.19.0.json"), "w") as f:
    json.dump(cudnn_json, f, indent=4)

comps = {}
for name, version, files in (("libcublas", "13.1.0.3", [("lib/libcublas.so.13", os.path.join(lib, "libcublas.so.13")),
                                                         ("lib/libcublas.so", ("link", "libcublas.so.13"))]),
                             ("cuda_nvrtc", "13.0.88", [("lib/libnvrtc-builtins.so.13.0", os.path.join(lib, "libnvrtc-builtins.so.13.0")),
                                                        ("lib/libnvrtc-builtins.so", ("link", "libnvrtc-builtins.so.13.0"))])):
    stem = "%s-linux-x86_64-%s-archive" % (name, version)
    rel = "%s/linux-x86_64/%s.tar.xz" % (name, stem)
    comps[name] = {"name": name, "license": "CUDA Toolkit", "license_path": name + "/LICENSE.txt",
                   "version": version,
                   "linux-x86_64": leaf("cuda", rel, archive(os.path.join(out, "cuda/redist", rel), stem, files + [("LICENSE", lic)]))}
cuda_json = {"release_date": "2025-10-09", "release_label": "13.0.2", "release_product": "cuda"}
cuda_json.update(comps)
os.makedirs(os.path.join(out, "cuda/redist"), exist_ok=True)
with open(os.path.join(out, "cuda/redist/redistrib_13.0.2.json"), "w") as f:
    json.dump(cuda_json, f, indent=4)
# An older release beside it: resolution must pick the newest of the line.
old = json.loads(json.dumps(cuda_json))
old["release_label"] = "13.0.0"
with open(os.path.join(out, "cuda/redist/redistrib_13.0.0.json"), "w") as f:
    json.dump(old, f, indent=4)

# NCCL the way NVIDIA publishes it: nccl/redist/, one manifest per CUDA-qualified label
# (redistrib_2.28.9-cuda13.0.json, single-variant), the archive under nccl/linux-x86_64/. For
# speed, and for trees that hold no NCCL (the kit test's fake toolkit), a header with NCCL's
# version macros and the small cuDNN loader (an ELF library of this platform) stand in for
# nccl.h and the 218 MB libnccl.so.2.
nccl_v = "2.28.9"
nccl_h = os.path.join(out, "nccl.h")
with open(nccl_h, "w") as f:
    f.write("#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n")
nccl_members = [("include/nccl.h", nccl_h),
                ("lib/libnccl.so.2", os.path.join(lib, "libcudnn.so.9")),
                ("lib/libnccl.so", ("link", "libnccl.so.2")),
                ("LICENSE.txt", lic)]
for label, cuda_tag in (("2.28.9-cuda12.9", "12.9"), ("2.28.9-cuda13.0", "13.0")):
    stem = "nccl-linux-x86_64-%s_cuda%s-archive" % (nccl_v, cuda_tag)
    rel = "nccl/linux-x86_64/%s.tar.xz" % stem
    nccl_json = {"release_date": "2025-11-04", "release_label": label, "release_product": "nccl",
                 "nccl": {"name": "NVIDIA Collective Communications Library", "license": "NCCL",
                          "license_path": "nccl/LICENSE.txt", "version": nccl_v,
                          "linux-x86_64": leaf("nccl", rel, archive(os.path.join(out, "nccl/redist", rel), stem, nccl_members))}}
    with open(os.path.join(out, "nccl/redist/redistrib_%s.json" % label), "w") as f:
        json.dump(nccl_json, f, indent=4)
os.remove(nccl_h)
os.remove(lic)
