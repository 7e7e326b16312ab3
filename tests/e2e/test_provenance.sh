#!/bin/sh
# The provenance kept in the dossier (issue 28): a bundle made from the local HTTP mirror of
# NVIDIA's layout (real cuDNN, cuBLAS and NVRTC files) keeps the exact bytes of both redistrib
# JSONs and provenance.json; the README's offline re-check (sha256sum, jq, zstd, tar) passes,
# and fails when one byte of a kept JSON, one member's hash or an archive changed; bundler
# inspect --provenance and unpacker verify --provenance print the stored record (nothing after
# a failed signature check); the same inputs give the same bundle; --from-archive and
# --from-dir say that no NVIDIA JSON authorised them.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
P=.cuferry-dossier/provenance.json
py "$TOP/tests/tools/make_mirror.py" "$(cat "$FX/cuda_dir")" mirror
start_mirror mirror
CUDNN_JSON=cudnn/redist/redistrib_9.19.0.json
CUDA_JSON=cuda/redist/redistrib_13.0.2.json

note "create from the mirror with the CUDA libraries: both JSONs kept, byte for byte"
mkbundle_mirror() { # OUT CACHE
	SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --cudnn 9.19 --cuda 13 \
		--mirror "$MIRROR" --with-cuda-libs --key "$FX/test.key" --cache "$2" -o "$1" \
		--level 1 --counter 5 -q
}
mkbundle_mirror B.bundle cache
zstd -dc B.bundle | tar -t | head -5 > first
printf '%s\n' $P .cuferry-dossier/provenance/$CUDA_JSON .cuferry-dossier/provenance/$CUDNN_JSON \
	.cuferry-dossier/sbom.cdx.json .cuferry-dossier/sbom.spdx.json | cmp - first ||
	fail "the dossier is not the payload's first entries: $(cat first)"
for j in $CUDNN_JSON $CUDA_JSON; do
	zstd -dc B.bundle | tar -xO ".cuferry-dossier/provenance/$j" | cmp - "mirror/$j" ||
		fail "the kept $j is not the mirror's bytes"
done

note "inspect --provenance prints the stored record as it is"
expect 0 "$BUNDLER" inspect B.bundle --provenance
mv last.out printed.json
zstd -dc B.bundle | tar -xO $P | cmp - printed.json || fail "inspect --provenance is not the stored provenance.json"
py - printed.json "$MIRROR" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); mirror = sys.argv[2]
assert p['format'] == 'cuferry-provenance-1' and p['source'] == 'nvidia-redist', p
assert p['mirror'] == mirror, p['mirror']
roles = [(s['role'], s['name']) for s in p['sources']]
assert roles == [('product', 'cudnn'), ('cuda-component', 'libcublas'),
                 ('cuda-component', 'cuda_nvrtc')], roles
for s in p['sources']:
    assert s['url'] == mirror + '/' + s['mirror_path'], s['url']
    assert s['authorised_by']['file'].startswith('.cuferry-dossier/provenance/'), s
    assert s['members'], s['name']
cudnn = p['sources'][0]
assert cudnn['authorised_by']['jq_path'] == '.["cudnn"]["linux-x86_64"]["cuda13"]', cudnn
lib = [m for m in cudnn['members'] if m['path'] == 'lib/libcudnn.so.9']
assert lib and lib[0]['member'] == 'cudnn-linux-x86_64-9.19.0.56_cuda13-archive/lib/libcudnn.so.9', lib
link = [m for m in cudnn['links'] if m['path'] == 'lib/libcudnn.so']
assert link == [{'path': 'lib/libcudnn.so', 'member': 'cudnn-linux-x86_64-9.19.0.56_cuda13-archive/lib/libcudnn.so',
                 'target': 'libcudnn.so.9'}], cudnn['links']
lic = [m for s in p['sources'][1:2] for m in s['members'] if m['path'] == 'LICENSE.libcublas.txt']
assert lic and lic[0]['member'].endswith('-archive/LICENSE'), lic
assert {f['origin'] for f in p['other_files']} == {'written by the bundler'}, p['other_files']
PY

note "the README's offline re-check, with stock tools only, passes"
awk '/^mkdir chk && cd chk/,/cd \.\.\/DL && sha256sum -c/' "$TOP/README.md" > check.sh
[ "$(wc -l < check.sh)" -ge 6 ] || fail "no offline provenance check in README.md: $(cat check.sh)"
mkdir DL
for f in $(jq -r '.sources[].mirror_path' printed.json); do cp "mirror/$f" DL/; done
scenario() { # NAME BUNDLE: a directory holding BUNDLE as B.bundle, with the archives beside it
	mkdir "$1" && cp "$2" "$1/B.bundle" && ln -s ../DL "$1/DL"
}
scenario good B.bundle
(cd good && sh -e ../check.sh) > good.out 2>&1 || { cat good.out; fail "the README's check failed"; }
assert_contains good.out "$CUDNN_JSON: OK"
[ "$(grep -c '\["linux-x86_64"\].*: OK' good.out)" = 3 ] || { cat good.out; fail "not three archives checked against their JSON"; }
assert_contains good.out "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz: OK"

# A payload with one string changed at its first place (the dossier comes first), recompressed
# without the signed header: what the stock check reads.
tampered() { # NAME OLD NEW
	zstd -dc B.bundle > p.tar
	py - p.tar "$2" "$3" <<'PY'
import sys
p, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
data = open(p, 'rb').read()
assert len(old) == len(new) and old in data, old
open(p, 'wb').write(data.replace(old, new, 1))
PY
	zstd -q -1 -f p.tar -o "$1.bundle"
	scenario "$1" "$1.bundle"
	if (cd "$1" && sh -e ../check.sh) > "$1.out" 2>&1; then
		cat "$1.out"; fail "the README's check passed with $1"
	fi
}

