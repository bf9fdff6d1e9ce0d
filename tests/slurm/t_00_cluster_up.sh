# t_00_cluster_up.sh - the test cluster itself: both slurmd "hosts" up and distinct,
# accounting answers, start is idempotent, bad arguments are refused, and a crashed
# daemon is noticed and brought back by the next start.

pids() { cat "$MPOL_CLUSTER_DIR"/run/*.pid "$MPOL_CLUSTER_DIR"/munge/munged.pid "$MPOL_CLUSTER_DIR"/mysql/mariadbd.pid 2>/dev/null | sort | tr '\n' ' '; }

t_check "cluster.sh status: every daemon runs and both nodes are up" "$CLUSTER" status
t_expect_match "sinfo lists two idle nodes" '^2$' "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)"

run_job srun -N 2 -n 2 sh -c 'echo "$(hostname) $SLURMD_NODENAME"'
t_expect_match "a 2-node step runs on two hosts with their own hostnames" \
	"^$(printf '%s\n' "$HOST $HOST" "node2 node2" | sort | paste -sd ' ')\$" "$(sort <<<"$OUT" | paste -sd ' ')"

t_expect_match "accounting (sacctmgr) knows the cluster" '^mpol$' "$(sacctmgr -n -P list cluster format=cluster 2>&1)"
run_job srun -w "$HOST" true
if wait_until 10 sh -c "sacct -n -X -a -S now-1hours -o JobID,State | grep -q COMPLETED"; then
	t_pass "sacct has finished jobs"
else
	t_fail "sacct has finished jobs" "$(sacct -n -X -a -S now-1hours 2>&1 | tail -n 3)"
fi

before=$(pids)
out=$("$CLUSTER" start --nodes 2 2>&1)
if [ "$(pids)" = "$before" ] && grep -q 'already running' <<<"$out"; then
	t_pass "cluster.sh start on a running cluster changes nothing"
else
	t_fail "cluster.sh start on a running cluster changes nothing" "$out"
fi

for bad in "--nodes 0" "--nodes 65" "--nodes x" "--bogus"; do
	# shellcheck disable=SC2086
	out=$("$CLUSTER" start $bad 2>&1)
	if [ $? -ne 0 ] && [ "$(pids)" = "$before" ] && grep -qF -- "${bad##* }" <<<"$out"; then
		t_pass "cluster.sh start $bad is refused naming it, cluster untouched"
	else
		t_fail "cluster.sh start $bad is refused naming it, cluster untouched" "$out"
	fi
done
out=$("$CLUSTER" frobnicate 2>&1)
if [ $? -ne 0 ] && grep -q usage <<<"$out"; then
	t_pass "cluster.sh with an unknown command prints its usage and fails"
else
	t_fail "cluster.sh with an unknown command prints its usage and fails" "$out"
fi

# A crashed slurmctld: status says so, the next start brings everything back.
kill -KILL "$(cat "$MPOL_CLUSTER_DIR/run/slurmctld.pid")"
if wait_until 10 sh -c "! '$CLUSTER' status >/dev/null 2>&1"; then
	t_pass "cluster.sh status notices a killed slurmctld"
else
	t_fail "cluster.sh status notices a killed slurmctld" "$("$CLUSTER" status 2>&1)"
fi
out=$(MPOL_PLUGSTACK_ARGS="statedir=$STATEDIR" "$CLUSTER" start --nodes 2 2>&1 9>&-)
run_job srun -N 2 -n 2 true
if [ $RC -eq 0 ] && "$CLUSTER" status >/dev/null 2>&1; then
	t_pass "cluster.sh start after a crash restarts the cluster and jobs run"
else
	t_fail "cluster.sh start after a crash restarts the cluster and jobs run" "$out; srun exit $RC: $OUT"
fi
