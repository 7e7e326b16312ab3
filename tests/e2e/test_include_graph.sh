#!/bin/sh
# make check-includes (tools/include-graph.py, issues 9 and 26): the checkout passes; in a copy,
# an include against the layer order (a header of common/ from above, a .c of
# unpacker/target/ from unpacker/cli/, unpacker/install/ and unpacker/validate/ of each other,
# the bundler from the unpacker), a file in no layer, or an include cycle (also one of three
# modules, through headers only) fails with the files named; a .c with its own .h is not a
# cycle; the checkout is read, never written, from any directory.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
CHECK="python3 $TOP/tools/include-graph.py"

note "the checkout passes, run from another directory"
expect 0 $CHECK "$TOP"
assert_contains last.out "include-graph: passes"
note "the layer table prints, lowest first"
expect 0 $CHECK --layers
assert_contains last.out "^| common | .common/. | (nothing) |"
assert_contains last.out "^| unpacker/cli | .unpacker/cli/. | .*unpacker/install, unpacker/validate |"

note "a unit test's link list is what its includes reach (the Makefile links it)"
(cd "$TOP" && $CHECK --objects tests/unit/test_layout.c common/platform_posix_fs.c) > objects.out
for f in unpacker/target/layout.c common/io.c common/platform_posix_fs.c; do
	grep -qw "$f" objects.out || fail "--objects: $f missing from: $(cat objects.out)"
done
! grep -q 'bundler/\|unpacker/cli/\|tests/' objects.out || fail "--objects: more than test_layout needs: $(cat objects.out)"

note "a copy with one new arrow of each kind fails, naming the files"
mkdir tree
for d in common manifests signing bundler unpacker; do cp -r "$TOP/$d" tree/; done
chmod -R a-w tree
expect 0 $CHECK tree
chmod -R u+w tree
echo '#include "unpacker/environment/env.h"' >> tree/common/log.h
expect 1 $CHECK tree
assert_contains last.out "^include-graph: common/log.h includes unpacker/environment/env.h: common may not include from unpacker/environment"
# (the cycle may pass through other modules that env.c includes and that include log.h)
assert_contains last.out "include cycle between common/log, unpacker/environment/env[,:].*common/log.h -> unpacker/environment/env.h"
cp "$TOP/common/log.h" tree/common/log.h

# plant FILE LINE EXPECTED: FILE with LINE appended fails with EXPECTED; then it is put back
plant() {
	cp "tree/$1" plant.saved
	echo "$2" >> "tree/$1"
	expect 1 $CHECK tree
	assert_contains last.out "$3"
	cp plant.saved "tree/$1"
}
plant unpacker/target/layout.c '#include "unpacker/cli/cli.h"' \
	"^include-graph: unpacker/target/layout.c includes unpacker/cli/cli.h: unpacker/target may not include from unpacker/cli"
plant unpacker/install/stage.c '#include "unpacker/validate/validate.h"' \
	"^include-graph: unpacker/install/stage.c includes unpacker/validate/validate.h: unpacker/install may not include from unpacker/validate"
plant unpacker/validate/doctor.c '#include "unpacker/install/journal.h"' \
	"^include-graph: unpacker/validate/doctor.c includes unpacker/install/journal.h: unpacker/validate may not include from unpacker/install"
plant bundler/kit.c '#include "unpacker/target/trust.h"' \
	"^include-graph: bundler/kit.c includes unpacker/target/trust.h: bundler may not include from unpacker/target"
plant bundler/kit.c '#include "bundler/help.h"' \
	"^include-graph: bundler/kit.c includes bundler/help.h: bundler may not include from bundler/cli"
expect 0 $CHECK tree

note "a file outside every layer's folders fails"
echo 'int loose;' > tree/unpacker/loose.c
expect 1 $CHECK tree
assert_contains last.out "^include-graph: unpacker/loose.c lies in no layer"
rm tree/unpacker/loose.c

printf '#include "bundler/sums.h"\n' > tree/manifests/third.h
printf '#include "manifests/third.h"\n' >> tree/signing/verify.h
printf '#include "signing/verify.h"\n' >> tree/bundler/sums.h
expect 1 $CHECK tree
assert_contains last.out "include cycle between bundler/sums, manifests/third, signing/verify"
! grep -q "common/log" last.out || fail "a removed arrow is still reported"

note "relative includes are followed too; a .c with its own .h is one module"
cp "$TOP/bundler/sums.h" tree/bundler/sums.h
cp "$TOP/signing/verify.h" tree/signing/verify.h
rm tree/manifests/third.h
mkdir -p tree/unpacker/target/sub
printf '#include "b.h"\n' > tree/unpacker/target/sub/a.h
printf '#include "a.h"\n' > tree/unpacker/target/sub/a.c
printf '#include "a.h"\n' > tree/unpacker/target/sub/b.h
expect 1 $CHECK tree
assert_contains last.out "include cycle between unpacker/target/sub/a, unpacker/target/sub/b"
rm tree/unpacker/target/sub/b.h
expect 0 $CHECK tree
echo "PASS $NAME"
