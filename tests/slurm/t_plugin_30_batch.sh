# t_plugin_30_batch.sh - the option given to sbatch reaches the batch step and the
# srun steps inside it; given to salloc, it reaches the steps of the allocation.

jid=$(sbatch --parsable -N 1 -w "$HOST" -n 1 -o "$OUTDIR/%j.out" --mem-interleave=weighted \
	--wrap "$SHOW batch; srun $SHOW step" 2>&1)
if ! [[ $jid =~ ^[0-9]+$ ]]; then
	t_fail "sbatch --mem-interleave=weighted submits" "$jid"
elif ! wait_job "$jid"; then
	t_fail "sbatch job $jid ends" "still queued after ${JOB_TIMEOUT}s"
	scancel "$jid"
else
	out=$(cat "$OUTDIR/$jid.out" 2>&1)
	check_task "sbatch: the batch step gets weighted interleave" "$(grep '^batch ' <<<"$out")" \
		weighted '^weighted interleave:0$'
	check_task "sbatch: an srun step inside the job inherits it" "$(grep '^step ' <<<"$out")" \
		weighted '^weighted interleave:0$'
	rm -f "$OUTDIR/$jid.out"
fi

# An srun inside the batch job may ask for something else.
jid=$(sbatch --parsable -N 1 -w "$HOST" -n 1 -o "$OUTDIR/%j.out" --mem-interleave=weighted \
	--wrap "srun --mem-interleave=interleave $SHOW step" 2>&1)
if [[ $jid =~ ^[0-9]+$ ]] && wait_job "$jid"; then
	check_task "sbatch: an srun step can override the job's mode" \
		"$(grep '^step ' "$OUTDIR/$jid.out" 2>&1)" interleave '^interleave:0$'
	rm -f "$OUTDIR/$jid.out"
else
	t_fail "sbatch: an srun step can override the job's mode" "job '$jid' did not run"
fi

jid=$("${AS_USER[@]}" sbatch --parsable -N 1 -w "$HOST" -n 1 -o "$OUTDIR/%j.out" --mem-interleave=interleave \
	--wrap "$SHOW batch" 2>&1)
if [[ $jid =~ ^[0-9]+$ ]] && wait_job "$jid"; then
	check_task "sbatch as $TEST_USER: the batch step gets interleave" \
		"$(grep '^batch ' "$OUTDIR/$jid.out" 2>&1)" interleave '^interleave:0$'
	rm -f "$OUTDIR/$jid.out"
else
	t_fail "sbatch as $TEST_USER: the batch step gets interleave" "job '$jid' did not run"
fi

run_job salloc -N 1 -w "$HOST" -n 1 --mem-interleave=weighted srun "$SHOW" step
check_task "salloc: a step of the allocation gets weighted interleave" \
	"$(grep '^step ' <<<"$OUT")" weighted '^weighted interleave:0$'
