# t_acct_85_courier.sh - steps do not wait for their record (issue 21): a step hands
# its record to slurmd's courier through the node's spool and ends, and the courier
# writes it and reads it back (record_courier.h). Where the courier cannot take it as
# the step would write it (no courier listening, plugstack.conf changed record= or
# dbd_client= since slurmd started), the step writes itself, as before.

# said_of JOB MARK: slurmd's log of JOB's steps since MARK.
said_of() { log_since "$SLURMD_LOG" "$2" | grep -F "job $1 step "; }

# 1. The node's record lock held by a stuck process: the courier waits for it
# (lock_timeout, 5 s), the step does not. (The job has ended by the time the lock
# is free: the courier writes through slurmdbd.)
hold() {
	(exec 8>>"$1" && flock -x 8 && exec sleep 60) &
	holder=$!
	wait_until 5 sh -c "! flock -n '$1' true"
}
hold "$STATEDIR/record.lock"
mark=$(log_mark "$SLURMD_LOG")
t0=$(date +%s%N)
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c 'echo JOB=$SLURM_JOB_ID'
ms=$((($(date +%s%N) - t0) / 1000000))
job=$(acct_job "$OUT")
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
comment=$(acct_comment "$job")
said=$(said_of "$job" "$mark")
if [ $RC -eq 0 ] && [ "$ms" -lt 4000 ] && [ "$(acct_py "$comment" 'step_nodes(r, "0")')" = "['$HOST']" ] &&
	grep -q "step 0: placement record of 1 node(s) handed to the node's courier by this node in [0-9.]* ms" <<<"$said" &&
	grep -q "step 0: placement record of 1 node(s) delivered from the spool\( through slurmdbd (the job had ended)\)\? in [0-9]* ms (2 reads, 1 writes" <<<"$said"; then
	t_pass "record lock held: the step ends in $ms ms, before the courier's write (lock_timeout 5 s); the record is in accounting"
else
	t_fail "record lock held: the step ends before the courier's write (lock_timeout 5 s); the record is in accounting" \
		"job '$job' exit $RC in $ms ms; record step 0: $(acct_py "$comment" 'step_nodes(r, "0")'); slurmd: ${said:0:600}"
fi

# 2. A workflow of one-node steps: every step handed over, delivered and counted; the
# courier writes a job's steps that gather in the spool together (at most one write of a
# job a second: RECORD_PACE_MS), so the 30 steps take far fewer writes.
# deliveries JOB: slurmd's lines "delivered from the spool" of JOB's steps since $mark,
# as "STEPS" per line (1 for one step's).
deliveries() {
	log_since "$SLURMD_LOG" "$mark" | sed -n \
		-e "s/.*job $1 step [0-9]*: placement record of 1 node(s) delivered from the spool.*/1/p" \
		-e "s/.*job $1 steps [0-9,:-]*: placement records of \([0-9]*\) steps, \1 node entries delivered from the spool.*/\1/p"
}
# steps_delivered JOB: how many of JOB's steps the courier delivered since $mark.
steps_delivered() { deliveries "$1" | awk '{ n += $1 } END { print n + 0 }'; }
n=30
mark=$(log_mark "$SLURMD_LOG")
run_job sbatch --wait -w "$HOST" -n 2 -o "$OUTDIR/courier-steps.out" --wrap \
	"echo JOB=\$SLURM_JOB_ID; for i in \$(seq $n); do srun -n 1 --mem-interleave=weighted true || exit 1; done"
job=$(acct_job "$(cat "$OUTDIR/courier-steps.out" 2>/dev/null)")
all_delivered() { [ "$(steps_delivered "$job")" -ge $n ]; }
wait_until 20 all_delivered
comment=$(acct_comment "$job")
said=$(said_of "$job" "$mark")
handed=$(grep -c "placement record of 1 node(s) handed to the node's courier" <<<"$said")
delivered=$(steps_delivered "$job")
writes=$(deliveries "$job" | wc -l)
if [ $RC -eq 0 ] && [ "$handed" -eq $n ] && [ "$delivered" -eq $n ] && [ "$writes" -le $((n / 2)) ] &&
	[ "$(acct_py "$comment" 'counted(r)')" = $n ]; then
	t_pass "$n one-node steps: each handed to the courier, delivered in $writes writes, and counted in the record"
else
	t_fail "$n one-node steps: each handed to the courier, delivered in at most $((n / 2)) writes, and counted in the record" \
		"job '$job' exit $RC; handed $handed, delivered $delivered in $writes writes, counted $(acct_py "$comment" 'counted(r)' 2>&1); slurmd: $(tail -n 3 <<<"$said")"
fi

