#!/bin/sh
# Signed bundles that carry hostile entries: only the unpacker's extraction rules stand in
# the way. Each gets exit 3; nothing outside PREFIX/.staging-* is written, staging is gone,
# and the cuDNN installed before is untouched (files, current, state, environment).
. "$CUFERRY_TOP/tests/e2e/lib.sh"
FORGE="python3 $TOP/tests/tools/forge.py"

mkdir -p outside root
echo target > outside/target
"$UNPACKER" "$FX/small.bundle" --root "$W/root" --trust "$FX/test.pub" >/dev/null
before_outside=$(tree_listing outside)
before_root=$(tree_listing root)
for c in $($FORGE --list | awk '$2 == 3 {print $1}'); do
	note "$c"
	$FORGE --key "$FX/test.key" --out $c.bundle --case $c --outside "$W/outside"
	expect 3 "$UNPACKER" $c.bundle --root "$W/root" --trust "$FX/test.pub"
	one_line_reason
	[ "$(tree_listing outside)" = "$before_outside" ] || fail "$c changed outside/"
	[ "$(tree_listing root)" = "$before_root" ] || fail "$c changed the install root"
	no_staging root
	[ "$(stat -c %h outside/target)" = 1 ] || fail "$c linked to outside/target"
done

note "verify reports the same verdicts without writing"
expect 3 "$UNPACKER" verify dotdot.bundle --trust "$FX/test.pub"
