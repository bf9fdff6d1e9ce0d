# t_acct_70_ended.sh - the record of a job that ended while its step ran (issue 21):
# slurmctld refuses to change a finished job ("Job has already finished"), so the node
# hands the record to mem_interleave_dbd, which writes it into slurmdbd's job record,
# as `sacctmgr modify job` does, and reads it back from there (a Slurm daemon cannot
# talk to slurmdbd itself from Slurm 25.11 on). Cases: scancel during the step, the
# job's time limit (-t 1: the job ends TIMEOUT a minute or more later; it runs while
# the other cases do, and is checked last), a dbd_client= that is missing (the record
# waits in the node's spool, and the node's next step delivers it), scancel between
# two steps (the first step's record stays), and scontrol requeue during a step (each
# run's record in its own row of sacct -D).

# ended_job NAME SBATCH_ARGS... : submit a batch job whose one step asks for placement
# and sleeps; sets JOB. The step runs at least 3 s (a sample) before the caller ends it.
ended_job() {
	local name=$1
	shift
	JOB=$(sbatch --parsable -w "$HOST" -o /dev/null -J "$name" "$@" \
		--wrap "srun --mem-interleave=weighted $PY -c '$(toucher 16 600)'" 2>&1)
	if ! [[ $JOB =~ ^[0-9]+$ ]]; then
		return 1
	fi
	wait_until 30 sh -c "squeue -h -s -j $JOB -o %i | grep -q '^$JOB\\.0\$'" && sleep 3
}

# has_record: the job's record in sacct holds this node's entry of step 0.
has_record() {
	[ "$(acct_py "$(acct_comment "$JOB")" 'step_nodes(r, "0")')" = "['$HOST']" ]
}

# end_job NAME STATE HOW SBATCH_ARGS...: run ended_job, end it (HOW: cancel, or wait for
# its time limit), wait for it, and check it ended in STATE (job_ended). Sets JOB and
# SAID. 1 (with the case failed) when it did not go so.
end_job() {
	local name=$1 want=$2 how=$3 mark
	shift 3
	mark=$(log_mark "$SLURMD_LOG")
	if ! ended_job "mpol-$how" "$@"; then
		t_fail "$name: the job ends $want" "the job did not start: $JOB"
		[[ $JOB =~ ^[0-9]+$ ]] && scancel "$JOB"
		return 1
	fi
	[ "$how" = cancel ] && scancel "$JOB"
	job_ended "$name" "$want" "$mark"
}

# job_ended NAME STATE MARK: wait for JOB, and check it ended in STATE. Sets SAID
# (slurmd's log of step 0 since MARK, which stays in MARK). 1 (with the case failed)
# when it did not.
job_ended() {
	local name=$1 want=$2 state
	MARK=$3
	wait_job "$JOB" 180
	state=$(sacct -n -X -P -o State -j "$JOB" 2>/dev/null | head -n 1)
	SAID=$(log_since "$SLURMD_LOG" "$MARK" | grep -F "job $JOB step 0:")
	if [[ $state != "$want"* ]]; then
		t_fail "$name: the job ends $want" "job '$JOB' state '$state'; slurmd: ${SAID:0:900}"
		return 1
	fi
}

# The log line of a record of one node written through slurmdbd and read back (two
# reads or more, one write), by the step or by slurmd's courier.
DBD_WRITE="placement record of 1 node(s) \(written by this node\|delivered from the spool\) through slurmdbd (the job had ended) in [0-9]* ms ([2-9] reads, 1 writes"

# written_by_dbd NAME: the record of JOB is in sacct with this node's entry of step 0,
# and slurmd's log (SAID, read again once the record is there) says it went through
# slurmdbd, read back.
written_by_dbd() {
	if has_record && SAID=$(log_since "$SLURMD_LOG" "$MARK" | grep -F "job $JOB step 0:") &&
		grep -q "$DBD_WRITE" <<<"$SAID"; then
		t_pass "$1: the record is in accounting, written through slurmdbd and read back"
	else
		t_fail "$1: the record is in accounting, written through slurmdbd and read back" \
			"job '$JOB'; AdminComment: $(acct_comment "$JOB" | head -c 300); slurmd: ${SAID:0:900}"
	fi
}

