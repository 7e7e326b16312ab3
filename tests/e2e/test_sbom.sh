#!/bin/sh
# The SBOMs in the signed payload (issue 28): CycloneDX 1.6 and SPDX 2.3 of the real cuDNN and
# NCCL of this machine, validated against the official schemas (tests/data/sbom) with a real
# validator and against the signed manifest; they are the payload's first entries, identifiers
# from the content (the same bytes when a signer is added later); the signers are added at
# print time; unpacker verify --sbom prints the same after the signature check and nothing,
# with verify's exit code, when that check fails.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
S=$TOP/tests/data/sbom
CUDA=$(cat "$FX/cuda_dir")
fingerprints() { sed -n 's/^signer [0-9]* *[0-9a-f]* (fingerprint \([0-9a-f]*\)).*/\1/p' "$1"; }

note "the real cuDNN: both SBOMs valid against their schemas and agree with the manifest"
cp "$FX/real.bundle" cudnn.bundle
expect 0 "$BUNDLER" inspect cudnn.bundle --export exp
FP=$(fingerprints last.out)
[ -n "$FP" ] || fail "no fingerprint in inspect's output"
expect 0 "$BUNDLER" inspect cudnn.bundle --sbom cyclonedx
mv last.out cudnn.cdx.json
expect 0 "$BUNDLER" inspect cudnn.bundle --sbom spdx
mv last.out cudnn.spdx.json
V=$(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["cudnn"]["version"])' exp/header.json)
py "$TOP/tests/tools/check_sbom.py" "$S" exp/header.json cudnn.cdx.json cudnn.spdx.json \
	"pkg:generic/nvidia/cudnn@$V?cuda=13&platform=linux-x86_64" $FP
assert_contains cudnn.cdx.json '"bomFormat": "CycloneDX"'
assert_contains cudnn.spdx.json '"spdxVersion": "SPDX-2.3"'
# A directory source names no licence: NOASSERTION, not a guess.
assert_contains cudnn.spdx.json '"licenseDeclared": "NOASSERTION"'

note "the dossier is the payload's first entries, stored without signers, listed in the manifest"
zstd -dc cudnn.bundle | tar -t | head -3 > first
# A directory source keeps no NVIDIA JSON: its provenance record, then the SBOMs (test_provenance).
printf '%s\n' .cuferry-dossier/provenance.json .cuferry-dossier/sbom.cdx.json \
	.cuferry-dossier/sbom.spdx.json | cmp - first ||
	fail "the dossier is not the first entries: $(cat first)"
zstd -dc cudnn.bundle | tar -xO .cuferry-dossier/sbom.cdx.json > stored.cdx.json
grep -q 'cuferry:signer' stored.cdx.json && fail "the stored SBOM names a signer"
assert_contains exp/header.json '"path": ".cuferry-dossier/sbom.spdx.json"'
want=$(py -c 'import json,sys; print(next(f["sha256"] for f in json.load(open(sys.argv[1]))["files"] if f["path"] == ".cuferry-dossier/sbom.cdx.json"))' exp/header.json)
[ "$(sha256sum < stored.cdx.json | cut -d' ' -f1)" = "$want" ] || fail "stored SBOM's hash is not the manifest's"

note "bundler sign adds a signer: the stored SBOMs are the same bytes, the print names both"
expect 0 "$BUNDLER" keygen second
expect 0 "$BUNDLER" sign cudnn.bundle --key second.key
zstd -dc cudnn.bundle | tar -xO .cuferry-dossier/sbom.cdx.json | cmp - stored.cdx.json ||
	fail "adding a signature changed the stored SBOM"
expect 0 "$BUNDLER" inspect cudnn.bundle
FP2=$(fingerprints last.out)
[ "$(echo "$FP2" | wc -l)" = 2 ] || fail "two signers expected: $FP2"
expect 0 "$BUNDLER" inspect cudnn.bundle --sbom cyclonedx
mv last.out two.cdx.json
expect 0 "$BUNDLER" inspect cudnn.bundle --sbom spdx
mv last.out two.spdx.json
py "$TOP/tests/tools/check_sbom.py" "$S" exp/header.json two.cdx.json two.spdx.json \
	"pkg:generic/nvidia/cudnn@$V?cuda=13&platform=linux-x86_64" $FP2

note "unpacker verify --sbom: the same document, after the signature check"
expect 0 "$UNPACKER" verify cudnn.bundle $T --sbom cyclonedx
cmp last.out two.cdx.json || fail "verify --sbom cyclonedx differs from inspect --sbom"
expect 0 "$UNPACKER" verify cudnn.bundle $T --sbom spdx
cmp last.out two.spdx.json || fail "verify --sbom spdx differs from inspect --sbom"
expect 1 "$UNPACKER" verify cudnn.bundle $T --sbom swid
one_line_reason last.err
assert_contains last.err "cyclonedx or spdx"
expect 1 "$BUNDLER" inspect cudnn.bundle --sbom swid

note "a bad signature, or no trusted signer: nothing printed, verify's exit code"
py - "$FX/real.bundle" bad.bundle <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
end = 8 + struct.unpack_from('<I', data, 4)[0]  # the frame: its last 64 bytes are the signature
data[end - 1] ^= 1
open(sys.argv[2], 'wb').write(data)
PY
expect 2 "$UNPACKER" verify bad.bundle $T
expect 2 "$UNPACKER" verify bad.bundle $T --sbom cyclonedx
[ ! -s last.out ] || fail "verify --sbom printed something for a bad signature: $(head -c 200 last.out)"
expect 2 "$UNPACKER" verify "$FX/real.bundle" --trust second.pub --sbom spdx
[ ! -s last.out ] || fail "verify --sbom printed something for an untrusted signer"

note "the real NCCL: both SBOMs valid, NCCL's purl"
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --product nccl --from-dir "$CUDA" \
	--key "$FX/test.key" -o nccl.bundle --level 1 -q
expect 0 "$BUNDLER" inspect nccl.bundle --export nccl-exp
NFP=$(fingerprints last.out)
NV=$(py -c 'import json,sys; print(json.load(open(sys.argv[1]))["nccl"]["version"])' nccl-exp/header.json)
expect 0 "$UNPACKER" verify nccl.bundle $T --sbom cyclonedx
mv last.out nccl.cdx.json
expect 0 "$UNPACKER" verify nccl.bundle $T --sbom spdx
mv last.out nccl.spdx.json
py "$TOP/tests/tools/check_sbom.py" "$S" nccl-exp/header.json nccl.cdx.json nccl.spdx.json \
	"pkg:generic/nvidia/nccl@$NV?cuda=13&platform=linux-x86_64" $NFP
grep -qi cudnn nccl.cdx.json && fail "NCCL's SBOM names cuDNN"

note "the same inputs, the same SBOMs (a second build with another counter)"
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --product nccl --from-dir "$CUDA" \
	--key "$FX/test.key" -o nccl2.bundle --level 1 --counter 7 -q
for f in sbom.cdx.json sbom.spdx.json; do
	zstd -dc nccl.bundle | tar -xO ".cuferry-dossier/$f" > a
	zstd -dc nccl2.bundle | tar -xO ".cuferry-dossier/$f" > b
	cmp a b || fail "$f differs between two builds of the same inputs"
done
echo "PASS $NAME"
