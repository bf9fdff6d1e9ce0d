# t_plugin_65_weights.sh - the weights a job gets from the node's bandwidth and its memory
# request, through srun: a copy of the asym-rw fixture (fsroot=) whose read and write
# bandwidths differ and whose CXL node has 1 GiB free. sysfs=always lets the step write
# its weights into the copy's table, so the task reports the weights it computed; this
# host has node 0 only, so the kernel keeps node 0 of the policy's nodes.
#   min(read, write): 100000:40000 -> 5:2 (read alone 5:1, write alone 2:1)
#   --mem=4G: the 1 GiB CXL node is capped to a quarter -> 3:1; --mem=1G fits -> 5:2
# Then the same copy with an unreadable weights table: no weights claimed, the note says why.

fx=$top/tests/fixtures/asym-rw
copy=$MPOL_CLUSTER_DIR/asym-rw
wt_wi=$copy/sys/kernel/mm/mempolicy/weighted_interleave

# wt_job NAME MEM WANT_WEIGHTS: one weighted task with --mem=MEM reports WANT_WEIGHTS over
# nodes 0,1, and the copy's table held them while it ran.
wt_job() {
	local name=$1 mem=$2 want=$3 task
	run_job srun -N 1 -w "$HOST" -n 1 --mem="$mem" --mem-interleave=weighted \
		sh -c "echo during=\$(cat $wt_wi/node0):\$(cat $wt_wi/node1); $SHOW"
	task=$(grep '^task ' <<<"$OUT")
	check_task "$name: the task runs weighted" "$task" weighted '^weighted interleave:0$'
	if [ "$(field "$task" weights)" = "$want" ] && [[ $(field "$task" nodes) =~ ^0[,-]1$ ]]; then
		t_pass "$name: SLURM_MEM_INTERLEAVE_WEIGHTS=$want over nodes 0,1"
	else
		t_fail "$name: SLURM_MEM_INTERLEAVE_WEIGHTS=$want over nodes 0,1" "exit $RC: $OUT"
	fi
	t_expect_match "$name: the node's table held $want while the step ran" "^during=$want\$" "$OUT"
}

if [ ! -d "$fx/sys" ]; then
	t_fail "weights from the fixture" "$fx is missing"
else
	rm -rf "$copy"
	cp -a "$fx" "$copy"
	plugstack "fsroot=$copy" sysfs=always
	wt_job "read != write, --mem=1G" 1G 5:2
	wt_job "--mem=4G caps the 1 GiB CXL node" 4G 3:1
	if wait_until 10 sh -c "[ \"\$(cat $wt_wi/node0):\$(cat $wt_wi/node1)\" = 2:1 ]"; then
		t_pass "after the steps the copy's table is back to 2:1"
	else
		t_fail "after the steps the copy's table is back to 2:1" "$(cat "$wt_wi/node0"):$(cat "$wt_wi/node1")"
	fi

	# The weights table cannot be read: the task is told no weights, and why.
	echo banana >"$wt_wi/node0"
	plugstack "fsroot=$copy" sysfs=never
	run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted \
		sh -c "$SHOW; echo \"note=\$SLURM_MEM_INTERLEAVE_NOTE\""
	task=$(grep '^task ' <<<"$OUT")
	check_task "unreadable weights table: the task runs weighted" "$task" weighted '^weighted interleave:0$'
	if [ -n "$task" ] && [ -z "$(field "$task" weights)" ]; then
		t_pass "unreadable weights table: SLURM_MEM_INTERLEAVE_WEIGHTS is empty (none are claimed)"
	else
		t_fail "unreadable weights table: SLURM_MEM_INTERLEAVE_WEIGHTS is empty (none are claimed)" "exit $RC: $OUT"
	fi
	t_expect_match "unreadable weights table: SLURM_MEM_INTERLEAVE_NOTE says why" \
		"^note=$wt_wi/node0 does not hold a weight 0-255 for node 0; running on the node's current weights, which are unknown" \
		"$OUT"
	plugstack
	rm -rf "$copy"
fi
