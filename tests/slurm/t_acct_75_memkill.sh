# t_acct_75_memkill.sh - jobs that Slurm kills for their memory keep their placement
# record (issue 21, "an out-of-memory kill"). This cluster has no cgroups
# (proctrack/linuxproc, task/affinity: several slurmd on one host), so the kill is
# Slurm's own memory enforcement: jobacct_gather/linux with
# JobAcctGatherParams=OverMemoryKill, sampling each second, the cluster restarted with
# them for this file. A cgroup OOM kill ends the tasks and the job the same way (a
# SIGKILL, then the step's end); only the state sacct names differs.
# 1. A step goes over the job's memory and is killed; the job runs on: the step's
#    record is written through slurmctld.
# 2. The batch script goes over while a step runs: the job ends during the step, whose
#    record is written through slurmdbd and read back (by the step, or from the spool
#    when the step's kill ended its slurmdbd client too).

mk_cases=("a step killed for its memory, the job running on: the record is in accounting, written through slurmctld"
	"the batch script killed for its memory during a step: the job ends, the step's record is in accounting, written through slurmdbd and read back"
	"the cluster restarts without memory enforcement")
if [ ! -x "$PY" ]; then
	for mk_c in "${mk_cases[@]}"; do t_skip "memory kill: $mk_c" "$PY is missing (the tasks use it)"; done
	return 0
fi

# mk_job NAME SCRIPT: a 200 MiB batch job running SCRIPT on this node; waits for its
# end and for slurmd's line about step 0's record (a write through slurmdbd comes
# seconds after the job left the queue: it waits for slurmdbd to have the job's end),
# and sets MK_JOB, MK_STATE (the job's and its step 0's state) and MK_SAID (slurmd's
# log of the job since its start).
mk_job() {
	local mark
	mark=$(log_mark "$SLURMD_LOG")
	MK_JOB=$(sbatch --parsable -w "$HOST" -n 1 --mem=200M -o /dev/null -J "mpol-$1" --wrap "$2" 2>&1)
	MK_STATE= MK_SAID=
	[[ $MK_JOB =~ ^[0-9]+$ ]] || return 1
	wait_job "$MK_JOB" 120
	wait_until 60 sh -c 'tail -c +$(($2 + 1)) "$1" | grep -q "job $3 step 0: .*placement record .*\(written\|delivered\)"' \
		sh "$SLURMD_LOG" "$mark" "$MK_JOB"
	MK_STATE=$(sacct -n -P -o JobID,State -j "$MK_JOB" 2>/dev/null | sed -n "s/^$MK_JOB|/job /p; s/^$MK_JOB\.0|/step 0 /p" | tr '\n' ' ')
	MK_SAID=$(log_since "$SLURMD_LOG" "$mark" | grep -F "$MK_JOB")
}

# mk_check CASE THROUGH: step 0 was killed for its memory (slurmd says so), and the
# record holds this node's entry of step 0, written and read back (two reads or more)
# by the step or from the spool by slurmd's courier, THROUGH "" (slurmctld) or
# "through slurmdbd (the job had ended) ".
mk_check() {
	local comment written
	comment=$(acct_comment "$MK_JOB")
	written="job $MK_JOB step 0: placement record of 1 node(s) \(written by this node\|delivered from the spool\) ${2}in [0-9]* ms ([2-9] reads, 1 writes"
	if grep -q "exceeded memory limit" <<<"$MK_SAID" &&
		[ "$(acct_py "$comment" 'step_nodes(r, "0")' 2>&1)" = "['$HOST']" ] && grep -q "$written" <<<"$MK_SAID"; then
		t_pass "memory kill: $1 ($MK_STATE)"
	else
		t_fail "memory kill: $1" "job '$MK_JOB' ($MK_STATE); record: '${comment:0:200}'; slurmd: $(grep -E "memory|mem_interleave" <<<"$MK_SAID" | tail -n 4)"
	fi
}

if ! mk_out=$(restart_cluster MPOL_JOBACCT_TYPE=jobacct_gather/linux MPOL_JOBACCT_PARAMS=OverMemoryKill MPOL_JOBACCT_FREQ=task=1); then
	t_fail "memory kill: ${mk_cases[0]}" "the cluster did not start with OverMemoryKill: $(tail -n 3 <<<"$mk_out")"
	t_fail "memory kill: ${mk_cases[1]}" "not run"
else
	plugstack
	# 1. 400 MiB against the job's 200: the step is killed at its next sample; the
	# script goes on (srun exits non-zero) and sleeps, so the job still runs.
	mk_job step "srun --mem-interleave=weighted $PY -c '$(toucher 400 30)'; sleep 2"
	mk_check "${mk_cases[0]}" ""
	# 2. The step sleeps holding 16 MiB; the script then takes 400 MiB itself, and the
	# batch step's kill ends the job while step 0 runs.
	mk_job batch "srun --mem-interleave=weighted $PY -c '$(toucher 16 60)' & sleep 4; $PY -c '$(toucher 400 30)'; wait"
	mk_check "${mk_cases[1]}" "through slurmdbd (the job had ended) "
fi
if mk_out=$(restart_cluster); then
	t_pass "memory kill: ${mk_cases[2]}"
else
	t_fail "memory kill: ${mk_cases[2]}" "$(tail -n 3 <<<"$mk_out")"
fi
plugstack