note "one byte of a kept JSON changed: the check fails"
tampered json '"release_label": "9.19.0"' '"release_label": "9.19.1"'
assert_contains json.out "$CUDNN_JSON: FAILED"

note "one member's hash changed in provenance.json: the check fails"
H=$(jq -r '.sources[0].members[] | select(.path == "lib/libcudnn.so.9") | .sha256' printed.json)
H2=$(echo "$H" | tr 0-9a-f 1-9a-f0)
tampered member "$H" "$H2"
assert_contains member.out "lib/libcudnn.so.9: FAILED"

note "an archive's hash changed in provenance.json: its JSON disagrees, the check fails"
A=$(jq -r '.sources[1].sha256' printed.json)
tampered archive "$A" "$(echo "$A" | tr 0-9a-f 1-9a-f0)"
assert_contains archive.out "$CUDNN_JSON: OK"
grep -q 'libcublas.*: OK' archive.out && fail "the changed archive hash passed: $(cat archive.out)"

note "an archive at hand that is not the one NVIDIA's JSON names: the check fails"
scenario swapped B.bundle
rm swapped/DL && mkdir swapped/DL && cp DL/* swapped/DL/
printf x >> swapped/DL/libcublas-linux-x86_64-13.1.0.3-archive.tar.xz
if (cd swapped && sh -e ../check.sh) > swapped.out 2>&1; then cat swapped.out; fail "a changed archive passed"; fi
assert_contains swapped.out "libcublas-linux-x86_64-13.1.0.3-archive.tar.xz: FAILED"

note "unpacker verify --provenance: the same record, after the signature check"
expect 0 "$UNPACKER" verify B.bundle $T --provenance
cmp last.out printed.json || fail "verify --provenance differs from inspect --provenance"
expect 1 "$UNPACKER" verify B.bundle $T --provenance --sbom spdx
one_line_reason last.err
expect 2 "$UNPACKER" verify B.bundle --trust "$FX/other.pub" --provenance
[ ! -s last.out ] || fail "verify --provenance printed something for an untrusted signer"
expect 1 "$BUNDLER" inspect B.bundle --provenance --sbom spdx
expect 1 "$BUNDLER" inspect B.bundle --provenance --export x

note "the same inputs, the same bundle (another cache directory)"
mkbundle_mirror again.bundle cache2
cmp again.bundle B.bundle || fail "two builds of the same inputs differ"

note "--from-archive: the archive's own name, size and hash, no NVIDIA JSON, said so; its CUDA
libraries from the mirror keep theirs"
ARC=DL/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
SOURCE_DATE_EPOCH=1760486400 expect 0 "$BUNDLER" create --from-archive "$ARC" --with-cuda-libs \
	--mirror "$MIRROR" --cache cache --key "$FX/test.key" -o arc.bundle --level 1 -q
expect 0 "$BUNDLER" inspect arc.bundle --provenance
py - last.out "$(sha256sum "$ARC" | cut -d' ' -f1)" "$(stat -c %s "$ARC")" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p['source'] == 'archive', p
assert [j['mirror_path'] for j in p['nvidia_json']] == ['cuda/redist/redistrib_13.0.2.json'], p
assert [c['authorised_by']['file'] for c in p['sources'][1:]] == [p['nvidia_json'][0]['file']] * 2, p
s = p['sources'][0]
assert s['archive'] == 'cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz', s
assert s['sha256'] == sys.argv[2] and s['size'] == int(sys.argv[3]), s
assert s['authorised_by'] is None and 'no NVIDIA redistrib JSON' in s['not_known'], s
assert s['url'] is None and len(s) and any(m['path'] == 'lib/libcudnn.so.9' for m in s['members'])
PY
zstd -dc arc.bundle | tar -t | grep -q '^.cuferry-dossier/provenance/cudnn' &&
	fail "an archive source kept a cuDNN JSON"

note "--from-dir: the directory as given; no archive, no NVIDIA JSON, said so"
expect 0 "$BUNDLER" inspect "$FX/small.bundle" --provenance
py - last.out <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
s = p['sources'][0]
assert p['source'] == 'dir' and s['directory'] == 'small-src', s
assert s['authorised_by'] is None and 'read from a directory' in s['not_known'], s
assert 'archive' not in s and s['wheel'] is None, s
assert [m['member'] for m in s['members'] if m['path'] == 'lib/libcudnn.so.9'] == ['lib/libcudnn.so.9'], s
assert {'path': 'lib/libcudnn.so', 'member': 'lib/libcudnn.so', 'target': 'libcudnn.so.9'} in s['links'], s
PY
# This machine's toolkit, assembled from NVIDIA's wheels: the cuDNN wheel's name and version.
CUDA=$(cat "$FX/cuda_dir")
if ls -d "$CUDA"/dist-info/nvidia_cudnn_cu*.dist-info >/dev/null 2>&1; then
	expect 0 "$BUNDLER" inspect "$FX/real.bundle" --provenance
	py - last.out "$CUDA" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))['sources'][0]
assert s['directory'] == sys.argv[2] and s['wheel']['name'].startswith('nvidia_cudnn_cu'), s
assert s['wheel']['version'].startswith('9.') and 'wheel file' in s['wheel']['not_known'], s
PY
fi
echo "PASS $NAME"
