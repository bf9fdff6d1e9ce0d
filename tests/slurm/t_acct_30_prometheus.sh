# t_acct_30_prometheus.sh - a running step's placement in Prometheus: with
# prometheus_dir= the sampler writes node_exporter's textfile format; Debian's
# prometheus-node-exporter, on a loopback port with --collector.textfile.directory,
# serves it while the job runs (parsed by python3-prometheus-client's text parser),
# and nothing of the job once it has ended.

EXPORTER=/usr/bin/prometheus-node-exporter
if [ ! -x "$EXPORTER" ] || ! "$PY" -c 'import prometheus_client' 2>/dev/null; then
	t_skip "prometheus cases" "prometheus-node-exporter or python3-prometheus-client is missing (scripts/install-deps.sh cluster)"
	return 0 2>/dev/null || exit 0
fi
promdir=$MPOL_CLUSTER_DIR/prom
rm -rf "$promdir"
mkdir -p "$promdir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$EXPORTER" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$promdir" >"$MPOL_CLUSTER_DIR/log/node-exporter.log" 2>&1 &
exporter=$!

# scrape JOB: "NAME{numa_node=N} VALUE" for each of the job's samples, parsed by
# prometheus_client's text parser (an error if the page does not parse).
scrape() {
	"$PY" - "$port" "$1" <<'PYEOF'
import sys, urllib.request
from prometheus_client.parser import text_string_to_metric_families
page = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
for fam in text_string_to_metric_families(page):
    for s in fam.samples:
        if s.labels.get("jobid") == sys.argv[2]:
            print("%s{numa_node=%s,step=%s} %s %s %s" % (s.name, s.labels.get("numa_node", "-"),
                  s.labels.get("step"), s.value, fam.type, fam.documentation != ""))
PYEOF
}

if ! wait_until 10 curl -sf "http://127.0.0.1:$port/metrics"; then
	t_fail "prometheus: node_exporter answers on 127.0.0.1:$port" "$(tail -n 3 "$MPOL_CLUSTER_DIR/log/node-exporter.log")"
else
	plugstack "prometheus_dir=$promdir" sample_interval=1
	timeout "$JOB_TIMEOUT" srun -w "$HOST" -n 1 --mem-interleave=weighted bash -c \
		'echo JOB=$SLURM_JOB_ID; exec '"$PY"' -c "'"$(toucher 64 5)"'"' >"$OUTDIR/prom.$$" 2>&1 &
	srun_pid=$!
	wait_until 10 sh -c "grep -q JOB= '$OUTDIR/prom.$$'"
	job=$(acct_job "$(cat "$OUTDIR/prom.$$")")
	during=
	if [ -n "$job" ] && wait_until 15 sh -c "ls '$promdir' | grep -q '_${job}_0.prom'"; then
		sleep 1.5      # the second sample: the toucher's 64 MiB are in
		during=$(scrape "$job" 2>&1)
	fi
	wait "$srun_pid"
	bytes=$(sed -n 's/^slurm_mempolicy_anon_bytes{numa_node=0,step=0} \([0-9.e+]*\) gauge True$/\1/p' <<<"$during")
	if [ -n "$bytes" ] && awk -v b="$bytes" 'BEGIN { exit !(b >= 64 * 1048576) }' &&
		grep -q '^slurm_mempolicy_target_ratio{numa_node=0,step=0} 1.0 gauge True$' <<<"$during" &&
		grep -q '^slurm_mempolicy_drift_ratio{numa_node=-,step=0} ' <<<"$during"; then
		t_pass "prometheus: during the job, node_exporter serves its anonymous bytes, target and drift (parsed)"
	else
		t_fail "prometheus: during the job, node_exporter serves its anonymous bytes, target and drift (parsed)" \
			"job '$job'; scraped: ${during:0:600}"
	fi
	after=$(scrape "$job" 2>&1)
	if [ -n "$job" ] && [ -z "$after" ] && [ -z "$(ls -A "$promdir")" ]; then
		t_pass "prometheus: after the job, its metrics and file are gone"
	else
		t_fail "prometheus: after the job, its metrics and file are gone" "scraped: ${after:0:300}; files: $(ls -A "$promdir")"
	fi
	rm -f "$OUTDIR/prom.$$"

	# Scraped in a loop while 6 steps write every second: every page parses, and
	# node_exporter logs no error (it reads every *.prom, hidden temporaries included).
	elog=$MPOL_CLUSTER_DIR/log/node-exporter.log
	emark=$(log_mark "$elog")
	writers=()
	for i in 1 2 3 4 5 6; do
		timeout "$JOB_TIMEOUT" srun -w "$HOST" -n 1 --mem-interleave=weighted "$PY" -c "$(toucher 16 6)" \
			>/dev/null 2>&1 &
		writers+=($!)
	done
	scrapes=0 bad=0
	for ((i = 0; i < 40; i++)); do
		"$PY" - "$port" <<'PYEOF' || bad=$((bad + 1))
