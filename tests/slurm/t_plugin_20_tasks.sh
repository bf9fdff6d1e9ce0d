# t_plugin_20_tasks.sh - several tasks, both nodes, and a user who is not root.

run_job srun -N 1 -w "$HOST" -n 4 --overcommit --mem-interleave=weighted "$SHOW"
n=$(grep -c ' mode=weighted .*policy=weighted interleave:0$' <<<"$OUT")
if [ $RC -eq 0 ] && [ "$n" -eq 4 ]; then
	t_pass "4 tasks: each gets weighted interleave and its environment"
else
	t_fail "4 tasks: each gets weighted interleave and its environment" "exit $RC, $n of 4: $OUT"
fi
ranks=$(sed -n 's/.* task=\([0-9]*\) .*/\1/p' <<<"$OUT" | sort -n | tr '\n' ' ')
t_expect_match "4 tasks: ranks 0-3 each report once" '^0 1 2 3 $' "$ranks"

run_job srun -N 2 -n 2 --mem-interleave=weighted "$SHOW"
n=$(grep -c ' mode=weighted .*policy=weighted interleave:0$' <<<"$OUT")
nodes=$(sed -n 's/.* node=\([^ ]*\) .*/\1/p' <<<"$OUT" | sort -u | wc -l)
if [ $RC -eq 0 ] && [ "$n" -eq 2 ] && [ "$nodes" -eq 2 ]; then
	t_pass "2-node step: a task on each node gets its policy"
else
	t_fail "2-node step: a task on each node gets its policy" "exit $RC, $n tasks on $nodes nodes: $OUT"
fi

run_job "${AS_USER[@]}" srun -N 1 -w "$HOST" -n 2 --mem-interleave=weighted "$SHOW"
n=$(grep -c ' mode=weighted .*policy=weighted interleave:0$' <<<"$OUT")
if [ $RC -eq 0 ] && [ "$n" -eq 2 ]; then
	t_pass "non-root user ($TEST_USER): 2 tasks get weighted interleave"
else
	t_fail "non-root user ($TEST_USER): 2 tasks get weighted interleave" "exit $RC: $OUT"
fi
run_job "${AS_USER[@]}" srun -w "$HOST" --mem-interleave=bogus true
if [ $RC -ne 0 ] && grep -q 'mem_interleave: .*bogus' <<<"$OUT"; then
	t_pass "non-root user: a bad value is refused naming it"
else
	t_fail "non-root user: a bad value is refused naming it" "exit $RC: $OUT"
fi
