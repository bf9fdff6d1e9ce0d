# t_acct_50_scale.sh - the placement record at scale (issue 12): one step over
# MPOL_SCALE_NODES nodes (default 16; each a slurmd "host" on this machine), run by
# bench/acct-scale with and without the plugin, alternated. The cases: every step's
# record holds every node, and slurmctld serves at most one update and one read of the
# job per step for it (the step's first node writes for all). The step-time ratio is
# printed, not asserted (a timing on a shared 2-core machine is no pass/fail).
# The tier's two-node cluster is restarted with N nodes and back again (about 30 s).

nodes=${MPOL_SCALE_NODES:-16}
if [ ! -x "$PY" ]; then
	t_skip "scale cases" "$PY is missing (install python3)"
	return 0 2>/dev/null || exit 0
fi
t0=$(date +%s)
out=$(MPOL_PLUGSTACK_ARGS="statedir=$STATEDIR" "$top/bench/acct-scale" -N "$nodes" -n "${MPOL_SCALE_STEPS:-3}" 2>&1 9>&-)
rc=$?
sed -n '/^acct-scale: [0-9]* steps/,$p' <<<"$out" | sed 's/^/    /'
if [ $rc -ne 0 ]; then
	t_fail "scale: $nodes-node steps run with and without the plugin" "$(tail -n 5 <<<"$out")"
else
	t_expect_match "scale: every $nodes-node step's record holds all $nodes nodes" "^ratio .* lost 0 of [0-9]+ +nodes $nodes " "$out"
	updates=$(sed -n 's/^rpc REQUEST_UPDATE_JOB //p' <<<"$out")
	reads=$(sed -n 's/^rpc REQUEST_JOB_INFO_SINGLE //p' <<<"$out")
	if awk -v u="${updates:-0}" -v r="${reads:-0}" 'BEGIN { exit !(u <= 1.0 && r <= 1.0) }'; then
		t_pass "scale: the plugin costs slurmctld at most 1 update and 1 read per $nodes-node step (${updates:-0}, ${reads:-0})"
	else
		t_fail "scale: the plugin costs slurmctld at most 1 update and 1 read per $nodes-node step" \
			"updates ${updates:-0}, reads ${reads:-0} per step: $(grep '^rpc ' <<<"$out" | paste -sd ' ')"
	fi
fi
# Back to the tier's two nodes for the files after this one.
restart=$(MPOL_PLUGSTACK_ARGS="statedir=$STATEDIR" "$CLUSTER" start --nodes 2 2>&1 9>&-) ||
	t_fail "scale: the two-node cluster comes back" "$(tail -n 3 <<<"$restart")"
echo "    (scale cases took $(($(date +%s) - t0)) s)"
