# t_plugin_80_concurrent.sh - steps that run at the same time: both get their policy, each
# task's environment says the weights it really runs on, another user's weights are never
# changed under their running step, and the table is restored after all of them.

before=$(wi_node0)
plugstack sysfs=always
# Both steps overlap for 3 s; each task reads node0 at its start. Only one step can
# hold the lease; the other runs on the table as it finds it, and must say so.
probe="echo start=\$(cat $WI_DIR/node0); $SHOW; sleep 3"
timeout "$JOB_TIMEOUT" srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:5 sh -c "$probe" >"$OUTDIR/conc1.$$" 2>&1 &
p1=$!
timeout "$JOB_TIMEOUT" srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:6 sh -c "$probe" >"$OUTDIR/conc2.$$" 2>&1 &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
for i in 1 2; do
	out=$(cat "$OUTDIR/conc$i.$$")
	rc=rc$i
	check_task "concurrent step $i runs weighted" "$(grep '^task ' <<<"$out")" weighted '^weighted interleave:0$'
	start=$(sed -n 's/^start=//p' <<<"$out")
	if [ "${!rc}" -eq 0 ] && [ -n "$start" ] && [ "$(field "$(grep '^task ' <<<"$out")" weights)" = "$start" ]; then
		t_pass "concurrent step $i: SLURM_MEM_INTERLEAVE_WEIGHTS is what sysfs held ($start)"
	else
		t_fail "concurrent step $i: SLURM_MEM_INTERLEAVE_WEIGHTS is what sysfs held" "exit ${!rc}: $out"
	fi
	rm -f "$OUTDIR/conc$i.$$"
done
if [ -n "$before" ] && wait_until 10 sh -c "[ \"\$(cat $WI_DIR/node0)\" = '$before' ]"; then
	t_pass "concurrent steps: node0 is back to $before after both"
else
	t_fail "concurrent steps: node0 is back to $before after both" "node0 is $(wi_node0)"
fi

# Another user's step holds the weights: a later step must not change them under it.
plugstack sysfs=always
flag=$OUTDIR/holder.$$
rm -f "$flag"
timeout "$JOB_TIMEOUT" "${AS_USER[@]}" srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:5 \
	sh -c "touch $flag; sleep 4" >/dev/null 2>&1 &
holder=$!
if wait_until 20 sh -c "[ -e $flag ] && [ \"\$(cat $WI_DIR/node0)\" = 5 ]"; then
	run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:6 sh -c "cat $WI_DIR/node0 | sed 's/^/during=/'; $SHOW"
	if [ $RC -eq 0 ] && grep -q '^during=5$' <<<"$OUT" && [ "$(field "$(grep '^task ' <<<"$OUT")" weights)" = 5 ]; then
		t_pass "$TEST_USER's step holds weight 5: root's step runs on it and says so"
	else
		t_fail "$TEST_USER's step holds weight 5: root's step runs on it and says so" "exit $RC: $OUT"
	fi
	t_expect_match "another user's weights are not changed under their step" '^5$' "$(wi_node0)"
else
	t_fail "another user's step holds the weights" "$TEST_USER's step did not start with node0=5 (node0 is $(wi_node0))"
fi
wait "$holder"
rm -f "$flag"
if [ -n "$before" ] && wait_until 10 sh -c "[ \"\$(cat $WI_DIR/node0)\" = '$before' ]"; then
	t_pass "after $TEST_USER's step node0 is back to $before"
else
	t_fail "after $TEST_USER's step node0 is back to $before" "node0 is $(wi_node0)"
fi

# Two steps of one job at once, without sysfs: both get their own policy.
plugstack
# (--overlap: a step takes the job's whole memory by default, and would wait for the other)
run_job salloc -N 1 -w "$HOST" -n 2 sh -c "srun --overlap -n 1 --mem-interleave=weighted $SHOW a & srun --overlap -n 1 --mem-interleave=interleave $SHOW b & wait"
check_task "two steps of one job at once: the first runs weighted" "$(grep '^a ' <<<"$OUT")" weighted '^weighted interleave:0$'
check_task "two steps of one job at once: the second runs interleave" "$(grep '^b ' <<<"$OUT")" interleave '^interleave:0$'
