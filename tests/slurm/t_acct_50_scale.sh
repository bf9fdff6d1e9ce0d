# t_acct_50_scale.sh - the placement record at scale (issue 12): one step over
# MPOL_SCALE_NODES nodes (default 16; each a slurmd "host" on this machine), run by
# bench/acct-scale with and without the plugin, alternated. The cases: every step's
# record holds every node, slurmctld serves at most one update and two reads of the
# job per step for it (the step's first node writes for all, and reads its write
# back), the first node's slurmd
# passes on at most 2 ceil(sqrt(N)) deliveries (the fan-in tree: one per child after
# the sample, at most one more at the end), the entries reach the first node while
# the tasks run (handed up after the sample), and a node of the tree whose entry
# changes after the first node wrote still gets its last entry, and its subtree's,
# into the record; with one sample per node (sample_interval=0) the entries still
# reach the first node before its end. The step-time ratio is printed, not asserted
# (a timing on a shared 2-core machine is no pass/fail).
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
	layouts=$(sed -n 's/^rpc REQUEST_STEP_LAYOUT //p' <<<"$out")
	fanin=$(sed -n 's/^fanin //p' <<<"$out")
	fanout=$(awk -v n="$nodes" 'BEGIN { k = 2; while (k * k < n) k++; print k }')
	if [ "${fanin:-0}" -ge 1 ] && [ "${fanin:-0}" -le $((2 * fanout)) ]; then
		t_pass "scale: the first node's slurmd passes on at most $((2 * fanout)) deliveries per $nodes-node step ($fanin; the fan-in tree)"
	else
		t_fail "scale: the first node's slurmd passes on at most $((2 * fanout)) deliveries per $nodes-node step" \
			"it took ${fanin:-none} (a star would be $((nodes - 1)))"
	fi
	# fewest and most other nodes' entries the first node held before its tasks ended
	read -r _ _ most _ others < <(grep '^early ' <<<"$out")
	if [ -n "$most" ] && [ "$most" = "$others" ]; then
		t_pass "scale: the other $others nodes hand their entries up while the tasks run, not at the step's end ($(grep '^early ' <<<"$out"))"
	else
		t_fail "scale: the other $((nodes - 1)) nodes hand their entries up while the tasks run, not at the step's end" \
			"in no step did the first node hold them all before its end: $(grep '^early ' <<<"$out")"
	fi
	# (the read, and the read of the write back)
	if awk -v u="${updates:-0}" -v r="${reads:-0}" 'BEGIN { exit !(u <= 1.0 && r <= 2.0) }'; then
		t_pass "scale: the plugin costs slurmctld at most 1 update and 2 reads per $nodes-node step (${updates:-0}, ${reads:-0})"
	else
		t_fail "scale: the plugin costs slurmctld at most 1 update and 2 reads per $nodes-node step" \
			"updates ${updates:-0}, reads ${reads:-0} per step: $(grep '^rpc ' <<<"$out" | paste -sd ' ')"
	fi
	# each node learns the step's nodes from slurmctld once (record_step.c learn_hosts)
	if awk -v l="${layouts:-0}" -v n="$nodes" 'BEGIN { exit !(l >= 1 && l <= n) }'; then
		t_pass "scale: each node of a $nodes-node step asks slurmctld for its layout at most once (${layouts:-0} a step)"
	else
		t_fail "scale: each node of a $nodes-node step asks slurmctld for its layout at most once" \
			"${layouts:-0} layout requests per step: $(grep '^rpc ' <<<"$out" | paste -sd ' ')"
	fi
