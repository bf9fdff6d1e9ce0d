# t_mpolctl_10_jobs.sh - mpolctl's verbs that ask Slurm about this node, against the
# real scontrol of this cluster's release (tests/host fakes it): rebalance --job finds a
# running job's task through `scontrol listpids`, for the job and for its step; a job
# with nothing here is an error carrying scontrol's answer; watch turns a hotplug uevent
# into one rebalance of each running job. Dry runs: nothing moves (one NUMA node here).
# (report, which asks sacct, is in t_acct_10_record.sh.)

rb_name=mpol-rb-$$
rb_out=$OUTDIR/rb-$$.out
mkdir -p "$OUTDIR"
srun -w "$HOST" -J "$rb_name" --mem-interleave=weighted /usr/bin/python3 -c \
	'import os, time; b = bytearray(16 << 20); print("ready", os.getpid(), flush=True); time.sleep(30)' >"$rb_out" 2>&1 &
rb_srun=$!
wait_until 20 grep -q '^ready' "$rb_out"
rb_pid=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$rb_out")
rb_job=$(squeue -h -n "$rb_name" -o %i 2>/dev/null | head -n 1)

if [ -z "$rb_pid" ] || [ -z "$rb_job" ]; then
	for c in "rebalance --job" "rebalance --job JOB.STEP" "watch"; do
		t_fail "mpolctl $c with scontrol listpids" "the job did not start: job '$rb_job': $(cat "$rb_out")"
	done
else
	for rb_target in "$rb_job" "$rb_job.0"; do
		out=$("$MPOLCTL" rebalance --job "$rb_target" --dry-run --json --statedir "$STATEDIR" 2>/dev/null); rc=$?
		got=$(jq -r '[.job, (.tasks | length), .tasks[0].pid, .tasks[0].status, .tasks[0].spec] | join(" ")' <<<"$out" 2>&1)
		t_expect_match "mpolctl rebalance --job $( [ "$rb_target" = "$rb_job" ] && echo JOB || echo JOB.STEP ) finds the task through scontrol listpids" \
			"^0 $rb_target 1 $rb_pid done weighted\$" "$rc $got"
	done
	rb_uevents=(/sys/devices/system/memory/memory*/uevent)
	rb_uevent=${rb_uevents[0]}
	if [ "$(id -u)" -eq 0 ] && [ -w "$rb_uevent" ]; then
		"$MPOLCTL" watch --once --settle 1 --dry-run --statedir "$STATEDIR" >"$OUTDIR/watch-$$.out" 2>&1 &
		rb_watch=$!
		wait_until 10 grep -q 'listening for memory' "$OUTDIR/watch-$$.out"
		echo online >"$rb_uevent"
		wait_until 15 sh -c "! kill -0 $rb_watch 2>/dev/null"
		kill "$rb_watch" 2>/dev/null
		wait "$rb_watch"; rc=$?
		out=$(cat "$OUTDIR/watch-$$.out")
		if [ $rc -eq 0 ] && grep -q "running mpolctl rebalance --job $rb_job --dry-run" <<<"$out" &&
			grep -q "pid $rb_pid (python3): spec weighted" <<<"$out"; then
			t_pass "mpolctl watch rebalances the running job found through scontrol listpids"
		else
			t_fail "mpolctl watch rebalances the running job found through scontrol listpids" "exit $rc: $out"
		fi
		rm -f "$OUTDIR/watch-$$.out"
	else
		t_skip "mpolctl watch rebalances the running job found through scontrol listpids" \
			"needs root and a writable memory block uevent to send a synthetic hotplug event"
	fi
fi
scancel -n "$rb_name" 2>/dev/null
wait "$rb_srun" 2>/dev/null
rm -f "$rb_out"

out=$("$MPOLCTL" rebalance --job 999999 --dry-run 2>&1); rc=$?
t_expect_match "mpolctl rebalance --job of a job with nothing here fails with scontrol's answer" \
	"^1 mpolctl rebalance: cannot list the processes of job 999999: scontrol failed \(exit [0-9]+\): ." "$rc $out"
