# t_acct_40_jobstats.sh - the record in company of Princeton's jobstats, which keeps
# "JS1:" + base64(gzip(JSON)) in AdminComment, written by its EpilogSlurmctld with
# `sacctmgr -i update job where jobid=ID set AdminComment=JS1:...` a few seconds after
# the job ended (over whatever was there), and whose decoder breaks on any text of ours
# before or after it. With record=extra the placement record goes to the job's Extra
# (Slurm 23.02 on, AccountingStoreFlags=job_extra): both survive, each readable by its
# own tool. On 22.05 sacctmgr lower-cases the value (JS1:H4sI... becomes js1:h4si...), so
# jobstats' summary cannot survive there whatever we do: the coexistence case runs
# where jobstats itself can work (23.02 on, the 24.11 tier), and says so here.

hook=$MPOL_CLUSTER_DIR/etc/slurmctld-epilog.d/jobstats
rm -f "$hook"

# The comment as jobstats' decoder reads it: its "nodes", or the error.
js1_nodes() {
	"$PY" -c '
import base64, gzip, json, sys
d = sys.argv[1]
if not d.startswith("JS1:"):
    sys.exit("not a JS1 summary: %r" % d[:40])
print(sorted(json.loads(gzip.decompress(base64.b64decode(d[4:])))["nodes"]))' "$1" 2>&1
}

# 1. A jobstats summary already in AdminComment is never written into (any release).
js1=JS1:$(printf '{"nodes":{"%s":{"cpus":1}},"total_time":1}' "$HOST" | gzip -c | base64 -w0)
mark=$(log_mark "$SLURMD_LOG")
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; scontrol update JobId=$SLURM_JOB_ID AdminComment='"$js1"
job=$(acct_job "$OUT")
sleep 1
got=$(sacct -n -P -X -o JobID,AdminComment -j "$job" 2>/dev/null | sed -n "s/^$job|//p")
if [ $RC -eq 0 ] && [ "$got" = "$js1" ] && [ "$(js1_nodes "$got")" = "['$HOST']" ] &&
	grep -q "jobstats summary" <<<"$(log_since "$SLURMD_LOG" "$mark")"; then
	t_pass "a JS1: summary in AdminComment is left byte for byte and decodes; slurmd's log says why"
else
	t_fail "a JS1: summary in AdminComment is left byte for byte and decodes; slurmd's log says why" \
		"job '$job' exit $RC: $got; $(js1_nodes "$got"); log: $(log_since "$SLURMD_LOG" "$mark" | grep mem_interleave | tail -n 2)"
fi
out=$("$MPOLCTL" report -j "$job" 2>&1); rc=$?
t_expect_match "report on a job whose AdminComment is jobstats': says so (exit 1)" "^1 .*jobstats summary" "$rc $out"

if ! grep -q '^AccountingStoreFlags=.*job_extra' "$SLURM_CONF"; then
	# 2. Before 23.02: record=extra fails no job and says what it needs.
	mark=$(log_mark "$SLURMD_LOG")
	plugstack record=extra
	run_job srun -w "$HOST" -n 1 --mem-interleave=weighted true
	if [ $RC -eq 0 ] && grep -q "record=extra needs Slurm 23.02" <<<"$(log_since "$SLURMD_LOG" "$mark")"; then
		t_pass "record=extra on $(slurmctld -V | sed 's/^slurm[^0-9]*//'): the job runs, slurmd's log says it needs 23.02"
	else
		t_fail "record=extra before 23.02: the job runs, slurmd's log says it needs 23.02" \
			"exit $RC: $OUT; log: $(log_since "$SLURMD_LOG" "$mark" | grep mem_interleave | tail -n 2)"
	fi
	t_skip "jobstats coexistence (its EpilogSlurmctld, then JS1: decode and mpolctl report of one job)" \
		"Slurm $(slurmctld -V | sed 's/^slurm[^0-9]*//') lower-cases sacctmgr's AdminComment (JS1:H4sI -> js1:h4si): jobstats cannot work here; the case runs from 23.02 on (tests/slurm/run-release)"
	return 0 2>/dev/null || exit 0
fi

# 3. 23.02 and later: jobstats' EpilogSlurmctld as it is (a made-up summary instead of
# the one it asks Prometheus for), record=extra; both records survive.
# Unlike jobstats, it retries until slurmdbd has the job (on a slow machine the end
# record can reach slurmdbd after the hook's first try: "Nothing modified") and logs
# what sacctmgr said, so a failure here names its cause. slurmctld runs it without a
# search path or this cluster's SLURM_CONF: the hook names both, as a site's would.
hook_log=$MPOL_CLUSTER_DIR/log/jobstats-hook.log
rm -f "$hook_log"
cat >"$hook" <<HOOK
#!/bin/bash
exec >>"$hook_log" 2>&1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin SLURM_CONF=$SLURM_CONF
sleep 3
STATS=\$(printf '{"gpus":0,"nodes":{"%s":{"cpus":1,"total_memory":1073741824,"used_memory":8388608,"total_time":2.0}},"total_time":3}' "\$SLURM_JOB_NODELIST" | gzip -c | base64 -w 0)
for try in \$(seq 1 20); do
	out=\$(sacctmgr -i update job where jobid=\$SLURM_JOB_ID set AdminComment=JS1:\$STATS 2>&1)
	echo "job \$SLURM_JOB_ID try \$try: \$out"
	grep -q "Modified" <<<"\$out" && exit 0
	sleep 2
done
HOOK
chmod 0755 "$hook"
plugstack record=extra
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; exec '"$PY"' -c "'"$(toucher 16 1.5)"'"'
job=$(acct_job "$OUT")
wait_until 60 sh -c "sacct -n -P -X -o AdminComment -j '$job' | grep -q '^JS1:'"
admin=$(sacct -n -P -X -o JobID,AdminComment -j "$job" 2>/dev/null | sed -n "s/^$job|//p")
extra=$(acct_comment "$job" Extra)
t_expect_match "jobstats: its JS1: summary decodes (base64, gzip, JSON)" "^\['$HOST'\]$" \
	"$(js1_nodes "$admin")"$'\n'"the hook: $(tail -n 3 "$hook_log" 2>/dev/null || echo 'never ran')"
out=$("$MPOLCTL" report -j "$job" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "^job $job step 0" <<<"$out" && grep -Eq "^$HOST +0 " <<<"$out"; then
	t_pass "jobstats: mpolctl report reads the same job's record from Extra"
else
	t_fail "jobstats: mpolctl report reads the same job's record from Extra" "exit $rc: $out; Extra: $extra"
fi
rm -f "$hook"
