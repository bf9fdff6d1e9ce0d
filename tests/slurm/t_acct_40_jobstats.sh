# t_acct_40_jobstats.sh - the record in company of Princeton's jobstats, which keeps
# "JS1:" + base64(gzip(JSON)) in AdminComment, written by its EpilogSlurmctld with
# `sacctmgr -i update job where jobid=ID set AdminComment=JS1:...` a few seconds after
# the job ended (over whatever was there), and whose decoder breaks on any text of ours
# before or after it. On the default configuration (record=admincomment) both records
# survive: where AdminComment holds a jobstats summary the placement record goes to the
# job's SystemComment, and the node that wrote a job's record looks at AdminComment
# again after the end (mem_interleave(8) RECORD), moving the record to SystemComment
# when the summary replaced it. With record=extra the placement record goes to the
# job's Extra (Slurm 23.02 on, AccountingStoreFlags=job_extra). On 22.05 sacctmgr
# lower-cases the value (JS1:H4sI... becomes js1:h4si...), so jobstats' summary cannot
# be decoded there whatever we do: there the cases check that the hook's text stays as
# sacctmgr stored it and that our record survives beside it; the decoding is checked
# where jobstats itself can work (23.02 on, the 24.11 tier).

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

# Whether jobstats' summary survives sacctmgr on this release (see the top).
js1_decodes=0
grep -q '^AccountingStoreFlags=.*job_extra' "$SLURM_CONF" && js1_decodes=1

# slurmd_marks: where every slurmd's log stands now; slurmd_since MARKS: what they
# gained since (the node's two slurmd share the state directory, so either one's
# courier may deliver or look again).
slurmd_marks() { local f; for f in "$MPOL_CLUSTER_DIR"/log/slurmd-*.log; do echo "$f $(log_mark "$f")"; done; }
slurmd_since() { local f m; while read -r f m; do log_since "$f" "$m"; done <<<"$1"; }

# The record as the job's SystemComment holds it, read back from slurmdbd, once it is
# there (up to SECONDS): "STEP NODE..." per step, or nothing.
system_record() {
	local c
	wait_until "$2" sh -c "sacct -n -P -X -o SystemComment -j '$1' | grep -q 'mempolicy'"
	c=$(sacct -n -P -X -o JobID,SystemComment -j "$1" 2>/dev/null | sed -n "s/^$1|//p")
	[ -n "$c" ] && acct_py "$c" '" ".join(s + ":" + ",".join(step_nodes(r, s)) for s in sorted(r["steps"]))' 2>&1
}

