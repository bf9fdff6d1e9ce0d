# t_acct_10_record.sh - the placement record in accounting: sacct shows it after the
# job ends, mpolctl report renders it, other AdminComment text survives, a two-node
# step records both nodes, malformed or foreign JSON is kept and does not break the report.

# A sample every second: the record's "last" counts must not depend on the task having
# touched all its memory by the first sample (about 1 s after it starts), which a
# loaded machine misses.
plugstack sample_interval=1

if [ ! -x "$PY" ]; then
	t_skip "placement record cases" "$PY is missing (the tasks use it to touch memory; install python3)"
	return 0 2>/dev/null || exit 0
fi

# 1. One node, two tasks, 64 MiB each; AdminComment set by an admin while it runs.
# Sampled every second, and the peak checked: on a loaded machine the tasks may still
# be touching their memory at the first sample, and one may have ended at the last.
plugstack sample_interval=1
run_job srun -w "$HOST" -n 2 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; [ "$SLURM_PROCID" = 0 ] && scontrol update JobId=$SLURM_JOB_ID AdminComment="ops: checked by admin"; exec '"$PY"' -c "'"$(toucher 64 2.5)"'"'
job=$(acct_job "$OUT")
if [ $RC -ne 0 ] || [ -z "$job" ]; then
	t_fail "record: the job runs" "exit $RC: $OUT"
