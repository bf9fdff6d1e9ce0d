# t_plugin_10_modes.sh - every MODE through a real srun: the task's environment says
# what was applied and the kernel's numa_maps shows the same policy. This host has one
# NUMA node and weighted interleave (Linux >= 6.9).

# The plugin must only act on request: the shipped default is none.
run_job srun -w "$HOST" "$SHOW"
if [ "$(policy_of "$OUT")" = default ] && [[ $(field "$OUT" mode) =~ ^(unset|none)$ ]]; then
	t_pass "no option: default policy"
else
	t_fail "no option: default policy" "exit $RC: $OUT"
fi

run_job srun -w "$HOST" --mem-interleave=weighted "$SHOW"
check_task "weighted: weighted interleave on node 0" "$OUT" weighted '^weighted interleave:0$'
t_expect_match "weighted: SLURM_MEM_INTERLEAVE_NODES=0" '^0$' "$(field "$OUT" nodes)"
t_expect_match "weighted: SLURM_MEM_INTERLEAVE_WEIGHTS is one weight" '^[1-9][0-9]*$' "$(field "$OUT" weights)"

run_job srun -w "$HOST" --mem-interleave=auto "$SHOW"
check_task "auto: weighted interleave with the kernel's weights" "$OUT" auto '^weighted interleave:0$'
t_expect_match "auto: weights are the kernel's node0 ($(wi_node0))" "^$(wi_node0)\$" "$(field "$OUT" weights)"

run_job srun -w "$HOST" --mem-interleave=interleave "$SHOW"
check_task "interleave: plain interleave on node 0" "$OUT" interleave '^interleave:0$'

run_job srun -w "$HOST" --mem-interleave=none "$SHOW"
check_task "none: default policy" "$OUT" none '^default$'

# Explicit nodes and weights; weights imply the nodes.
run_job srun -w "$HOST" --mem-interleave=weighted,nodes=0 "$SHOW"
check_task "weighted,nodes=0" "$OUT" weighted '^weighted interleave:0$'
run_job srun -w "$HOST" --mem-interleave=weighted,weights=0:3,scope=all,precision=0.9 "$SHOW"
check_task "weighted with weights, scope and precision" "$OUT" weighted '^weighted interleave:0$'
t_expect_match "weights=0:3 implies nodes=0" '^0$' "$(field "$OUT" nodes)"

# A node this machine does not have is caught on the node, with a clear message.
run_job srun -w "$HOST" --mem-interleave=weighted,nodes=5 "$SHOW"
if [ $RC -ne 0 ] && grep -q 'mem_interleave: node 5 is not online; nodes with memory: ' <<<"$OUT"; then
	t_pass "nodes=5 on a one-node machine fails naming node 5"
else
	t_fail "nodes=5 on a one-node machine fails naming node 5" "exit $RC: $OUT"
fi

# verbose: one line per task on stderr, like --mem-bind=verbose; quiet: none.
OUT=$(timeout "$JOB_TIMEOUT" srun -N 1 -w "$HOST" -n 2 --mem-interleave=verbose,weighted true 2>&1 >/dev/null)
n=$(grep -c '^mem_interleave: task [01] .*weighted interleave' <<<"$OUT")
if [ "$n" -eq 2 ]; then
	t_pass "verbose: one line per task on stderr"
else
	t_fail "verbose: one line per task on stderr" "got $n lines: $OUT"
fi
OUT=$(timeout "$JOB_TIMEOUT" srun -w "$HOST" --mem-interleave=quiet,weighted true 2>&1)
if [ $? -eq 0 ] && ! grep -q 'mem_interleave' <<<"$OUT"; then
	t_pass "quiet: no mem_interleave line on stderr"
else
	t_fail "quiet: no mem_interleave line on stderr" "got: $OUT"
fi

# The site's default= applies when the user gave no option; the user's none wins.
plugstack default=weighted
run_job srun -w "$HOST" "$SHOW"
check_task "plugstack default=weighted applies without the option" "$OUT" weighted '^weighted interleave:0$'
run_job srun -w "$HOST" --mem-interleave=none "$SHOW"
check_task "the user's none overrides default=weighted" "$OUT" none '^default$'

# The site's default never fails a job that did not ask: where it cannot apply (node 5
# is not on this machine) the job runs without a policy and says so.
plugstack default=weighted,nodes=5
mark=$(log_mark "$SLURMD_LOG")
run_job srun -w "$HOST" sh -c "$SHOW; echo \"note=\$SLURM_MEM_INTERLEAVE_NOTE\""
check_task "default=weighted,nodes=5 without node 5: a job that gave no option runs without a policy" \
	"$(grep '^task ' <<<"$OUT")" none '^default$'
t_expect_match "default=weighted,nodes=5: SLURM_MEM_INTERLEAVE_NOTE says the default cannot apply" \
	"^note=the site's default 'weighted,nodes=5' cannot apply on this node: node 5 is not online" "$OUT"
t_expect_match "default=weighted,nodes=5: slurmd's log says so" \
	"mem_interleave: job [0-9]+ step [0-9]+: the site's default 'weighted,nodes=5' cannot apply on this node: node 5 is not online" \
	"$(log_since "$SLURMD_LOG" "$mark")"
run_job srun -w "$HOST" --mem-interleave=weighted,nodes=5 "$SHOW"
if [ $RC -ne 0 ] && grep -q 'mem_interleave: node 5 is not online' <<<"$OUT"; then
	t_pass "default=weighted,nodes=5: a job that asks for node 5 itself still fails naming it"
else
	t_fail "default=weighted,nodes=5: a job that asks for node 5 itself still fails naming it" "exit $RC: $OUT"
fi
plugstack
