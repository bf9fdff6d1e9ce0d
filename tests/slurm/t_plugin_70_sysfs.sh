# t_plugin_70_sysfs.sh - global sysfs weights: written for a step only when the site
# allows it (sysfs=never|exclusive|always), visible in sysfs while the step runs, and
# restored exactly when it ends. The host kernel's real table is used.

before=$(wi_node0)
if [ -z "$before" ]; then
	t_fail "sysfs weights" "$WI_DIR/node0 is missing: this kernel has no weighted interleave"
else
	# wi_back: node0 is back to its value before the step (the lease is released in
	# slurmstepd's exit callback, which may run just after srun returns).
	wi_back() { wait_until 10 sh -c "[ \"\$(cat $WI_DIR/node0)\" = '$before' ]"; }
	# pick a weight the table does not have now, so a write cannot go unnoticed
	w=5
	[ "$before" != $w ] || w=6
	during="cat $WI_DIR/node0 | sed 's/^/during=/'; $SHOW"

	plugstack sysfs=always
	run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:$w sh -c "$during"
	t_expect_match "sysfs=always: node0 is $w while the step runs" "^during=$w\$" "$OUT"
	check_task "sysfs=always: the task runs weighted" "$(grep '^task ' <<<"$OUT")" weighted '^weighted interleave:0$'
	t_expect_match "sysfs=always: SLURM_MEM_INTERLEAVE_WEIGHTS=$w" "^$w\$" "$(field "$(grep '^task ' <<<"$OUT")" weights)"
	if wi_back; then
		t_pass "sysfs=always: node0 is back to $before after the step"
	else
		t_fail "sysfs=always: node0 is back to $before after the step" "node0 is $(wi_node0)"
	fi
	# (the record's collector sockets and spool have directories of their own there)
	if [ -z "$(ls -A "$STATEDIR" 2>/dev/null | grep -v -e '^lock$' -e '^record.lock$' -e '^gather$' -e '^spool$')" ]; then
		t_pass "sysfs=always: no journal left in the statedir"
	else
		t_fail "sysfs=always: no journal left in the statedir" "$(ls -l "$STATEDIR")"
	fi

	# exclusive (the default): only a job that owns every CPU of the node.
	plugstack sysfs=exclusive
	ncpu=$(nproc)
	run_job srun -N 1 -w "$HOST" -n "$ncpu" --mem-interleave=weighted,weights=0:$w sh -c "$during"
	n=$(grep -c "^during=$w\$" <<<"$OUT")
	if [ "$n" -eq "$ncpu" ]; then
		t_pass "sysfs=exclusive: a job owning the node ($ncpu CPUs) gets its weights"
	else
		t_fail "sysfs=exclusive: a job owning the node ($ncpu CPUs) gets its weights" "exit $RC: $OUT"
	fi
	wi_back || t_fail "sysfs=exclusive: node0 restored" "node0 is $(wi_node0), was $before"
	if [ "$ncpu" -gt 1 ]; then
		run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:$w sh -c "$during"
		if grep -q "^during=$before\$" <<<"$OUT" && [ "$(field "$(grep '^task ' <<<"$OUT")" weights)" = "$before" ]; then
			t_pass "sysfs=exclusive: a job on part of the node runs on the system weights and says so"
		else
			t_fail "sysfs=exclusive: a job on part of the node runs on the system weights and says so" "exit $RC: $OUT"
		fi
	fi

	plugstack sysfs=never
	run_job srun -N 1 -w "$HOST" -n "$ncpu" --mem-interleave=weighted,weights=0:$w sh -c "$during"
	if grep -q "^during=$before\$" <<<"$OUT" && [ $RC -eq 0 ]; then
		t_pass "sysfs=never: sysfs untouched even for a job owning the node"
	else
		t_fail "sysfs=never: sysfs untouched even for a job owning the node" "exit $RC: $OUT"
	fi

	plugstack
	[ "$(wi_node0)" = "$before" ] || { t_fail "sysfs tests left node0 at $(wi_node0)" "restoring $before"; echo "$before" >"$WI_DIR/node0"; }
fi
