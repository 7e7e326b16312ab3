#!/bin/sh
# demo.sh BUILD_DIR - the main job end to end on this machine: bundle the real cuDNN of the
# CUDA toolkit, install it into a sandbox root, and show the result. Nothing outside BUILD_DIR
# is written (the sandbox root stands in for /).
set -eu
B=$(cd "${1:-build}" && pwd)
CUDA=$(sh "$(dirname "$0")/cuda-dir.sh")
D=$B/demo
mkdir -p "$D"
cd "$D"

step() { printf '\n### %s\n' "$*"; }

step "a signing key (kept in $D; on a real site it stays on the signing host)"
[ -f demo.key ] || "$B/bundler" keygen demo

step "bundle the cuDNN of $CUDA"
rm -f ./*.bundle SHA256SUMS
"$B/bundler" create --from-dir "$CUDA" --key demo.key -o "$D/"
bundle=$(ls "$D"/*.bundle)
cat SHA256SUMS

step "what the bundle holds"
"$B/bundler" inspect "$bundle" | sed -n '1,16p'

step "install it into the sandbox root $D/root (trusting demo.pub, carried separately)"
rm -rf root && mkdir root
"$B/unpacker" install "$bundle" --root "$D/root" --trust demo.pub

step "installed bundles"
"$B/unpacker" list --root "$D/root"

step "the tree"
ls -l root/opt/cudnn root/opt/cudnn/current/lib | sed -n '1,40p'

step "the environment written (ld.so.conf.d and profile.d under the sandbox root)"
cat root/etc/ld.so.conf.d/00-cuferry-cudnn.conf root/etc/profile.d/cuferry-cudnn.sh

step "running it again is a no-op"
"$B/unpacker" "$bundle" --root "$D/root" --trust demo.pub
