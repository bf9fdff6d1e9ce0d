# t_acct_75_nodefail.sh - a node lost in the middle of a two-node step (issue 21): its
# slurmd stops answering (SIGSTOP), its slurmstepd and the step's task there are
# killed, and it is set DOWN, so the job ends NODE_FAIL. The surviving node's entry
# must be in accounting, read back from slurmdbd, and the record must name the lost
# node ("missing":{NODE:"0"}):
# - the step's second node lost before it handed its entry over (killed as soon as its
#   task runs, before the first sample): the collector stops waiting and writes
#   without it;
# - the step's first node lost (its record collector), after the second handed its
#   entry to it: the second, its task killed by the job's end, offers its entry again,
#   finds the parent's slurmd silent, and writes it itself.
# The job is not requeued (--no-requeue: a batch job is, by default, after NODE_FAIL).
# Each case puts the lost node back (SIGCONT, state=resume) for the files after it.

if [ ! -x "$PY" ]; then
	t_skip "node lost mid-step" "$PY is missing (install python3)"
	return 0 2>/dev/null || exit 0
fi

# node_stepd JOB STEP NODE: the slurmstepd of JOB.STEP on NODE: every node's runs on
# this host, in its slurmd's UTS namespace (cluster.sh).
node_stepd() {
	local p ns dpid
	read -r dpid <"$MPOL_CLUSTER_DIR/run/slurmd-$3.pid" || return
	ns=$(readlink "/proc/$dpid/ns/uts")
	for p in $(pgrep -x slurmstepd); do
		[ "$(tr -d '\0' 2>/dev/null <"/proc/$p/cmdline")" = "slurmstepd: [$1.$2]" ] &&
			[ "$(readlink "/proc/$p/ns/uts")" = "$ns" ] && echo "$p"
	done
}

# node_back NODE: up and taking jobs again.
node_back() {
	local i
	for ((i = 0; i < 30; i++)); do
		[[ $(sinfo -h -N -n "$1" -o %T 2>/dev/null) =~ ^(idle|mixed)$ ]] && return 0
		scontrol update nodename="$1" state=resume 2>/dev/null
		sleep 1
	done
	return 1
}

# lose_node WHICH (0: the step's first node, 1: its second)
lose_node() {
	local which=$1 name nodes lost kept spid tasks dpid state comment got said mark i
	name="node lost mid-step (the step's $([ "$which" = 0 ] && echo first || echo second) node)"
	mark=$(log_mark "$SLURMD_LOG")
	JOB=$(sbatch --parsable --no-requeue -N 2 -o /dev/null -J mpol-nodefail \
		--wrap "srun -N 2 -n 2 --mem-interleave=weighted $PY -c '$(toucher 16 600)'" 2>&1)
	if ! [[ $JOB =~ ^[0-9]+$ ]] ||
		! wait_until 30 sh -c "squeue -h -s -j $JOB -o %i | grep -q '^$JOB\\.0\$'"; then
		t_fail "$name: the survivor's entry and the lost node are in accounting" "the step did not start: $JOB"
		[[ $JOB =~ ^[0-9]+$ ]] && scancel "$JOB"
		return
	fi
	nodes=$(scontrol show hostnames "$(squeue -h -s -j "$JOB.0" -o %N)")
	lost=$(sed -n "$((which + 1))p" <<<"$nodes")
	kept=$(sed -n "$((2 - which))p" <<<"$nodes")
	# the lost node's slurmstepd once its task runs (the first sample is 1 s later)
	for ((i = 0; i < 300; i++)); do
		spid=$(node_stepd "$JOB" 0 "$lost")
		tasks=$(pgrep -P "${spid:-0}")
		[ -n "$tasks" ] && break
		sleep 0.05
	done
	# the first node: after the second handed its entry over
	[ "$which" = 0 ] && sleep 4
	read -r dpid <"$MPOL_CLUSTER_DIR/run/slurmd-$lost.pid"
	[ -n "$dpid" ] && kill -STOP "$dpid"
	[ -n "$tasks" ] && kill -KILL $spid $tasks 2>/dev/null
	scontrol update nodename="$lost" state=down reason=mpol-test-lost
	wait_job "$JOB" 120
	state=$(sacct -n -X -P -o State -j "$JOB" 2>/dev/null | head -n 1)
	if comment=$(acct_comment "$JOB"); then
		got=$(acct_py "$comment" '[step_nodes(r, "0"), r.get("missing")]')
	else
		got="none (AdminComment '${comment:0:200}')"
	fi
	said=$({ log_since "$SLURMD_LOG" "$mark"; cat "$MPOL_CLUSTER_DIR/log/slurmd-node2.log"; } 2>/dev/null |
		grep -F "job $JOB step 0:")
	if [ -n "$tasks" ] && [[ $state == NODE_FAIL* ]] && [ "$got" = "[['$kept'], {'$lost': '0'}]" ]; then
		t_pass "$name: the survivor's entry and the lost node are in accounting"
	else
		t_fail "$name: the survivor's entry and the lost node are in accounting" \
			"job '$JOB' state '$state' (lost '$lost' slurmstepd '$spid' tasks '$tasks', kept '$kept'); record: $got; slurmd: ${said:0:1200}"
	fi
	[ -n "$dpid" ] && kill -CONT "$dpid"
	node_back "$lost" || t_fail "$name: the lost node takes jobs again" "$(sinfo -h -N -n "$lost" -o '%T %E' 2>&1)"
}

lose_node 1
lose_node 0
