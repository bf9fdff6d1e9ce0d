# t_demo.sh - the demo's part without a cluster (scripts/demo-node.sh), as a new admin
# runs it from the source tree, and relative --fsroot / MPOL_FSROOT for every verb that
# reads sysfs (sourced by tests/host/run). The cluster part of scripts/demo.sh is the
# slurm tier's ground.

TD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TD_TMP=$(mktemp -d)
TD_REL=tests/fixtures/linux-7.3-boot

# td_run ARGS...: mpolctl ARGS from the top of the source tree; TD_OUT, TD_ERR, TD_RC.
td_run() {
	TD_OUT=$(cd "$TD_TOP" && "$MPOLCTL" "$@" 2>"$TD_TMP/err")
	TD_RC=$?
	TD_ERR=$(cat "$TD_TMP/err")
}

if [ ! -x "$MPOLCTL" ]; then
	t_fail "demo: mpolctl" "$MPOLCTL is missing (build first)"
else
	td_out=$(timeout 60 "$TD_TOP/scripts/demo-node.sh" "$MPOLCTL" 2>&1)
	td_rc=$?
	if [ "$td_rc" -ne 0 ]; then
		t_fail "demo: scripts/demo-node.sh runs every step" "exit $td_rc: $(tail -n 5 <<<"$td_out")"
	else
		t_pass "demo: scripts/demo-node.sh runs every step"
		t_expect_match "demo: the bundled machine's plan (7:2 over nodes 0 and 2)" \
			"initiator node0 \(CPUs 0-1\): nodes 0,2 weights 7:2" "$td_out"
	fi
	# a step that fails ends the demo with its status, after saying which one
	printf '#!/bin/sh\n[ "$1" != plan ] || { echo "plan broke" >&2; exit 3; }\nexec "%s" "$@"\n' "$MPOLCTL" \
		>"$TD_TMP/mpolctl"
	chmod 755 "$TD_TMP/mpolctl"
	td_out=$(timeout 60 "$TD_TOP/scripts/demo-node.sh" "$TD_TMP/mpolctl" 2>&1)
	td_rc=$?
	if [ "$td_rc" -eq 3 ] && ! grep -q -- "--fsroot" <<<"$td_out"; then
		t_expect_match "demo: a failed step ends it (exit 3) and is named" 'demo: ".*mpolctl plan" failed' "$td_out"
	else
		t_fail "demo: a failed step ends it (exit 3) and is named" "exit $td_rc: $(tail -n 5 <<<"$td_out")"
	fi

	# relative roots, typed from the top of the source tree: made absolute once
	for td_verb in "show" "plan" "check" "apply --system --dry-run"; do
		td_run $td_verb --fsroot "$TD_REL" --json
		td_root=$(jq -r '.fsroot // "(none)"' <<<"$TD_OUT" 2>&1)
		if [ "$TD_RC" -ne 0 ]; then
			t_fail "demo: $td_verb --fsroot $TD_REL (relative)" "exit $TD_RC: $TD_ERR"
		elif [ "$td_root" != "$TD_TOP/$TD_REL" ] && [ "$td_root" != "(none)" ]; then
			t_fail "demo: $td_verb --fsroot $TD_REL (relative)" "fsroot '$td_root' is not $TD_TOP/$TD_REL"
		else
			t_pass "demo: $td_verb --fsroot $TD_REL (relative)"
		fi
	done
	td_out=$(cd "$TD_TOP" && MPOL_FSROOT=$TD_REL "$MPOLCTL" plan 2>&1)
	t_expect_match "demo: MPOL_FSROOT=$TD_REL plan (relative)" "nodes 0,2 weights 7:2" "$td_out"
	td_run show --fsroot tests/fixtures/no-such-machine
	if [ "$TD_RC" -eq 2 ]; then
		t_expect_match "demo: a missing relative --fsroot names the directory it was looked for in" \
			"--fsroot 'tests/fixtures/no-such-machine': no such directory \(a relative path is read from the current directory, '$TD_TOP'\)" \
			"$TD_ERR"
	else
		t_fail "demo: a missing relative --fsroot names the directory it was looked for in" "exit $TD_RC: $TD_ERR"
	fi
fi
rm -rf "$TD_TMP"
