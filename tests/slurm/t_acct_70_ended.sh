# t_acct_70_ended.sh - the record of a job that ended while its step ran (issue 21):
# slurmctld refuses to change a finished job ("Job has already finished"), so the node
# writes the record into slurmdbd's job record, as `sacctmgr modify job` does, and
# reads it back from there. Cases: scancel during the step, and the job's time limit
# (-t 1: the job ends TIMEOUT about a minute later). Each: the record is in sacct with
# the node's entry, and slurmd's log says it went through slurmdbd, read back (two
# reads or more, one write).

# ended_job CASE SBATCH_ARGS... : submit a batch job whose one step asks for placement
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

# check_ended NAME STATE: the job ended in STATE, its record is in sacct with this
# node's entry of step 0, and slurmd's log says it went through slurmdbd, read back.
check_ended() {
	local name=$1 want=$2 state comment said
	state=$(sacct -n -X -P -o State -j "$JOB" 2>/dev/null | head -n 1)
	comment=$(acct_comment "$JOB")
	said=$(log_since "$SLURMD_LOG" "$mark" | grep -F "job $JOB step 0:")
	if [[ $state == "$want"* ]] && [ "$(acct_py "$comment" 'step_nodes(r, "0")')" = "['$HOST']" ] &&
		grep -q "placement record of 1 node(s) written by this node through slurmdbd (the job had ended) in [0-9]* ms ([2-9] reads, 1 writes" <<<"$said"; then
		t_pass "$name: the record is in accounting, written through slurmdbd and read back"
	else
		t_fail "$name: the record is in accounting, written through slurmdbd and read back" \
			"job '$JOB' state '$state'; AdminComment: ${comment:0:300}; slurmd: ${said:0:900}"
	fi
}

# 1. scancel while the step runs.
mark=$(log_mark "$SLURMD_LOG")
if ended_job mpol-cancelled; then
	scancel "$JOB"
	wait_job "$JOB" 60
	check_ended "scancel during the step" CANCELLED
else
	t_fail "scancel during the step: the record is in accounting, written through slurmdbd and read back" \
		"the job did not start: $JOB"
	[[ $JOB =~ ^[0-9]+$ ]] && scancel "$JOB"
fi

# 2. The job's time limit: slurmctld ends it (TIMEOUT) within its timer's period.
mark=$(log_mark "$SLURMD_LOG")
if ended_job mpol-timeout -t 1; then
	wait_job "$JOB" 180
	check_ended "time limit (-t 1)" TIMEOUT
else
	t_fail "time limit (-t 1): the record is in accounting, written through slurmdbd and read back" \
		"the job did not start: $JOB"
	[[ $JOB =~ ^[0-9]+$ ]] && scancel "$JOB"
fi