else
	comment=$(acct_comment "$job")
	t_expect_match "record: sacct -o JobID,AdminComment%200 shows it under mempolicy" \
		"^ *$job +.*mempolicy" "$(sacct -n -X -j "$job" -o JobID,AdminComment%200)"
	t_expect_match "record: the admin's text before it is kept byte for byte" \
		'^ops: checked by admin mempolicy=\{' "$comment"
	got=$(acct_py "$comment" 'r["steps"]["0"]["'"$HOST"'"]["samples"] >= 1 and r["steps"]["0"]["'"$HOST"'"]["tasks"] == 2')
	t_expect_match "record: step 0 on $HOST has 2 tasks and at least one sample" '^True$' "$got"
	# 2 x 64 MiB = 32768 pages of 4 KiB, all on node 0 (this host has one node)
	got=$(acct_py "$comment" 'r["steps"]["0"]["'"$HOST"'"]["peak"]["0"]')
	if [[ $got =~ ^[0-9]+$ ]] && [ "$got" -ge 32768 ]; then
		t_pass "record: the pages touched were counted ($got pages on node 0 at the peak)"
	else
		t_fail "record: the pages touched were counted" "peak[0] is '$got' (want >= 32768) in: $comment"
	fi
	got=$(acct_py "$comment" 'r["steps"]["0"]["'"$HOST"'"]["path"] + "|" + r["steps"]["0"]["'"$HOST"'"]["policy"] + "|" + r["steps"]["0"]["'"$HOST"'"]["req"]')
	t_expect_match "record: mode, kernel path and the policy seen on the tasks" \
		'^weighted-interleave\|weighted interleave:0\|weighted$' "$got"

	out=$("$MPOLCTL" report -j "$job" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "^job $job step 0" <<<"$out" && grep -Eq "^$HOST +0 " <<<"$out" &&
		grep -q 'requested weighted, applied weighted' <<<"$out"; then
		t_pass "report: renders the step, the node and the modes"
	else
		t_fail "report: renders the step, the node and the modes" "exit $rc: $out"
	fi
	out=$("$MPOLCTL" report -j "$job.0" --json 2>&1); rc=$?
	got=$("$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["job"], list(d["mempolicy"]["steps"]))' <<<"$out" 2>&1)
	t_expect_match "report --json: one JSON object with the job and its step" "^$job \['0'\]$" "$got"
	out=$("$MPOLCTL" report -j "$job.7" 2>&1); rc=$?
	if [ $rc -eq 1 ] && grep -q "no record of step 7; recorded steps: 0" <<<"$out"; then
		t_pass "report: a step that has no record is named, with the steps that do"
	else
		t_fail "report: a step that has no record is named, with the steps that do" "exit $rc: $out"
	fi
	out=$("${AS_USER[@]}" "$MPOLCTL" report -j "$job" 2>&1); rc=$?
	if grep -q 'PrivateData=.*jobs' "$SLURM_CONF"; then
		[ $rc -eq 1 ] && t_pass "report: $TEST_USER may not see root's job" ||
			t_fail "report: $TEST_USER may not see root's job" "exit $rc: $out"
	else
		t_skip "report: another user's job is hidden" "the test cluster has no PrivateData=jobs, so sacct shows every job to every user"
	fi
fi

plugstack

# 2. A user's own job, reported by that user.
run_job "${AS_USER[@]}" srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; exec '"$PY"' -c "'"$(toucher 16 1.8)"'"'
job=$(acct_job "$OUT")
if [ $RC -eq 0 ] && [ -n "$job" ] && acct_comment "$job" >/dev/null; then
	out=$("${AS_USER[@]}" "$MPOLCTL" report -j "$job" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "^job $job step 0" <<<"$out"; then
		t_pass "report: $TEST_USER reports their own job"
	else
		t_fail "report: $TEST_USER reports their own job" "exit $rc: $out"
	fi
else
	t_fail "report: $TEST_USER reports their own job" "job '$job' exit $RC, no record: $OUT"
fi

# 3. Two nodes, one step: each node's entry survives the other's write.
run_job srun -N 2 -n 2 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; exec '"$PY"' -c "'"$(toucher 16 1.8)"'"'
job=$(acct_job "$OUT")
if [ $RC -ne 0 ] || [ -z "$job" ]; then
	t_fail "two-node step: the job runs" "exit $RC: $OUT"
else
	comment=$(acct_comment "$job")
	got=$(acct_py "$comment" '" ".join(sorted(r["steps"]["0"]))')
	t_expect_match "two-node step: both nodes' entries are in the record" "^(node2 $HOST|$HOST node2)$" "$got"
	out=$("$MPOLCTL" report -j "$job" 2>&1)
	if grep -Eq "^$HOST " <<<"$out" && grep -Eq '^node2 ' <<<"$out" && grep -q 'by kind, all nodes' <<<"$out"; then
		t_pass "two-node step: report shows both nodes and the totals by kind"
	else
		t_fail "two-node step: report shows both nodes and the totals by kind" "$out"
	fi
fi

# 4. AdminComment already holding malformed JSON, then a foreign JSON object.
for pre in '{"broken": [1, 2' '{"site":{"cost":12.5},"ticket":"X-1"}'; do
	run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
		'echo JOB=$SLURM_JOB_ID; scontrol update JobId=$SLURM_JOB_ID AdminComment='"'$pre'"'; exec '"$PY"' -c "'"$(toucher 8 1.5)"'"'
	job=$(acct_job "$OUT")
	comment=$(acct_comment "$job")
	case $pre in
	'{"broken"'*)
		name="malformed JSON in AdminComment"
		if [ "${comment:0:${#pre}}" = "$pre" ]; then
			t_pass "$name is kept byte for byte"
		else
			t_fail "$name is kept byte for byte" "job '$job' exit $RC: $comment"
		fi ;;
	*)
		name="a foreign JSON object in AdminComment"
		got=$(acct_py "$comment" 'json.loads(c)["site"]["cost"], json.loads(c)["ticket"], "0" in r["steps"]')
		t_expect_match "$name keeps its keys, ours is added beside them" "^\(12.5, 'X-1', True\)$" "$got" ;;
	esac
	out=$("$MPOLCTL" report -j "$job" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "^job $job step 0" <<<"$out"; then
		t_pass "$name: report still works"
	else
		t_fail "$name: report still works" "exit $rc: $out"
	fi
done

# 5. A job too short for a sample still gets its record (modes, weights), and says so.
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c 'echo JOB=$SLURM_JOB_ID'
job=$(acct_job "$OUT")
comment=$(acct_comment "$job")
got=$(acct_py "$comment" 'r["steps"]["0"]["'"$HOST"'"]["samples"]')
t_expect_match "short job: recorded with 0 samples" '^0$' "$got"
out=$("$MPOLCTL" report -j "$job" 2>&1)
t_expect_match "short job: report says why there are no page counts" 'ended before the first sample' "$out"

# 6. Jobs without a record, and bad arguments.
run_job srun -w "$HOST" -n 1 bash -c 'echo JOB=$SLURM_JOB_ID; scontrol update JobId=$SLURM_JOB_ID AdminComment="just text"'
job=$(acct_job "$OUT")
sleep 1
out=$("$MPOLCTL" report -j "$job" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "has no placement record; its AdminComment holds other text" <<<"$out"; then
	t_pass "report: a job without a record says so (exit 1)"
else
	t_fail "report: a job without a record says so (exit 1)" "exit $rc: $out"
fi
out=$("$MPOLCTL" report -j 999999 2>&1); rc=$?
t_expect_match "report: an unknown job is an error naming it" "^1 .*accounting has no job 999999" "$rc $out"
out=$("$MPOLCTL" report -j 12x 2>&1); rc=$?
t_expect_match "report: a malformed job id is a usage error (exit 2)" "^2 .*'12x' is not a job id" "$rc $out"
out=$("$MPOLCTL" report 2>&1); rc=$?
t_expect_match "report: no job given is a usage error (exit 2)" "^2 .*give -j" "$rc $out"

# 7. A batch job whose two steps end together on one node: the batch step and both
# steps keep their entries (writers of one job racing on one comment).
script=$OUTDIR/acct-parallel.sh
mkdir -p "$OUTDIR"
cat >"$script" <<SCRIPT
#!/bin/bash
srun -n1 --overlap $PY -c "import time; b = b'x' * (16 << 20); time.sleep(1.5)" &
srun -n1 --overlap $PY -c "import time; b = b'x' * (8 << 20); time.sleep(1.5)" &
wait
SCRIPT
run_job sbatch --wait -N1 -n2 -w "$HOST" --mem-interleave=weighted -o /dev/null "$script"
job=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' <<<"$OUT")
comment=$(acct_comment "$job")
got=$(acct_py "$comment" '" ".join(sorted(r["steps"]))')
t_expect_match "batch job with two parallel steps: batch, 0 and 1 all recorded" '^0 1 batch$' "$got"
