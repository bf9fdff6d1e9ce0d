# t_plugin_80_concurrent.sh - steps that start together: both run with their policy, each
# task's environment says the weights it really runs on, and the table is restored after both.

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

# Two steps of one job at once, without sysfs: both get their own policy.
plugstack
# (--overlap: a step takes the job's whole memory by default, and would wait for the other)
run_job salloc -N 1 -w "$HOST" -n 2 sh -c "srun --overlap -n 1 --mem-interleave=weighted $SHOW a & srun --overlap -n 1 --mem-interleave=interleave $SHOW b & wait"
check_task "two steps of one job at once: the first runs weighted" "$(grep '^a ' <<<"$OUT")" weighted '^weighted interleave:0$'
check_task "two steps of one job at once: the second runs interleave" "$(grep '^b ' <<<"$OUT")" interleave '^interleave:0$'
