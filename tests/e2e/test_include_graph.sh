#!/bin/sh
# make check-includes (tools/include-graph.py, issue 9's "Done when"): the checkout passes; a
# header under common/ that includes from above, or an include cycle (also one of three
# modules, through headers only), fails with the files named; a .c with its own .h is not a
# cycle; the checkout is read, never written, from any directory.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
CHECK="python3 $TOP/tools/include-graph.py"

note "the checkout passes, run from another directory"
expect 0 $CHECK "$TOP"
assert_contains last.out "include-graph: passes"

note "a copy with one new arrow of each kind fails, naming the files"
mkdir tree
for d in common manifests signing bundler unpacker; do cp -r "$TOP/$d" tree/; done
chmod -R a-w tree
expect 0 $CHECK tree
chmod -R u+w tree
echo '#include "unpacker/environment/env.h"' >> tree/common/log.h
expect 1 $CHECK tree
assert_contains last.out "^include-graph: common/log.h includes unpacker/environment/env.h"
assert_contains last.out "include cycle between common/log, unpacker/environment/env: common/log.h -> unpacker/environment/env.h"

cp "$TOP/common/log.h" tree/common/log.h
printf '#include "bundler/sums.h"\n' > tree/manifests/third.h
printf '#include "manifests/third.h"\n' >> tree/signing/verify.h
printf '#include "signing/verify.h"\n' >> tree/bundler/sums.h
expect 1 $CHECK tree
assert_contains last.out "include cycle between bundler/sums, manifests/third, signing/verify"
! grep -q "common/log" last.out || fail "a removed arrow is still reported"

note "relative includes are followed too; a .c with its own .h is one module"
cp "$TOP/bundler/sums.h" tree/bundler/sums.h
mkdir -p tree/unpacker/sub
printf '#include "b.h"\n' > tree/unpacker/sub/a.h
printf '#include "a.h"\n' > tree/unpacker/sub/a.c
printf '#include "a.h"\n' > tree/unpacker/sub/b.h
expect 1 $CHECK tree
assert_contains last.out "include cycle between unpacker/sub/a, unpacker/sub/b"
rm tree/unpacker/sub/b.h
expect 0 $CHECK tree
echo "PASS $NAME"
