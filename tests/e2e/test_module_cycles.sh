#!/bin/sh
# No include cycle between modules (X.c with X.h), issue 9: a module that includes a header
# which includes it back cannot be understood, tested or moved on its own. The checker itself
# is shown to find a cycle first, so a pass means something.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
CHECK=$TOP/tests/tools/module_cycles.py

note "the checker finds a cycle (a.c includes b.h, b.c includes a.h) and names both includes"
mkdir -p tree/src/part
printf '#include "src/part/b.h"\n' > tree/src/part/a.c
printf '#include "src/part/a.h"\n' > tree/src/part/b.c
printf '/* a */\n' > tree/src/part/a.h
printf '/* b */\n' > tree/src/part/b.h
printf '#include "src/part/a.h"\n' > tree/src/c.c
expect 1 python3 "$CHECK" --top tree src
assert_contains "$W/last.out" "cycle: src/part/a src/part/b"
assert_contains "$W/last.out" "src/part/a.c includes src/part/b.h"
assert_contains "$W/last.out" "src/part/b.c includes src/part/a.h"
grep -q "src/c" "$W/last.out" && fail "a module outside the cycle was named"
note "one direction only: no cycle"
printf '/* b */\n' > tree/src/part/b.c
expect 0 python3 "$CHECK" --top tree src
[ ! -s "$W/last.out" ] || fail "a cycle reported where there is none: $(cat "$W/last.out")"

note "the validation side (unpacker/validate/) and the whole tree have none"
expect 0 python3 "$CHECK" unpacker/validate
(cd / && expect 0 python3 "$CHECK") || fail "a cycle in the tree (run tests/tools/module_cycles.py)"
echo "ok"