# 2 first: the job that ends by its time limit runs while the other cases do.
timeout_mark=$(log_mark "$SLURMD_LOG")
timeout_job=
if ended_job mpol-timeout -t 1; then
	timeout_job=$JOB
else
	t_fail "time limit (-t 1): the job ends TIMEOUT" "the job did not start: $JOB"
	[[ $JOB =~ ^[0-9]+$ ]] && scancel "$JOB"
fi

# 1. scancel during the step.
end_job "scancel during the step" CANCELLED cancel && written_by_dbd "scancel during the step"

# 3. No mem_interleave_dbd where dbd_client= says: the record is kept, with a reason
# that names the setting, and delivered once the client is back. (The step writes
# itself: slurmd's courier, started with the tier's settings, is not handed the
# record; it may deliver it from the spool at once with its own client.)
missing=$OUTDIR/no-such-dbd-client
plugstack "dbd_client=$missing"
if end_job "missing dbd_client" CANCELLED cancel; then
	if grep -qF "kept in $STATEDIR/spool" <<<"$SAID" &&
		grep -qF "cannot run $missing" <<<"$SAID" && grep -qF "(plugstack dbd_client=)" <<<"$SAID"; then
		t_pass "missing dbd_client: the record is kept in the node's spool, the reason names dbd_client="
	else
		t_fail "missing dbd_client: the record is kept in the node's spool, the reason names dbd_client=" \
			"spool: $(ls "$STATEDIR/spool" 2>&1); slurmd: ${SAID:0:900}"
	fi
	plugstack
	run_job srun -w "$HOST" -n 1 --mem-interleave=weighted true
	if wait_until 30 sh -c "! test -e '$STATEDIR/spool/$JOB.0.json'" && has_record; then
		t_pass "missing dbd_client: once it is back, the record is delivered into accounting"
	else
		t_fail "missing dbd_client: once it is back, the record is delivered into accounting" \
			"job '$JOB'; spool: $(ls "$STATEDIR/spool" 2>&1); AdminComment: $(acct_comment "$JOB" | head -c 300)"
	fi
fi
plugstack

# 4. scancel between two steps: the first step's record, written through slurmctld
# while the job ran, is in accounting after the job was cancelled (slurmctld's report
# of the end carries it to slurmdbd).
JOB=$(sbatch --parsable -w "$HOST" -o /dev/null -J mpol-between \
	--wrap "srun --mem-interleave=weighted true; sleep 600" 2>&1)
if [[ $JOB =~ ^[0-9]+$ ]] && wait_until 60 sh -c "scontrol -o show job $JOB | grep -q mempolicy"; then
	scancel "$JOB"
	wait_job "$JOB" 60
	state=$(sacct -n -X -P -o State -j "$JOB" 2>/dev/null | head -n 1)
	if [[ $state == CANCELLED* ]] && has_record; then
		t_pass "scancel between two steps: the first step's record is in accounting"
	else
		t_fail "scancel between two steps: the first step's record is in accounting" \
			"job '$JOB' state '$state'; AdminComment: $(acct_comment "$JOB" | head -c 300)"
	fi
else
	t_fail "scancel between two steps: the first step's record is in accounting" \
		"job '$JOB' did not record its first step: $(scontrol -o show job "$JOB" 2>&1 | head -c 300)"
	[[ $JOB =~ ^[0-9]+$ ]] && scancel "$JOB"
fi

