#!/bin/sh
# seeds.sh DIR - seed corpora for the fuzz targets, made at run time: frames and manifests of
# forged bundles (every defect case), NVIDIA's redistrib JSON, the hostile path table.
set -eu
C=$1
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$C/frame" "$C/manifest" "$C/pathrule" "$C/redist" "$C/unpack"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$T/k.key" 2>/dev/null
for c in $(python3 "$TOP/tests/tools/forge.py" --list | awk '$1 != "bomb" {print $1}'); do
	python3 "$TOP/tests/tools/forge.py" --key "$T/k.key" --out "$T/$c.bundle" --case "$c"
	python3 "$TOP/tests/tools/forge.py" --key "$T/k.key" --out "$C/unpack/$c" --case "$c" --fuzz-seed
	python3 - "$T/$c.bundle" "$C/frame/$c" "$C/manifest/$c" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", b[4:8])[0]
content = b[8:8 + n]
open(sys.argv[2], "wb").write(content)
if content[:8] == b"CUFERRY1":
    h = struct.unpack("<I", content[8:12])[0]
    open(sys.argv[3], "wb").write(content[12:12 + h])
PY
done
cp "$TOP"/../shared/data/nvidia/*.json "$C/redist/" 2>/dev/null || true
i=0
for p in lib/libcudnn.so.9 include/cudnn.h bin/x64/cudnn64_9.dll ../etc/passwd /abs CON.txt aux \
	 "dir./f" GIT~1 'x:y' 'a\b' lib//x . .. COM0 LPT9.log caf.e a+b-c_d.e; do
	i=$((i + 1)); printf '%s' "$p" > "$C/pathrule/p$i"
done
