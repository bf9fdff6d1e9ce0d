# t_acct_70_jobcomp.sh - where slurmctld's job completion records carry AdminComment
# (Slurm 26.05: the jobcomp plugins that send a record, elasticsearch and kafka, add
# admin_comment), the placement record reaches them: a job's jobcomp/elasticsearch
# record, caught by a small HTTP listener standing in for Elasticsearch, holds the same
# record sacct shows.

jc_cases=("a job's completion record carries its placement record" "it is the record sacct shows"
	"the cluster restarts without jobcomp")
jc_release=$(slurm_release)
if [ "$(printf '%s\n' "$jc_release" 26.05 | sort -V | head -n 1)" != 26.05 ]; then
	for jc_c in "${jc_cases[@]}"; do
		t_skip "jobcomp: $jc_c" "Slurm $jc_release's jobcomp records carry no AdminComment (26.05 on)"
	done
	return 0
fi
if [ ! -x "$PY" ]; then
	for jc_c in "${jc_cases[@]}"; do t_skip "jobcomp: $jc_c" "$PY is missing (the listener and the task use it)"; done
	return 0
fi

# The listener: every POST body one line of the capture file, answered 201 Created as
# Elasticsearch does; it writes its port to a file first. A plain background job, not a
# coproc: bash unsets a coproc's variables the moment it reaps it, which set -u turned
# into a failure of the whole file when the reap won the race with the kill below.
jc_capture=$MPOL_CLUSTER_DIR/log/jobcomp-capture.jsonl
jc_portfile=$MPOL_CLUSTER_DIR/log/jobcomp-port
rm -f "$jc_capture" "$jc_portfile"
"$PY" -c '
import http.server, os, sys
class Catch(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(sys.argv[1], "ab") as f:
            f.write(body.replace(b"\n", b" ") + b"\n")
        self.send_response(201)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Catch)
with open(sys.argv[2] + ".new", "w") as f:
    print(server.server_address[1], file=f)
os.rename(sys.argv[2] + ".new", sys.argv[2])
server.serve_forever()' "$jc_capture" "$jc_portfile" 9>&- &
jc_listener=$!
jc_port=
wait_until 10 test -s "$jc_portfile" && read -r jc_port <"$jc_portfile"

if [ -z "$jc_port" ] || ! jc_out=$(restart_cluster MPOL_JOBCOMP_TYPE=jobcomp/elasticsearch MPOL_JOBCOMP_LOC="http://127.0.0.1:$jc_port/slurm/_doc"); then
	t_fail "jobcomp: ${jc_cases[0]}" "no listener (port '$jc_port') or the cluster did not start with jobcomp/elasticsearch: $(tail -n 3 <<<"${jc_out:-}")"
	t_fail "jobcomp: ${jc_cases[1]}" "not run"
else
	plugstack sample_interval=1
	run_job srun -w "$HOST" --mem-interleave=weighted bash -c 'echo JOB=$SLURM_JOB_ID; exec '"$PY"' -c "'"$(toucher 16 1.5)"'"'
	jc_job=$(acct_job "$OUT")
	# slurmctld sends the record from its own thread once the job has completed.
	jc_select=(jq -e -r --argjson j "${jc_job:-0}" 'select(.jobid == $j) | .admin_comment // ""' "$jc_capture")
	jc_what="nothing sent in 30 s"
	wait_until 30 "${jc_select[@]}" && jc_what="admin_comment"
	jc_sent=$("${jc_select[@]}" 2>&1 | tail -n 1)
	if [ $RC -ne 0 ] || [ -z "$jc_job" ]; then
		t_fail "jobcomp: ${jc_cases[0]}" "the job did not run: exit $RC: $OUT"
		t_fail "jobcomp: ${jc_cases[1]}" "not run"
	else
		t_expect_match "jobcomp: ${jc_cases[0]}" '"mempolicy"|mempolicy=\{' \
			"job $jc_job's record: $jc_what '$jc_sent' (capture: $(tail -c 300 "$jc_capture" 2>/dev/null))"
		jc_acct=$(acct_comment "$jc_job")
		if [ -n "$jc_sent" ] && [ "$jc_sent" = "$jc_acct" ]; then
			t_pass "jobcomp: ${jc_cases[1]}"
		else
			t_fail "jobcomp: ${jc_cases[1]}" "jobcomp sent '$jc_sent', sacct shows '$jc_acct'"
		fi
	fi
fi
kill "$jc_listener" 2>/dev/null
wait "$jc_listener" 2>/dev/null
if jc_out=$(restart_cluster); then
	t_pass "jobcomp: ${jc_cases[2]}"
else
	t_fail "jobcomp: ${jc_cases[2]}" "$(tail -n 3 <<<"$jc_out")"
fi
plugstack
