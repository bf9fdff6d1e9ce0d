# t_place_10_kept.sh - one decision for launch and rebalance: a running step keeps its
# placement in the state directory (root-only, gone at step end, removed after a
# slurmstepd crash), and `mpolctl rebalance --job --dry-run` targets exactly the
# weights the step's tasks run with, decided from the site's plugstack settings.

# kept_job NAME SPEC: start a held one-task step of job NAME with --mem-interleave=SPEC
# in the background and wait for its kept placement (written with the step's first
# sample, about a second after the task's start); sets KJ_JID, KJ_TASK (the task
# line) and KJ_PID, or KJ_ERR.
kept_job() {
	local pidf=$OUTDIR/kept.$$.$1
	KJ_ERR= KJ_JID= KJ_TASK= KJ_PID=
	rm -f "$pidf"
	srun -J "$1" -N 1 -w "$HOST" -n 1 --mem-interleave="$2" \
		sh -c "$SHOW >$pidf.task; echo \$\$ >$pidf; exec sleep 60" >/dev/null 2>&1 &
	KJ_SRUN=$!
	if ! wait_until 20 test -s "$pidf"; then
		KJ_ERR="the step did not start"
		return
	fi
	KJ_JID=$(squeue -h -n "$1" -o %i)
	KJ_TASK=$(cat "$pidf.task")
	read -r KJ_PID <"$pidf"
	wait_until 10 test -s "$STATEDIR/step.$KJ_JID.0.json" ||
		KJ_ERR="no kept placement $STATEDIR/step.$KJ_JID.0.json within 10 s of the task's start"
}

# kept_end: end the held step and wait for it to leave.
kept_end() {
	[ -n "$KJ_JID" ] && scancel "$KJ_JID" 2>/dev/null
	kill "$KJ_SRUN" 2>/dev/null
	wait "$KJ_SRUN" 2>/dev/null
	[ -n "$KJ_JID" ] && wait_job "$KJ_JID" 30
}

# rb_target JID: the first task's target weights from rebalance --dry-run --json, as "7:2".
rb_target() {
	"$MPOLCTL" rebalance --job "$1" --dry-run --json --statedir "$STATEDIR" 2>"$OUTDIR/rb.err" >"$OUTDIR/rb.json"
	jq -r '[.tasks[0].weights[]] | map(tostring) | join(":")' "$OUTDIR/rb.json" 2>/dev/null
}

before=$(wi_node0)
if [ -z "$before" ]; then
	t_fail "kept placement" "$WI_DIR/node0 is missing: this kernel has no weighted interleave"