# writes_itself NAME: a one-node step writes its record itself, nothing handed over.
writes_itself() {
	local mark said comment
	mark=$(log_mark "$SLURMD_LOG")
	run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c 'echo JOB=$SLURM_JOB_ID'
	job=$(acct_job "$OUT")
	comment=$(acct_comment "$job")
	said=$(said_of "$job" "$mark")
	if [ $RC -eq 0 ] && [ "$(acct_py "$comment" 'step_nodes(r, "0")')" = "['$HOST']" ] &&
		grep -q "step 0: placement record of 1 node(s) written by this node in" <<<"$said" &&
		! grep -q "handed to the node's courier" <<<"$said"; then
		t_pass "$1: the step writes its record itself"
	else
		t_fail "$1: the step writes its record itself" "job '$job' exit $RC; record step 0: $(acct_py "$comment" 'step_nodes(r, "0")'); slurmd: ${said:0:600}"
	fi
}

# 3. plugstack.conf names another dbd_client than slurmd's courier was started with.
client=$(sed -n 's/.* dbd_client=\([^ ]*\).*/\1/p' "$MPOL_CLUSTER_DIR/etc/plugstack.conf")
if [ -x "$client" ] && cp "$client" "$OUTDIR/courier-dbd-client"; then
	plugstack "dbd_client=$OUTDIR/courier-dbd-client"
	writes_itself "dbd_client= changed since slurmd started"
	plugstack
else
	t_fail "dbd_client= changed since slurmd started: the step writes its record itself" \
		"no dbd_client in $MPOL_CLUSTER_DIR/etc/plugstack.conf: $(cat "$MPOL_CLUSTER_DIR/etc/plugstack.conf")"
fi

# 4. No courier listens: its lock file moved aside (the courier holds the old one), so
# the step's probe takes a fresh one; put back, the courier listens again.
if mv "$STATEDIR/courier.lock" "$OUTDIR/courier.lock.held"; then
	writes_itself "no courier listening"
	mv "$OUTDIR/courier.lock.held" "$STATEDIR/courier.lock"
	mark=$(log_mark "$SLURMD_LOG")
	run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c 'echo JOB=$SLURM_JOB_ID'
	job=$(acct_job "$OUT")
	t_expect_match "courier lock back in place: the next step hands its record over again" \
		"handed to the node's courier" "$(acct_comment "$job" >/dev/null; said_of "$job" "$mark")"
else
	t_fail "no courier listening: the step writes its record itself" "no $STATEDIR/courier.lock: slurmd's courier does not listen"
fi
rm -f "$OUTDIR/courier-dbd-client" "$OUTDIR/courier-steps.out"

# 5. The courier follows only the forks of slurmd's main thread, the way it
# daemonizes: the forks of slurmd's other threads that start a step's slurmstepd (two
# per step) start no thread of it. Traced with strace -ff (one file per task, so that
# no line is split): the clones without CLONE_THREAD are forks; a clone with it in a
# forked task's file, before its exec, is a thread started in a fork.
if ! command -v strace >/dev/null; then
	t_skip "slurmd's forks for a step start no courier thread" "no strace here (scripts/install-deps.sh cluster installs it on the host; the Debian roots of the release tiers leave it out)"
else
	pid=$(cat "$MPOL_CLUSTER_DIR/run/slurmd-$HOST.pid")
	trace=$OUTDIR/slurmd-forks
	rm -f "$trace".*
	strace -qq -ff -e trace=clone,clone3,execve -o "$trace" -p "$pid" &
	tracer=$!
	traced() { [ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$pid/status")" != 0 ]; }
	wait_until 10 traced
	run_job srun -w "$HOST" -n 1 --mem-interleave=weighted true
	sleep 1     # the forks' traces written
	kill "$tracer" 2>/dev/null
	wait "$tracer" 2>/dev/null
	forks=$(cat "$trace".* | sed -n '/CLONE_THREAD/!s/^clone.*= \([0-9][0-9]*\)$/\1/p' | sort -u)
	threads=0 stepd=0
	for f in $forks; do
		# before it execs (slurmstepd's own threads come after)
		threads=$((threads + $(sed '/^execve(/q' "$trace.$f" 2>/dev/null | grep -c '^clone.*CLONE_THREAD.*= [0-9]')))
		grep -q '^execve(".*slurmstepd"' "$trace.$f" 2>/dev/null && stepd=$((stepd + 1))
	done
	if [ $RC -eq 0 ] && [ "$stepd" -ge 1 ] && [ "$threads" -eq 0 ]; then
		t_pass "slurmd's forks for a step start no courier thread ($(wc -w <<<"$forks") forks traced, $stepd exec slurmstepd)"
	else
		t_fail "slurmd's forks for a step start no courier thread" \
			"step exit $RC; forks traced: $(wc -w <<<"$forks"), exec slurmstepd $stepd, threads started in them $threads"
	fi
	rm -f "$trace".*
fi
