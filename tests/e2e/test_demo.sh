#!/bin/sh
# The README's main command (make demo runs tests/tools/demo.sh): run from another directory
# by a relative path, it bundles the real cuDNN, installs it into its sandbox root, shows the
# result, and a second install is a no-op.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
rel=$(python3 -c "import os, sys; print(os.path.relpath(sys.argv[1]))" "$TOP/tests/tools/demo.sh")
expect 0 sh "$rel" "$B"
assert_contains last.out "installed cudnn-"
assert_contains last.out "lib/libcudnn.so.9"
assert_contains last.out "is already installed"
