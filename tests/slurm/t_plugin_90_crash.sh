# t_plugin_90_crash.sh - slurmstepd killed (SIGKILL) while its step holds the weights
# lease: the journal stays, and `mpolctl recover` or the next step that takes the lease
# restores the table exactly.

before=$(wi_node0)

# crash_step WEIGHT: start a step holding the lease with WEIGHT, SIGKILL its slurmstepd
# and clean up the orphaned task. Sets CRASH_ERR on failure.
crash_step() {
	local name=mpol-crash-$$-$1 pidf=$OUTDIR/crash.$$ jid spid tpid srun_pid i
	CRASH_ERR=
	rm -f "$pidf"
	srun -J "$name" -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:$1 \
		sh -c "echo \$\$ >$pidf; exec sleep 120" >/dev/null 2>&1 &
	srun_pid=$!
	if ! wait_until 20 sh -c "[ -s $pidf ] && [ \"\$(cat $WI_DIR/node0)\" = $1 ]"; then
		CRASH_ERR="the step did not start with node0=$1 (node0 is $(wi_node0))"
	else
		jid=$(squeue -h -n "$name" -o %i)
		spid=$(stepd_pid "$jid" 0)
		if [ -z "$spid" ]; then
			CRASH_ERR="no slurmstepd found for step $jid.0"
		else
			kill -KILL "$spid"
			# PID 1 here reaps late. Recovery must treat a zombie holder as dead, but
			# give the reaper its usual second or two so the cases stay deterministic.
			wait_until 20 sh -c "! test -e /proc/$spid" ||
				wait_until 10 sh -c "grep -q '^State:.*Z' /proc/$spid/status"
		fi
	fi
	# The task outlives its slurmstepd; it is ours to end, as are srun and the job.
	read -r tpid <"$pidf" 2>/dev/null && kill -KILL "$tpid" 2>/dev/null
	[ -n "${jid:-}" ] && scancel "$jid" 2>/dev/null
	# srun would wait for the dead slurmstepd; it is ours, and of no more use.
	kill -KILL "$srun_pid" 2>/dev/null
	wait "$srun_pid" 2>/dev/null
	[ -n "${jid:-}" ] && wait_job "$jid" 30
	rm -f "$pidf"
	# The dead step's node can come back drained; the next cases need it.
	for i in 1 2 3; do
		[[ $(sinfo -h -N -n "$HOST" -o %T) =~ ^(idle|mixed)$ ]] && break
		scontrol update nodename="$HOST" state=resume 2>/dev/null
		sleep 1
	done
}

if [ -z "$before" ]; then
	t_fail "crash recovery" "$WI_DIR/node0 is missing: this kernel has no weighted interleave"
elif [ ! -x "$MPOLCTL" ]; then
	t_fail "crash recovery" "no mpolctl in $MPOL_BUILD"
else
	plugstack sysfs=always
	w=7
	[ "$before" != $w ] || w=8

	crash_step $w
	if [ -n "$CRASH_ERR" ]; then
		t_fail "SIGKILL of slurmstepd holding the lease" "$CRASH_ERR"
	else
		t_expect_match "after SIGKILL of slurmstepd the weight $w stays (journaled)" "^$w\$" "$(wi_node0)"
		out=$("$MPOLCTL" recover --statedir "$STATEDIR" 2>&1)
		rc=$?
		if [ $rc -eq 0 ] && [ "$(wi_node0)" = "$before" ] &&
			grep -q "^restored the weights journaled by job [0-9]* step 0 (uid 0, pid [0-9]*, no longer running): " <<<"$out"; then
			t_pass "mpolctl recover restores node0=$before ($(head -n 1 <<<"$out"))"
		else
			t_fail "mpolctl recover restores node0=$before" "exit $rc, node0=$(wi_node0): $out"
		fi
		out=$("$MPOLCTL" recover --statedir "$STATEDIR" 2>&1)
		rc=$?
		if [ $rc -eq 0 ] && [ "$(wi_node0)" = "$before" ] &&
			[ "$out" = "nothing to recover: no weights journal in $STATEDIR" ]; then
			t_pass "mpolctl recover again: nothing to do, nothing changed ($(head -n 1 <<<"$out"))"
		else
			t_fail "mpolctl recover again: nothing to do, nothing changed" "exit $rc, node0=$(wi_node0): $out"
		fi
	fi

	crash_step $w
	if [ -n "$CRASH_ERR" ]; then
		t_fail "the next step recovers a dead step's lease" "$CRASH_ERR"
	else
		w2=3
		[ "$before" != $w2 ] || w2=4
		run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:$w2 sh -c "cat $WI_DIR/node0 | sed 's/^/during=/'"
		t_expect_match "the next step takes over the dead step's lease" "^during=$w2\$" "$OUT"
		if wait_until 10 sh -c "[ \"\$(cat $WI_DIR/node0)\" = '$before' ]"; then
			t_pass "after the next step node0 is $before, not the dead step's $w"
		else
			t_fail "after the next step node0 is $before, not the dead step's $w" "node0 is $(wi_node0)"
		fi
	fi

	plugstack
	if [ "$(wi_node0)" != "$before" ]; then
		t_fail "crash tests left node0 at $(wi_node0)" "recovering with mpolctl, then writing $before"
		"$MPOLCTL" recover --force --statedir "$STATEDIR" >/dev/null 2>&1
		echo "$before" >"$WI_DIR/node0"
	fi
fi
