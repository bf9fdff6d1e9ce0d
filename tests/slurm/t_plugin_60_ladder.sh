# t_plugin_60_ladder.sh - the kernel ladder: with fsroot= pointing at a captured Linux
# 6.1 sysfs (no weighted interleave), tasks fall back to plain interleave and say so;
# with strict they fail with a clear message instead.

if [ ! -d "$FIXTURE_OLD/sys/devices/system/node" ]; then
	t_fail "kernel ladder" "fixture $FIXTURE_OLD is missing (tests/fixtures, from the topo work)"
else
	plugstack "fsroot=$FIXTURE_OLD" sysfs=never
	run_job srun -w "$HOST" --mem-interleave=verbose,weighted "$SHOW"
	check_task "6.1 sysfs: weighted falls back to interleave" "$(grep '^task ' <<<"$OUT")" \
		interleave '^interleave:0$'
	if grep -q '^mem_interleave: task 0 .*interleave' <<<"$OUT" && ! grep -q 'weighted interleave nodes' <<<"$OUT"; then
		t_pass "6.1 sysfs: verbose output says interleave"
	else
		t_fail "6.1 sysfs: verbose output says interleave" "$OUT"
	fi

	name=mpol-strict-$$
	run_job srun -J "$name" -w "$HOST" --mem-interleave=weighted,strict "$SHOW"
	if [ $RC -ne 0 ] && grep -q 'mem_interleave: strict' <<<"$OUT" && ! grep -q '^task ' <<<"$OUT"; then
		t_pass "6.1 sysfs: strict fails the task with a clear message"
	else
		t_fail "6.1 sysfs: strict fails the task with a clear message" "exit $RC: $OUT"
	fi

	run_job srun -w "$HOST" --mem-interleave=interleave,strict "$SHOW"
	check_task "6.1 sysfs: interleave,strict needs no weights and runs" "$OUT" interleave '^interleave:0$'
	plugstack
fi