# 5. scontrol requeue during a step: Slurm runs the job again under its id, and
# accounting keeps each run as a row (sacct -D). Run 0 writes step 0 through slurmctld
# and is requeued during step 1; run 1 runs both steps to the end. Each row holds its
# own run's record: run 0's (both steps, step 1 written through slurmdbd into the
# first row and read back there) and run 1's ("run":1), neither over the other.
# A requeued job waits for its begin time (slurmctld's credential lifetime, 2 min):
# the case sets it to now once the job is pending again.
# acct_runs JOB: "STATE|ADMINCOMMENT" of each run, oldest first.
acct_runs() { sacct -D -n -P -X -o State,AdminComment -j "$1" 2>/dev/null; }
# run_record JOB N EXPR: EXPR (acct_py) on run N's record, "none" without one.
run_record() {
	local c
	c=$(acct_runs "$1" | sed -n "$(($2 + 1))p" | cut -d '|' -f 2-)
	if grep -q 'mempolicy' <<<"$c"; then acct_py "$c" "$3"; else echo none; fi
}
mark=$(log_mark "$SLURMD_LOG")
JOB=$(sbatch --parsable --requeue -w "$HOST" -o /dev/null -J mpol-requeue --wrap \
	"srun --mem-interleave=weighted true; srun --mem-interleave=weighted $PY -c \
'import os, time; b = bytearray(16 << 20); time.sleep(4 if int(os.environ.get(\"SLURM_RESTART_COUNT\", 0)) else 600)'" 2>&1)
name="scontrol requeue during a step"
if [[ $JOB =~ ^[0-9]+$ ]] && wait_until 60 sh -c "squeue -h -s -j $JOB -o %i | grep -q '^$JOB\\.1\$'"; then
	sleep 3
	scontrol requeue "$JOB"
	# until run 1 starts: its begin time to now, as soon as slurmctld takes it
	for ((i = 0; i < 90; i++)); do
		scontrol -o show job "$JOB" 2>/dev/null | grep -q 'JobState=RUNNING.*Restarts=1\|Restarts=1.*JobState=RUNNING' && break
		scontrol update jobid="$JOB" StartTime=now >/dev/null 2>&1
		sleep 2
	done
	wait_job "$JOB" 120
	said=$(log_since "$SLURMD_LOG" "$mark" | grep -F "job $JOB step ")
	runs=$(acct_runs "$JOB" | cut -d '|' -f 1 | tr '\n' ' ')
	got0="$(run_record "$JOB" 0 '[r.get("run", 0), step_nodes(r, "0"), step_nodes(r, "1")]')"
	got1="$(run_record "$JOB" 1 '[r.get("run", 0), step_nodes(r, "0"), step_nodes(r, "1")]')"
	if [[ $runs == "REQUEUED COMPLETED " ]] && [ "$got0" = "[0, ['$HOST'], ['$HOST']]" ] &&
		[ "$got1" = "[1, ['$HOST'], ['$HOST']]" ]; then
		t_pass "$name: each run's record is in its own row of sacct -D, neither over the other"
	else
		t_fail "$name: each run's record is in its own row of sacct -D, neither over the other" \
			"job '$JOB' runs '$runs' ($(sacct -D -n -P -X -o Start,End -j "$JOB" | tr '\n' ' ')); run 0: $got0; run 1: $got1; slurmd: ${said:0:900}"
	fi
	# the job's last step may end just before the job does: its record may go
	# through slurmdbd too; step 0's, with a step after it, never
	if grep -q "step 1: $DBD_WRITE" <<<"$said" && ! grep -q "step 0: .*through slurmdbd" <<<"$said"; then
		t_pass "$name: the interrupted step's record went through slurmdbd, into its run's row, read back; step 0's through slurmctld"
	else
		t_fail "$name: the interrupted step's record went through slurmdbd, into its run's row, read back; step 0's through slurmctld" \
			"job '$JOB'; slurmd: ${said:0:900}"
	fi
else
	t_fail "$name: each run's record is in its own row of sacct -D, neither over the other" \
		"job '$JOB' did not reach its step 1: $(scontrol -o show job "$JOB" 2>&1 | head -c 300)"
	[[ $JOB =~ ^[0-9]+$ ]] && scancel "$JOB"
fi

# 2. The time limit, started first: the job ends TIMEOUT, its record written as after
# scancel.
if [ -n "$timeout_job" ]; then
	JOB=$timeout_job
	job_ended "time limit (-t 1)" TIMEOUT "$timeout_mark" && written_by_dbd "time limit (-t 1)"
fi
