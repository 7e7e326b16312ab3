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
cp "$TOP"/tests/data/nvidia/*.json "$C/redist/" 2>/dev/null || true
i=0
for p in lib/libcudnn.so.9 include/cudnn.h bin/x64/cudnn64_9.dll ../etc/passwd /abs CON.txt aux \
	 "dir./f" GIT~1 'x:y' 'a\b' lib//x . .. COM0 LPT9.log caf.e a+b-c_d.e; do
	i=$((i + 1)); printf '%s' "$p" > "$C/pathrule/p$i"
done
# The probe's report pipe: lines as the probe writes them (library, driver, compute, graph).
mkdir -p "$C/probe_report"
printf '%s\n' '{"check":"library","status":"pass","detail":"cuDNN 9.19.0","cudnn_version":"9.19.0","cudart_version":13010,"loaded":["/opt/cudnn/x/lib/libcudnn.so.9"]}' > "$C/probe_report/library"
printf '%s\n' '{"check":"driver","status":"pass","detail":"","cuda_driver_api":13000,"gpus":[{"index":0,"name":"H200","memory_bytes":150000000000,"cc_major":9,"cc_minor":0}]}' > "$C/probe_report/driver"
printf '%s\n%s\n' '{"check":"compute","gpu":0,"shape":"N3","status":"pass","detail":"ok","seed":5,"forward":[{"algo":0,"workspace_bytes":0,"median_ms":0.1,"mismatches":0,"sampled_points":64,"worst_error_vs_tolerance":0.1}]}' \
	'{"check":"graph","gpu":0,"status":"pass","detail":"ok","engines":[{"engine":-1,"behavior_notes":[0],"runtime_compiled":true,"passed":true,"ms":1.5}]}' > "$C/probe_report/compute"
printf '%s\n' '{"check":"dependencies","status":"fail","detail":"x","libraries":{"libz.so.1":null,"libnvrtc.so.13":"/usr/lib/libnvrtc.so.13"}}' > "$C/probe_report/deps"
# The PE reader: the fake Windows DLLs (make windows-fakes) and a few of Wine's own PE files.
mkdir -p "$C/pefile"
for f in "${CUFERRY_BUILD:-$TOP/build}"/windows/fakes/*.dll "${CUFERRY_BUILD:-$TOP/build}"/windows/fakes/*.exe \
	 /usr/lib/x86_64-linux-gnu/wine/x86_64-windows/version.dll \
	 /usr/lib/x86_64-linux-gnu/wine/x86_64-windows/psapi.dll; do
	[ -f "$f" ] && cp "$f" "$C/pefile/$(basename "$f")"
done
printf 'MZ' > "$C/pefile/mz"
