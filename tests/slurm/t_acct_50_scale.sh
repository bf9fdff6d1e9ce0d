# t_acct_50_scale.sh - the placement record at scale (issue 12): one step over
# MPOL_SCALE_NODES nodes (default 16; each a slurmd "host" on this machine), run by
# bench/acct-scale with and without the plugin, alternated. The cases: every step's
# record holds every node, slurmctld serves at most one update and one read of the
# job per step for it (the step's first node writes for all), the first node's slurmd
# passes on at most ceil(sqrt(N)) deliveries (the fan-in tree), and a node of the tree
# that outlasts the first node's wait still gets its subtree into the record. The
# step-time ratio is printed, not asserted (a timing on a shared 2-core machine is no
# pass/fail).
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
	fanin=$(sed -n 's/^fanin //p' <<<"$out")
	fanout=$(awk -v n="$nodes" 'BEGIN { k = 2; while (k * k < n) k++; print k }')
	if [ "${fanin:-0}" -ge 1 ] && [ "${fanin:-0}" -le "$fanout" ]; then
		t_pass "scale: the first node's slurmd passes on at most $fanout deliveries per $nodes-node step ($fanin; the fan-in tree)"
	else
		t_fail "scale: the first node's slurmd passes on at most $fanout deliveries per $nodes-node step" \
			"it took ${fanin:-none} (a star would be $((nodes - 1)))"
	fi
	if awk -v u="${updates:-0}" -v r="${reads:-0}" 'BEGIN { exit !(u <= 1.0 && r <= 1.0) }'; then
		t_pass "scale: the plugin costs slurmctld at most 1 update and 1 read per $nodes-node step (${updates:-0}, ${reads:-0})"
	else
		t_fail "scale: the plugin costs slurmctld at most 1 update and 1 read per $nodes-node step" \
			"updates ${updates:-0}, reads ${reads:-0} per step: $(grep '^rpc ' <<<"$out" | paste -sd ' ')"
	fi
fi
# A node in the middle of the tree outlasts the first node's wait: its task (node 1 of
# the step, parent of 5-8 at 16 nodes) sleeps 7 s, the others 1 s. The first node
# writes what it has after 5 s; node 1 collects its children, finds no collector left
# and writes the 5 entries itself: the record still holds every node.
if [ $rc -eq 0 ] && [ "$nodes" -ge 6 ]; then
	timeout "$JOB_TIMEOUT" srun -N "$nodes" -n "$nodes" --mem-interleave=weighted bash -c \
		'echo "node $SLURM_NODEID $SLURMD_NODENAME"; [ "$SLURM_PROCID" = 0 ] && echo JOB=$SLURM_JOB_ID
		 [ "$SLURM_NODEID" = 1 ] && sleep 7 || sleep 1' >"$OUTDIR/relay.out" 2>&1
	RC=$?
	job=$(acct_job "$(cat "$OUTDIR/relay.out")")
	root=$(sed -n 's/^node 0 //p' "$OUTDIR/relay.out") relay=$(sed -n 's/^node 1 //p' "$OUTDIR/relay.out")
	subtree=$((1 + $(awk -v n="$nodes" -v k="$fanout" 'BEGIN { c = 0; for (i = k + 1; i <= 2 * k && i < n; i++) c++; print c }')))
	comment=$(acct_comment "$job")
	held=$(acct_py "$comment" 'len(r["steps"]["0"]["*"]["hosts"]) if "*" in r["steps"]["0"] else len(r["steps"]["0"])')
	said_root=$(grep -F "job $job step 0:" "$MPOL_CLUSTER_DIR/log/slurmd-$root.log" 2>/dev/null)
	said_relay=$(grep -F "job $job step 0:" "$MPOL_CLUSTER_DIR/log/slurmd-$relay.log" 2>/dev/null)
	if [ $RC -eq 0 ] && [ "$held" = "$nodes" ] &&
		grep -q "$subtree node(s) did not hand over" <<<"$said_root" &&
		grep -q "writes its $subtree entries itself" <<<"$said_relay"; then
		t_pass "scale: a node of the tree that outlasts the first node's wait writes its subtree's $subtree entries itself: all $nodes in the record"
	else
		t_fail "scale: a node of the tree that outlasts the first node's wait writes its subtree's $subtree entries itself" \
			"job '$job' exit $RC, record holds ${held:-nothing}; $root: ${said_root:0:500}; $relay: ${said_relay:0:500}"
	fi
fi
# Back to the tier's two nodes for the files after this one.
restart=$(MPOL_PLUGSTACK_ARGS="statedir=$STATEDIR" "$CLUSTER" start --nodes 2 2>&1 9>&-) ||
	t_fail "scale: the two-node cluster comes back" "$(tail -n 3 <<<"$restart")"
echo "    (scale cases took $(($(date +%s) - t0)) s)"
