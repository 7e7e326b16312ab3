# lib.sh - the threat suite's helpers (sourced after tests/e2e/lib.sh, with RES set): every
# case runs interactive and /silent with stdin closed and makes the suite's four assertions.
FORGE="python3 $TOP/tests/tools/forge.py"

# VALIDATE_WRITES: what validate writes by design (the install's report.json, a failed run's
# report under .cuferry/failed), left out of the snapshot by a suite whose cases validate.
VALIDATE_WRITES='\|report\.json\|\.cuferry/failed'
SNAPSHOT_IGNORE=
snapshot() { # what must not change: outside, the prefix, state, environment
	tree_listing "$W/outside"
	tree_listing "$R/opt/cudnn" | grep -v " lock\| \./\.cuferry/lock$SNAPSHOT_IGNORE" || true
	cat "$R/etc/ld.so.conf.d/"* "$R/etc/profile.d/"* 2>/dev/null || true
}

record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >> "$RES"; }

# run_case ID "threat" "behaviour" CODE BUNDLE [extra args]: both modes, four assertions,
# against the root $R (set per case); the outside tree is $W/outside.
run_case() {
	id=$1 threat=$2 behaviour=$3 code=$4 bundle=$5; shift 5
	for mode in interactive silent; do
		before=$(snapshot)
		if [ $mode = silent ]; then
			rm -f "$W/s.log"
			expect "$code" "$UNPACKER" "$bundle" --root "$R" --trust "$FX/test.pub" /silent /log="$W/s.log" "$@" </dev/null
		else
			expect "$code" "$UNPACKER" "$bundle" --root "$R" --trust "$FX/test.pub" "$@"
		fi
		if [ "$code" -ne 0 ]; then
			one_line_reason
			[ $mode = interactive ] || grep -q "error" "$W/s.log" || fail "$id: no reason in the silent log"
			# Every line of a failed run's log is stamped: no field can forge a line. The
			# exception: validation's result rows, mirrored as printed (names escaped).
			[ $mode = interactive ] || ! grep -v '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T\|^step check\|^[1-6]    \|^        ' "$W/s.log" ||
				fail "$id: a log line without its stamp (a forged line?)"
		fi
		[ "$(snapshot)" = "$before" ] || fail "$id ($mode): something changed"
		no_staging "$W"
	done
	record "$id" "$threat" "$behaviour" "threats/$id" "pass (exit $code, both modes)"
	echo "ok   threat $id"
}


# run_repair_case ID "threat" "behaviour" DAMAGE BUNDLE [extra args]: the installed tree,
# damaged by the shell function DAMAGE before each mode, is put back by a re-run of BUNDLE in
# both modes. The suite's four assertions for a run that must succeed: exit 0 and no error
# line; the outside tree unchanged (nothing written through a link); no staging, repair or
# aside leftovers; the prefix (the install exactly as before the damage), state and
# environment unchanged.
run_repair_case() {
	id=$1 threat=$2 behaviour=$3 damage=$4 bundle=$5; shift 5
	for mode in interactive silent; do
		before=$(snapshot)
		$damage
		if [ $mode = silent ]; then
			rm -f "$W/s.log"
			expect 0 "$UNPACKER" "$bundle" --root "$R" --trust "$FX/test.pub" /silent /log="$W/s.log" "$@" </dev/null
		else
			expect 0 "$UNPACKER" "$bundle" --root "$R" --trust "$FX/test.pub" "$@"
			assert_contains "$W/last.out" "repaired: "
		fi
		! grep -q error "$W/last.err" || { cat "$W/last.err" >&2; fail "$id ($mode): an error line"; }
		[ "$(snapshot)" = "$before" ] || fail "$id ($mode): the install was not put back as it was"
		no_staging "$W"
		left=$(find "$R" -name '*.cuferry-aside' -o -name '*.cuferry-repair' | head -1)
		[ -z "$left" ] || fail "$id ($mode): left behind: $left"
	done
	record "$id" "$threat" "$behaviour" "threats/$id" "pass (exit 0, both modes)"
	echo "ok   threat $id"
}
# fresh_root DIR: R=DIR, a root with the small bundle installed, which a case must leave as it
# was; outside_tree: the sentinel tree outside every prefix ($W/outside).
fresh_root() {
	R=$1
	mkdir -p "$R"
	"$UNPACKER" "$FX/small.bundle" --root "$R" --trust "$FX/test.pub" --no-validate >/dev/null
}
outside_tree() {
	mkdir -p "$W/outside/sub"
	echo target > "$W/outside/target"
	echo data > "$W/outside/sub/file"
}
# as_root_cases: a script whose cases need root (the ownership rules) skips without it, and
# runs with umask 022 and the outside tree.
as_root_cases() {
	[ "$(id -u)" = 0 ] || { echo "skip: the ownership rules need root"; exit 0; }
	umask 022
	outside_tree
}
# run_statement_case ID "threat" "behaviour" CODE STATEMENT: 'unpacker trust apply' in both
# modes against $R, the same four assertions, the trust directory unchanged too.
run_statement_case() {
	id=$1 threat=$2 behaviour=$3 code=$4 statement=$5
	for mode in interactive silent; do
		before=$(snapshot; tree_listing "$R/etc/cuferry")
		if [ $mode = silent ]; then
			rm -f "$W/s.log"
			expect "$code" "$UNPACKER" trust apply "$statement" --root "$R" /silent /log="$W/s.log" </dev/null
			grep -q "error" "$W/s.log" || fail "$id: no reason in the silent log"
		else
			expect "$code" "$UNPACKER" trust apply "$statement" --root "$R"
		fi
		one_line_reason
		[ "$(snapshot; tree_listing "$R/etc/cuferry")" = "$before" ] || fail "$id ($mode): something changed"
		no_staging "$W"
	done
	record "$id" "$threat" "$behaviour" "threats/$id" "pass (exit $code, both modes)"
	echo "ok   threat $id"
}