fi
# A node in the middle of the tree changes its entry after the first node wrote: with
# a sample every 2 s, its task (node 1 of the step, parent of 5-8 at 16 nodes) sleeps
# 7 s and is sampled 3 or 4 times, the others sleep 2 s and are sampled once. The
# first node writes at its end what was handed up after the first sample; node 1's
# later hand-overs find no collector, and at its end it writes its subtree's entries
# itself: the record holds every node and node 1's last sample.
if [ $rc -eq 0 ] && [ "$nodes" -ge 6 ]; then
	"$CLUSTER" plugstack "statedir=$STATEDIR sample_interval=2"
	timeout "$JOB_TIMEOUT" srun -N "$nodes" -n "$nodes" --mem-interleave=weighted bash -c \
		'echo "node $SLURM_NODEID $SLURMD_NODENAME"; [ "$SLURM_PROCID" = 0 ] && echo JOB=$SLURM_JOB_ID
		 [ "$SLURM_NODEID" = 1 ] && sleep 7 || sleep 2' >"$OUTDIR/relay.out" 2>&1
	RC=$?
	"$CLUSTER" plugstack "statedir=$STATEDIR"
	job=$(acct_job "$(cat "$OUTDIR/relay.out")")
	root=$(sed -n 's/^node 0 //p' "$OUTDIR/relay.out") relay=$(sed -n 's/^node 1 //p' "$OUTDIR/relay.out")
	subtree=$((1 + $(awk -v n="$nodes" -v k="$fanout" 'BEGIN { c = 0; for (i = k + 1; i <= 2 * k && i < n; i++) c++; print c }')))
	comment=$(acct_comment "$job")
	held=$(acct_py "$comment" 'len(r["steps"]["0"]["*"]["hosts"]) if "*" in r["steps"]["0"] else len(r["steps"]["0"])')
	samples=$(acct_py "$comment" 'r["steps"]["0"]["'"$relay"'"]["samples"]')
	said_root=$(grep -F "job $job step 0:" "$MPOL_CLUSTER_DIR/log/slurmd-$root.log" 2>/dev/null)
	said_relay=$(grep -F "job $job step 0:" "$MPOL_CLUSTER_DIR/log/slurmd-$relay.log" 2>/dev/null)
	if [ $RC -eq 0 ] && [ "$held" = "$nodes" ] && [ "${samples:-0}" -ge 3 ] &&
		grep -q "writes its $subtree entries itself" <<<"$said_relay"; then
		t_pass "scale: a node of the tree whose entry changes after the first node wrote writes its subtree's $subtree entries itself: all $nodes in the record, its last of $samples samples too"
	else
		t_fail "scale: a node of the tree whose entry changes after the first node wrote writes its subtree's $subtree entries itself" \
			"job '$job' exit $RC, record holds ${held:-nothing}, $relay's entry ${samples:-no} samples; $root: ${said_root:0:500}; $relay: ${said_relay:0:500}"
	fi
fi
# With sample_interval=0 each node samples once and its sampler then sleeps until the
# step's end or its children's entries come in: the nodes with children still hand
# them on, so the first node holds every entry before its end.
if [ $rc -eq 0 ] && [ "$nodes" -ge 6 ]; then
	"$CLUSTER" plugstack "statedir=$STATEDIR sample_interval=0"
	timeout "$JOB_TIMEOUT" srun -N "$nodes" -n "$nodes" --mem-interleave=weighted bash -c \
		'echo "node $SLURM_NODEID $SLURMD_NODENAME"; [ "$SLURM_PROCID" = 0 ] && echo JOB=$SLURM_JOB_ID
		 sleep 3' >"$OUTDIR/once.out" 2>&1
	RC=$?
	"$CLUSTER" plugstack "statedir=$STATEDIR"
	job=$(acct_job "$(cat "$OUTDIR/once.out")")
	root=$(sed -n 's/^node 0 //p' "$OUTDIR/once.out")
	comment=$(acct_comment "$job")
	held=$(acct_py "$comment" 'len(r["steps"]["0"]["*"]["hosts"]) if "*" in r["steps"]["0"] else len(r["steps"]["0"])')
	said_root=$(grep -F "job $job step 0:" "$MPOL_CLUSTER_DIR/log/slurmd-$root.log" 2>/dev/null)
	if [ $RC -eq 0 ] && [ "$held" = "$nodes" ] &&
		grep -q "handed to the node's courier by the step's collector ($((nodes - 1)) of the others' entries in before its end" <<<"$said_root"; then
		t_pass "scale: with one sample per node (sample_interval=0) the $((nodes - 1)) other entries still reach the first node before its end"
	else
		t_fail "scale: with one sample per node (sample_interval=0) the $((nodes - 1)) other entries still reach the first node before its end" \
			"job '$job' exit $RC, record holds ${held:-nothing}; $root: ${said_root:0:500}"
	fi
fi
# Back to the tier's two nodes for the files after this one.
restart=$(MPOL_PLUGSTACK_ARGS="statedir=$STATEDIR" "$CLUSTER" start --nodes 2 2>&1 9>&-) ||
	t_fail "scale: the two-node cluster comes back" "$(tail -n 3 <<<"$restart")"
echo "    (scale cases took $(($(date +%s) - t0)) s)"