# report_from JOB FIELD NAME: mpolctl report on JOB reads the record of its step 0 from
# FIELD and says so on its first line.
report_from() {
	local out rc
	out=$("$MPOLCTL" report -j "$1" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "^job $1: placement record from its $2" <<<"$out" && grep -q "^job $1 step 0" <<<"$out"; then
		t_pass "$3"
	else
		t_fail "$3" "exit $rc: $out"
	fi
}

# 1. A jobstats summary already in AdminComment is never written into: the record
# goes to SystemComment beside it (through slurmdbd once the job has ended: slurmctld
# takes no SystemComment), on the default configuration.
plugstack
js1=JS1:$(printf '{"nodes":{"%s":{"cpus":1}},"total_time":1}' "$HOST" | gzip -c | base64 -w0)
mark=$(slurmd_marks)
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; scontrol update JobId=$SLURM_JOB_ID AdminComment='"$js1"
job=$(acct_job "$OUT")
sys=$(system_record "$job" 90)
got=$(sacct -n -P -X -o JobID,AdminComment -j "$job" 2>/dev/null | sed -n "s/^$job|//p")
if [ $RC -eq 0 ] && [ "$got" = "$js1" ] && [ "$(js1_nodes "$got")" = "['$HOST']" ] &&
	[ "$sys" = "0:$HOST" ]; then
	t_pass "a JS1: summary in AdminComment is left byte for byte and decodes; the record is in SystemComment"
else
	t_fail "a JS1: summary in AdminComment is left byte for byte and decodes; the record is in SystemComment" \
		"job '$job' exit $RC: $got; $(js1_nodes "$got"); SystemComment record: '$sys'; log: $(slurmd_since "$mark" | grep mem_interleave | tail -n 3)"
fi
beside_line="job $job step 0: .*placement record .*into SystemComment"
wait_until 15 sh -c 'grep -q "$1" "$2"/log/slurmd-*.log' sh "$beside_line" "$MPOL_CLUSTER_DIR"
t_expect_match "slurmd's log says the record went to SystemComment beside the summary" \
	"$beside_line" "$(slurmd_since "$mark")"
report_from "$job" "SystemComment (its AdminComment holds a jobstats summary)" \
	"report on a job whose AdminComment is jobstats': the record from SystemComment, and says so"

# 2. The usual order, on the default configuration: our record first, then jobstats'
# EpilogSlurmctld puts its summary over AdminComment after the job's end. The node
# that wrote the record looks again (30 s after its write, then after the end) and
# moves it to SystemComment. The hook is jobstats' script as it is (a made-up summary
# instead of the one it asks Prometheus for); unlike jobstats, it retries until
# slurmdbd has the job (on a slow machine the end record can reach slurmdbd after the
# hook's first try: "Nothing modified") and logs what sacctmgr said, so a failure here
# names its cause. slurmctld runs it without a search path or this cluster's
# SLURM_CONF: the hook names both, as a site's would.
hook_log=$MPOL_CLUSTER_DIR/log/jobstats-hook.log
rm -f "$hook_log"
# install_jobstats_hook: jobstats' EpilogSlurmctld, as described above, into the
# cluster's slurmctld epilog directory.
install_jobstats_hook() {
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
}
install_jobstats_hook
plugstack
mark=$(slurmd_marks)
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; exec '"$PY"' -c "'"$(toucher 16 1.5)"'"'
job=$(acct_job "$OUT")
sys=$(system_record "$job" 120)
admin=$(sacct -n -P -X -o JobID,AdminComment -j "$job" 2>/dev/null | sed -n "s/^$job|//p")
if [ $RC -eq 0 ] && [ "$sys" = "0:$HOST" ] && grep -qi '^JS1:' <<<"$admin"; then
	t_pass "jobstats after the job's end, default configuration: its summary in AdminComment, the record in SystemComment (read back from slurmdbd)"
else
	t_fail "jobstats after the job's end, default configuration: its summary in AdminComment, the record in SystemComment (read back from slurmdbd)" \
		"job '$job' exit $RC ($(tail -c 300 <<<"$OUT")); SystemComment record: '$sys'; AdminComment: ${admin:0:80}; the hook: $(tail -n 2 "$hook_log" 2>/dev/null || echo 'never ran'); log: $(slurmd_since "$mark" | grep mem_interleave | tail -n 3)"
fi
if [ $js1_decodes -eq 1 ]; then
	t_expect_match "jobstats after the job's end: its JS1: summary decodes (base64, gzip, JSON)" "^\['$HOST'\]$" \
		"$(js1_nodes "$admin")"
else
	t_expect_match "jobstats after the job's end: AdminComment is the hook's summary as sacctmgr stored it ($(slurm_release) lower-cases it)" \
		"^js1:h4si" "$admin"
fi
# (the courier logs once its confirming reads are done, after sacct may show the move)
moved_line="job $job: a jobstats summary replaced the placement record in AdminComment; the record is in SystemComment now"
wait_until 15 sh -c 'grep -qF "$1" "$2"/log/slurmd-*.log' sh "$moved_line" "$MPOL_CLUSTER_DIR"
t_expect_match "slurmd's log says the record moved to SystemComment" \
	"$moved_line" "$(slurmd_since "$mark")"
report_from "$job" SystemComment "jobstats after the job's end: mpolctl report reads the record from SystemComment"
rm -f "$hook"

if ! grep -q '^AccountingStoreFlags=.*job_extra' "$SLURM_CONF"; then
	# 3. Before 23.02: record=extra fails no job and says what it needs.
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

# 4. 23.02 and later, record=extra: the same hook; both records survive, each in its
# own field.
install_jobstats_hook
plugstack record=extra
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
	'echo JOB=$SLURM_JOB_ID; exec '"$PY"' -c "'"$(toucher 16 1.5)"'"'
job=$(acct_job "$OUT")
wait_until 60 sh -c "sacct -n -P -X -o AdminComment -j '$job' | grep -q '^JS1:'"
admin=$(sacct -n -P -X -o JobID,AdminComment -j "$job" 2>/dev/null | sed -n "s/^$job|//p")
acct_comment "$job" Extra >/dev/null
t_expect_match "jobstats: its JS1: summary decodes (base64, gzip, JSON)" "^\['$HOST'\]$" \
	"$(js1_nodes "$admin")"$'\n'"the hook: $(tail -n 3 "$hook_log" 2>/dev/null || echo 'never ran')"
report_from "$job" Extra "jobstats: mpolctl report reads the same job's record from Extra"
rm -f "$hook"
