#!/bin/sh
# gpu-run.sh DIR - what runs on the GPU test machine (NVIDIA H200, a throwaway VM, as root).
# In one run, on the same cuDNN (that machine's own real 9.19):
#   - the seeds' manual way: an xz tarball of it on disk, `tar -xJf`, `sha256sum -c`, and a
#     PyTorch convolution forward and backward with the machine's own PyTorch;
#   - cuferry: `unpacker install BUNDLE /silent` with full validation (all six steps), then
#     `unpacker validate` alone, three times;
# and the ratio. Also doctor, and a validation under a hostile caller environment.
# DIR holds bundler, unpacker and the bundler's shared libraries (lib/); results go to $OUT.
set -u
D=$(cd "${1:-.device}" && pwd)
OUT=${OUT:-/tmp/gpu-out}
G=/tmp/gpu-bundle
rm -rf "$G" /tmp/manual /opt/cudnn
mkdir -p "$OUT" "$G"
# The toolkit's own cuDNN, or else the one in PyTorch's wheel (nvidia/cudnn/{include,lib}).
SRC=$(sh "$(dirname "$0")/cuda-dir.sh") || exit 1
# The CUDA component list comes from the source (pip's wheel metadata); should it name none,
# from a file:// mirror made from this machine's toolkit, as this machine has no network.
bundler() { LD_LIBRARY_PATH="$D/lib" "$D/bundler" "$@"; }
bundler cuda-json --from-dir /usr/local/cuda -o "$G/mirror" >/dev/null &&
	export CUFERRY_MIRROR=file://$G/mirror
run() { echo "\$ $*"; "$@"; echo "exit $?"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
{
	echo "## machine"
	nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
	uname -sr
	ls -l /dev/nvidiactl /dev/nvidia0 2>&1
	echo "## cuDNN in the ld cache before the install"
	ldconfig -p | grep 'libcudnn.so.9 '
	echo "## bundle the cuDNN in $SRC"
	bundler keygen "$G/site" >/dev/null
	run bundler create --from-dir "$SRC" --cuda 13 --key "$G/site.key" -o "$G/" --level 3 -q
	BUNDLE=$(ls "$G"/*.bundle)
	bundler inspect "$BUNDLE" | sed -n '1,12p'
	echo "## the seeds' way, prepared (not timed): an xz tarball of the same files, their SHA-256"
	(cd "$SRC" && find include lib -name 'cudnn*' -o -name 'libcudnn*' | sort > "$G/files")
	(cd "$SRC" && tar -cf - -T "$G/files" | xz -T0 -6 > "$G/cudnn.tar.xz")
	(cd "$SRC" && xargs sha256sum < "$G/files" | grep -v ' include/$\| lib/$' > "$G/SHA256SUMS") 2>/dev/null
	ls -l "$G/cudnn.tar.xz" "$BUNDLE"
	cat > "$G/conv.py" <<'PY'
import torch
x = torch.randn(8, 3, 224, 224, device="cuda", requires_grad=True)
conv = torch.nn.Conv2d(3, 64, 3, padding=1).cuda()
y = conv(x)
y.sum().backward()
torch.cuda.synchronize()
print("pytorch", torch.__version__, "cudnn", torch.backends.cudnn.version(), "ok", bool(torch.isfinite(x.grad).all()))
PY
	sync
	echo "## timed: the seeds' way"
	mkdir -p /tmp/manual
	t=$(now); tar -xJf "$G/cudnn.tar.xz" -C /tmp/manual; untar=$(since "$t")
	t=$(now); (cd /tmp/manual && sha256sum -c --quiet "$G/SHA256SUMS"); sums=$(since "$t")
	t=$(now); python3 "$G/conv.py"; torch=$(since "$t")
	manual=$(awk -v a="$untar" -v b="$sums" -v c="$torch" 'BEGIN { printf "%.2f", a + b + c }')
	echo "tar -xJf ${untar} s, sha256sum -c ${sums} s, PyTorch conv forward+backward ${torch} s: ${manual} s"
	echo "## timed: cuferry install with full validation (all six steps), from disk"
	t=$(now)
	"$D/unpacker" install "$BUNDLE" --trust "$G/site.pub" /silent --log "$OUT/unpacker.log" --json "$OUT/install.json"
	rc=$?; install=$(since "$t")
	echo "exit $rc: ${install} s"
	echo "## timed: unpacker validate (full), three times"
	v1=$(t=$(now); "$D/unpacker" validate --trust "$G/site.pub" --log "$OUT/validate.log" > "$G/v1.txt" 2>&1; rc=$?; echo "$(since "$t") exit $rc")
	v2=$(t=$(now); "$D/unpacker" validate --trust "$G/site.pub" --log "$OUT/validate.log" > "$G/v2.txt" 2>&1; rc=$?; echo "$(since "$t") exit $rc")
	v3=$(t=$(now); "$D/unpacker" validate --trust "$G/site.pub" --log "$OUT/validate.log" > "$G/v3.txt" 2>&1; rc=$?; echo "$(since "$t") exit $rc")
	echo "validate: $v1 / $v2 / $v3 (s, exit)"
	cat "$G/v3.txt"; grep "timings" "$OUT/validate.log" | tail -3
	echo "## summary"
	awk -v m="$manual" -v i="$install" 'BEGIN { printf "manual way %.2f s; cuferry install+full validation %.2f s; ratio %.1fx\n", m, i, m / i }'
	echo "## doctor"
	run "$D/unpacker" doctor
	echo "## the hostile caller environment: PATH and LD_LIBRARY_PATH pointing at a decoy"
	mkdir -p /tmp/evil && cp /opt/cudnn/current/lib/libcudnn.so.9 /tmp/evil/ 2>/dev/null
	PATH=/tmp/evil:$PATH LD_LIBRARY_PATH=/tmp/evil run "$D/unpacker" validate --trust "$G/site.pub" --gpu 0 --quick-validate
} 2>&1 | tee "$OUT/console.txt"
cp /opt/cudnn/current/.cuferry/report.json "$OUT/report.json" 2>/dev/null
ls -la /opt/cudnn /etc/ld.so.conf.d > "$OUT/layout.txt" 2>&1
true