import sys, urllib.request
from prometheus_client.parser import text_string_to_metric_families
page = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode()
list(text_string_to_metric_families(page))
PYEOF
		scrapes=$((scrapes + 1))
		sleep 0.2
	done
	wait "${writers[@]}"     # not a bare wait: node_exporter runs in the background too
	errors=$(log_since "$elog" "$emark" | grep -i 'level=error\|failed' || true)
	if [ $bad = 0 ] && [ -z "$errors" ]; then
		t_pass "prometheus: $scrapes scrapes while 6 steps write: every page parses, node_exporter logs no error"
	else
		t_fail "prometheus: scrapes while 6 steps write: every page parses, node_exporter logs no error" \
			"$bad of $scrapes pages did not parse; log: ${errors:0:400}"
	fi
fi
kill "$exporter" 2>/dev/null
wait "$exporter" 2>/dev/null

# What a dead step left (a file naming a writer that is gone, a temporary, a FIFO of
# our name) is swept by the next step on the node; files not ours stay.
plugstack "prometheus_dir=$promdir"
sh -c 'exit 0' & dead=$!
wait $dead
printf '# slurm-mempolicy writer %d 1\nslurm_mempolicy_drift_ratio{jobid="1",step="0"} 0\n' "$dead" >"$promdir/slurm_mempolicy_1_0.prom"
cp "$promdir/slurm_mempolicy_1_0.prom" "$promdir/.slurm_mempolicy_1_1.tmp"
mkfifo "$promdir/slurm_mempolicy_2_0.prom"
echo 'other 1' >"$promdir/other.prom"
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted true
left=$(ls -A "$promdir" | tr '\n' ' ')
if [ $RC -eq 0 ] && [ "$left" = "other.prom " ]; then
	t_pass "prometheus: the next step sweeps a dead step's file, temporary and a FIFO; other files stay"
else
	t_fail "prometheus: the next step sweeps a dead step's file, temporary and a FIFO; other files stay" \
		"exit $RC: $OUT; left: $left"
fi
rm -f "$promdir/other.prom"

# A directory others may write: refused, no job fails, slurmd's log says why.
chmod 0777 "$promdir"
mark=$(log_mark "$SLURMD_LOG")
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted "$PY" -c "$(toucher 8 1.5)"
if [ $RC -eq 0 ] && [ -z "$(ls -A "$promdir")" ] &&
	grep -q "metrics: the metrics directory $promdir must belong to uid 0 and be writable by no one else" \
		<<<"$(log_since "$SLURMD_LOG" "$mark")"; then
	t_pass "prometheus: a directory others may write gets no file, fails no job, and is named in slurmd's log"
else
	t_fail "prometheus: a directory others may write gets no file, fails no job, and is named in slurmd's log" \
		"exit $RC: $OUT; files: $(ls -A "$promdir"); log: $(log_since "$SLURMD_LOG" "$mark" | grep mem_interleave | tail -n 3)"
fi
chmod 0755 "$promdir"

# A directory that is not there: the job runs, slurmd's log says why there are no metrics.
mark=$(log_mark "$SLURMD_LOG")
plugstack "prometheus_dir=$promdir/missing"
run_job srun -w "$HOST" -n 1 --mem-interleave=weighted "$PY" -c "$(toucher 8 1.5)"
if [ $RC -eq 0 ] && grep -q "metrics: the metrics directory $promdir/missing: No such file" <<<"$(log_since "$SLURMD_LOG" "$mark")"; then
	t_pass "prometheus: a missing directory fails no job and is named in slurmd's log"
else
	t_fail "prometheus: a missing directory fails no job and is named in slurmd's log" \
		"exit $RC: $OUT; log: $(log_since "$SLURMD_LOG" "$mark" | grep mem_interleave | tail -n 3)"
fi
