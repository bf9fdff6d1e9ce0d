# t_acct_60_outage.sh - slurmctld away across a step's end (issue 12): the record is
# kept in the node's spool and delivered when slurmctld is back (by slurmd's courier,
# which the step hands its record to, with backoff, without any step; by the step
# itself or the node's next step where no courier listens), so an outage delays a
# record but never loses it.
# slurmctld is down for MPOL_OUTAGE_S seconds (default 75, as the issue reported).

outage=${MPOL_OUTAGE_S:-75}
ctld_pid() { cat "$MPOL_CLUSTER_DIR/run/slurmctld.pid" 2>/dev/null; }
ctld_gone() { local p; p=$(ctld_pid); [ -z "$p" ] || ! kill -0 "$p" 2>/dev/null || grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; }
# job_comment JOBID: AdminComment as slurmctld holds it (the job may still run).
job_comment() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p'; }

# 1. Down across the step's end, back after the outage.
timeout 300 srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; exec '"$PY"' -c "'"$(toucher 16 3)"'"' >"$OUTDIR/outage.$$" 2>&1 &
srun_pid=$!
wait_until 20 sh -c "grep -q JOB= '$OUTDIR/outage.$$'"
job=$(acct_job "$(cat "$OUTDIR/outage.$$")")
sleep 1
down=$(date +%s)
kill -TERM "$(ctld_pid)"
wait_until 30 ctld_gone
# (srun is waited for once slurmctld is back: 26.05's can wait for it to take the
# step's end until its timeout)
spooled=no
wait_until 30 test -s "$STATEDIR/spool/$job.0.json" && spooled=yes
if [ -n "$job" ] && [ $spooled = yes ] && grep -q "\"$HOST\"" "$STATEDIR/spool/$job.0.json"; then
	t_pass "slurmctld away at the step's end: the record is kept in the node's spool"
else
	t_fail "slurmctld away at the step's end: the record is kept in the node's spool" \
		"job '$job'; spool: $(ls -l "$STATEDIR/spool" 2>&1 | tail -n 3); $(cat "$OUTDIR/outage.$$")"
fi
sleep $((outage - ($(date +%s) - down) > 0 ? outage - ($(date +%s) - down) : 0))
slurmctld 9>&- && wait_until 60 scontrol ping
wait "$srun_pid"
if [ -n "$job" ] && wait_until 30 sh -c "scontrol show job $job | grep -q 'AdminComment=.*\"$HOST\"'" &&
	wait_until 10 sh -c "! test -e '$STATEDIR/spool/$job.0.json'"; then
	t_pass "slurmctld back after ${outage} s: the spooled record is delivered, the spool emptied"
else
	t_fail "slurmctld back after ${outage} s: the spooled record is delivered, the spool emptied" \
		"AdminComment: $(job_comment "$job"); spool: $(ls "$STATEDIR/spool" 2>&1)"
fi
# srun's own completion went nowhere: the job still runs, without tasks.
[ -n "$job" ] && scancel "$job" && wait_job "$job" 30
rm -f "$OUTDIR/outage.$$"

# 2. A record spooled by an earlier step (of a job that still runs) is delivered at
# the node's next step (by slurmd's courier, which that step's own record wakes).
timeout 120 srun -w "$HOST" -n 1 bash -c 'echo JOB=$SLURM_JOB_ID; exec sleep 30' >"$OUTDIR/outage2.$$" 2>&1 &
srun_pid=$!
wait_until 20 sh -c "grep -q JOB= '$OUTDIR/outage2.$$'"
job=$(acct_job "$(cat "$OUTDIR/outage2.$$")")
mkdir -p "$STATEDIR/spool"
printf '{"job":%s,"step":"5","entries":{"spooled-node":{"req":"weighted","mode":"weighted","tasks":1,"samples":0}}}' \
	"$job" >"$STATEDIR/spool/$job.5.json"
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted true
if [ -n "$job" ] && wait_until 20 sh -c "scontrol show job $job | grep -q 'spooled-node'" &&
	! test -e "$STATEDIR/spool/$job.5.json"; then
	t_pass "an earlier step's spooled record is delivered at the node's next step"
else
	t_fail "an earlier step's spooled record is delivered at the node's next step" \
		"AdminComment: $(job_comment "$job"); spool: $(ls "$STATEDIR/spool" 2>&1)"
fi
[ -n "$job" ] && scancel "$job"
wait "$srun_pid" 2>/dev/null
rm -f "$OUTDIR/outage2.$$" "$STATEDIR/spool/$job.5.json"
rmdir "$STATEDIR/spool" 2>/dev/null

# 3. A record still spooled after the step gave up on it (an outage longer than the
# step's own retries, issue 21) reaches the job when slurmctld returns, with no step
# on the node to deliver it: slurmd's courier (record_courier.h) retries with backoff.
timeout 300 srun -w "$HOST" -n 1 bash -c 'echo JOB=$SLURM_JOB_ID; exec sleep 240' >"$OUTDIR/outage3.$$" 2>&1 &
srun_pid=$!
wait_until 20 sh -c "grep -q JOB= '$OUTDIR/outage3.$$'"
job=$(acct_job "$(cat "$OUTDIR/outage3.$$")")
kill -TERM "$(ctld_pid)"
wait_until 30 ctld_gone
mkdir -p "$STATEDIR/spool"
printf '{"job":%s,"step":"7","entries":{"courier-node":{"req":"weighted","mode":"weighted","tasks":1,"samples":0}}}' \
	"$job" >"$STATEDIR/spool/$job.7.json"
# the courier's rounds while slurmctld is away are refused: it backs off
sleep "${MPOL_COURIER_OUTAGE_S:-45}"
back=$(date +%s)
slurmctld 9>&- && wait_until 60 scontrol ping
if [ -n "$job" ] && wait_until $((60 - ($(date +%s) - back))) sh -c "scontrol show job $job | grep -q 'courier-node'" &&
	wait_until 10 sh -c "! test -e '$STATEDIR/spool/$job.7.json'"; then
	t_pass "slurmctld back: slurmd delivers a spooled record within 60 s of its start ($(($(date +%s) - back)) s), no step on the node"
else
	t_fail "slurmctld back: slurmd delivers a spooled record within 60 s of its start, no step on the node" \
		"AdminComment: $(job_comment "$job"); spool: $(ls "$STATEDIR/spool" 2>&1); slurmd: $(grep -F "$job" "$SLURMD_LOG" | tail -n 3)"
fi
[ -n "$job" ] && scancel "$job"
wait "$srun_pid" 2>/dev/null
rm -f "$OUTDIR/outage3.$$" "$STATEDIR/spool/$job.7.json"
rmdir "$STATEDIR/spool" 2>/dev/null
