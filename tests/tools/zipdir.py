#!/usr/bin/env python3
"""zipdir.py OUT.zip DIR - DIR (a relative path) zipped with deflate, files in sorted order:
the shape of NVIDIA's Windows archive zips, for tests that make bundles from the fake DLLs."""
import os
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    for d, _, files in os.walk(sys.argv[2]):
        for f in sorted(files):
            z.write(os.path.join(d, f))