else
	w=5
	[ "$before" != $w ] || w=6

	# A job on part of the node (sysfs=exclusive): its tasks run on the system weights,
	# and rebalance targets those, not the weights it asked for.
	plugstack sysfs=exclusive
	kept_job mpol-kept-$$ "weighted,weights=0:$w"
	if [ -n "$KJ_ERR" ]; then
		t_fail "kept placement: a held step starts" "$KJ_ERR"
	else
		f=$STATEDIR/step.$KJ_JID.0.json
		if [ -f "$f" ] && [ "$(stat -c '%a %U' "$f")" = "600 root" ]; then
			t_pass "kept placement: $f exists while the step runs, 0600 root"
		else
			t_fail "kept placement: the file exists while the step runs, 0600 root" "$(ls -l "$STATEDIR")"
		fi
		t_expect_match "kept placement: it lists the step's task" "\"pid\":$KJ_PID," "$(cat "$f" 2>&1)"
		env_w=$(field "$KJ_TASK" weights)
		got=$(rb_target "$KJ_JID")
		if [ "$(nproc)" -gt 1 ]; then
			expect=$before      # a shared node: the system weights
		else
			expect=$w           # one CPU: the job owns the node and holds the lease
		fi
		if [ "$env_w" = "$expect" ] && [ "$got" = "$env_w" ]; then
			t_pass "rebalance --dry-run targets the weights the task runs with ($got)"
		else
			t_fail "rebalance --dry-run targets the weights the task runs with" \
				"task says '$env_w' (expected $expect), rebalance targets '$got': $(cat "$OUTDIR/rb.json" "$OUTDIR/rb.err")"
		fi
		t_expect_match "rebalance names the step's kept placement as the target's source" \
			"job $KJ_JID step 0's kept placement \\(algorithm optimal, precision 0.98, " "$(jq -r '.tasks[0].source' "$OUTDIR/rb.json" 2>&1)"
	fi
	kept_end
	if wait_until 10 sh -c "! test -e $STATEDIR/step.$KJ_JID.0.json"; then
		t_pass "kept placement: removed when the step ends"
	else
		t_fail "kept placement: removed when the step ends" "$(ls -l "$STATEDIR")"
	fi

	# Holding the lease (sysfs=always): the target is the step's own weights.
	plugstack sysfs=always
	kept_job mpol-kept-lease-$$ "weighted,weights=0:$w"
	got=$(rb_target "$KJ_JID")
	if [ -z "$KJ_ERR" ] && [ "$(field "$KJ_TASK" weights)" = $w ] && [ "$got" = $w ]; then
		t_pass "holding the lease: rebalance targets the step's own weights ($w)"
	else
		t_fail "holding the lease: rebalance targets the step's own weights ($w)" \
			"${KJ_ERR:-task: $KJ_TASK; target '$got': $(cat "$OUTDIR/rb.json" "$OUTDIR/rb.err")}"
	fi
	kept_end
	wi_back() { wait_until 10 sh -c "[ \"\$(cat $WI_DIR/node0)\" = '$before' ]"; }
	wi_back || t_fail "holding the lease: node0 restored" "node0 is $(wi_node0), was $before"

	# The site's settings in force are the ones rebalance decides with.
	plugstack sysfs=never algorithm=kernel precision=0.9
	kept_job mpol-kept-site-$$ weighted
	rb_target "$KJ_JID" >/dev/null
	t_expect_match "rebalance decides with the site's plugstack settings (algorithm=kernel precision=0.9)" \
		"kept placement \\(algorithm kernel, precision 0.9, on the node's weights\\)" \
		"$(jq -r '.tasks[0].source' "$OUTDIR/rb.json" 2>&1; cat "$OUTDIR/rb.err")"
	kept_end

	# A step whose slurmstepd is killed leaves its kept placement: the next step removes it.
	plugstack sysfs=never
	kept_job mpol-kept-crash-$$ weighted
	spid=$(stepd_pid "$KJ_JID" 0)
	f=$STATEDIR/step.$KJ_JID.0.json
	if [ -z "$spid" ] || [ ! -f "$f" ]; then
		t_fail "crash: a kept placement to leave behind" "slurmstepd '$spid', $(ls -l "$STATEDIR")"
	else
		kill -KILL "$spid"
		wait_until 20 sh -c "! test -e /proc/$spid || grep -q '^State:.*Z' /proc/$spid/status"
		[ -n "$KJ_PID" ] && kill -KILL "$KJ_PID" 2>/dev/null
		kept_end
		for _ in 1 2 3; do
			[[ $(sinfo -h -N -n "$HOST" -o %T) =~ ^(idle|mixed)$ ]] && break
			scontrol update nodename="$HOST" state=resume 2>/dev/null
			sleep 1
		done
		if [ -f "$f" ]; then
			t_pass "crash: the dead step's kept placement stays"
		else
			t_fail "crash: the dead step's kept placement stays" "$(ls -l "$STATEDIR")"
		fi
		run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted true
		if [ $RC -eq 0 ] && [ ! -e "$f" ]; then
			t_pass "crash: the next step removes the dead step's kept placement"
		else
			t_fail "crash: the next step removes the dead step's kept placement" "exit $RC: $OUT; $(ls -l "$STATEDIR")"
		fi
	fi
fi
