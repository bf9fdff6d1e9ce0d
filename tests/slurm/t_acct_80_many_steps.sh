# t_acct_80_many_steps.sh - the placement record of long workflow jobs (issue 21): one
# batch job of 10,000 one-node `srun --mem-interleave=weighted true` steps and one of
# 2,000 two-node steps, with record=admincomment and (Slurm 23.02 on,
# AccountingStoreFlags=job_extra) with record=extra. In the record sacct reads back
# from slurmdbd every step is counted, each under its nodes, the newest in detail, the
# older ones folded, and `mpolctl report -j JOB` shows the folded steps as such, adding
# up to every step. The steps run MPOL_MANY_PAR at once (default 8, `srun --overlap`,
# as workflow jobs do: on this shared 2-CPU machine, 100 one-node steps took 160 ms
# each 8 at once, 213 4 at once, 262 one at a time, and about as much without the
# plugin: the CPUs are the limit). Each job's minutes and ms per step are printed.
# Measured on 22.05 with the machine's load at 10-13: 10,000 one-node steps 45 min
# (about 270 ms a step), 2,000 two-node steps 9 min (job run; its record, read by
# hand as this file reads it, counted all 2,000, each under both nodes). On 24.11,
# 2026-12-06: record=admincomment 34.8 and 8.7 min, record=extra 30.0 and 7.1 min,
# every step handed to the courier. That is more than CI's budget allows in four
# release tiers: the cases run only with MPOL_LONG=1,
# and are otherwise reported skipped with the command that runs them.
# MPOL_MANY_ONE and MPOL_MANY_TWO change the step counts (default 10000 and 2000),
# MPOL_MANY_FIELDS the fields (default "AdminComment Extra"). Each field's cases start
# the cluster again with that record= (slurmd's courier reads it as it starts).

one=${MPOL_MANY_ONE:-10000}
two=${MPOL_MANY_TWO:-2000}
par=${MPOL_MANY_PAR:-8}
read -ra fields <<<"${MPOL_MANY_FIELDS:-AdminComment Extra}"

# many_name FIELD NODES: a case's name.
many_name() {
	local n=$one what=one-node
	[ "$2" = 2 ] && n=$two what=two-node
	echo "$n $what steps in one job, record=${1,,}: every step counted in sacct's $1, the newest in detail, the older folded, mpolctl report shows the folded steps"
}

if [ "${MPOL_LONG:-0}" != 1 ]; then
	for field in "${fields[@]}"; do
		for nodes in 1 2; do
			t_skip "$(many_name "$field" "$nodes")" \
				"a long case (about an hour a field here), not in CI: MPOL_LONG=1 tests/slurm/run t_acct_80_many_steps.sh (24.11: MPOL_LONG=1 tests/slurm/run-release t_acct_80_many_steps.sh)"
		done
	done
	return 0 2>/dev/null || exit 0
fi
if [ ! -x "$PY" ]; then
	t_skip "many-step cases" "$PY is missing (install python3)"
	return 0 2>/dev/null || exit 0
fi

# The batch script: N steps of NODES nodes, PAR at once; the steps that failed go to
# FAILED; it prints the milliseconds the steps took, in all and per step.
mkdir -p "$OUTDIR"
cat >"$OUTDIR/many_steps.sh" <<'EOF'
#!/bin/bash
n=$1 nodes=$2 par=$3 failed=$4
: >"$failed"
t0=$(date +%s%N)
for ((i = 0; i < n; i++)); do
	while (($(jobs -rp | wc -l) >= par)); do wait -n; done
	srun --overlap -N "$nodes" -n "$nodes" --mem-interleave=weighted true || echo "$i" >>"$failed" &
done
wait
ms=$((($(date +%s%N) - t0) / 1000000))
echo "steps $n ms $ms per_step $((ms / n))"
EOF
chmod 0755 "$OUTDIR/many_steps.sh"

# many_job FIELD NODES: run the job, check its record in FIELD and mpolctl's report.
many_job() {
	local field=$1 nodes=$2 n=$one name job t0 secs said failed want got out sums waited comment nodes_want handed where=()
	[ "$nodes" = 2 ] && n=$two
	[ "$nodes" = 1 ] && where=(-w "$HOST")
	name=$(many_name "$field" "$nodes")
	if [ "$field" = Extra ] && ! grep -q '^AccountingStoreFlags=.*job_extra' "$SLURM_CONF"; then
		t_skip "$name" "Slurm $(slurm_release) has no AccountingStoreFlags=job_extra (record=extra needs 23.02 or later: MPOL_LONG=1 tests/slurm/run-release t_acct_80_many_steps.sh runs it on 24.11)"
		return
	fi
	# slurmd's courier reads record= when slurmd starts: restarted, it writes this
	# field's records as it would at a site configured so
	if ! out=$(restart_cluster MPOL_PLUGSTACK_ARGS="statedir=$STATEDIR record=${field,,}"); then
		t_fail "$name" "the cluster did not start with record=${field,,}: ${out:0:600}"
		return
	fi
	failed=$OUTDIR/many.$field.$nodes.failed
	rm -f "$failed"
	# a step may take up to a second on a loaded machine, one at a time
	t0=$SECONDS
	JOB_TIMEOUT=$((n + 600)) run_job sbatch --wait -N "$nodes" -n "$nodes" "${where[@]}" -t $((n / 60 + 11)) \
		-o "$OUTDIR/many.$field.$nodes.out" "$OUTDIR/many_steps.sh" "$n" "$nodes" "$par" "$failed"
	secs=$((SECONDS - t0))
	job=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' <<<"$OUT")
	said=$(cat "$OUTDIR/many.$field.$nodes.out" 2>/dev/null)
	printf '    job %s: %s %s-node steps, record=%s, %s at once: %d.%d min with sbatch (%s)\n' "$job" "$n" "$nodes" \
		"${field,,}" "$par" $((secs / 60)) $((secs % 60 / 6)) "$(grep '^steps ' <<<"$said" | tail -n 1)"
	if [ $RC -ne 0 ] || [ -s "$failed" ] || [ -z "$job" ]; then
		[ -n "$job" ] && [ $RC -eq 124 ] && scancel "$job"
		t_fail "$name" "job '$job' exit $RC after ${secs}s; $(wc -l <"$failed" 2>/dev/null) steps failed: $(head -n 5 "$failed" 2>/dev/null | paste -sd ' '); ${said:0:600}"
		return
	fi
	if [ "$nodes" = 2 ]; then
		nodes_want=$(printf "['%s', '%s']" $(printf '%s\n' "$HOST" node2 | sort))
	else
		nodes_want="['$HOST']"
	fi
	# Read back from slurmdbd until it holds every step (the record reaches it when the
	# job ends; a write the end overtook comes back at the node's look after it): every
	# step counted, none under other nodes, the newest in detail, the older folded.
	want="($n, [], True, True)"
	for ((waited = 0; waited <= 120; waited += 5)); do
		comment=$(acct_comment "$job" "$field")
		got=$(acct_py "$comment" "counted(r), [s for s in range($n) if str(step_nodes(r, str(s))) != \"$nodes_want\"][:5], \"$((n - 1))\" in r[\"steps\"], bool(r.get(\"folded\"))")
		[ "$got" = "$want" ] && break
		sleep 5
	done
	# mpolctl report: the folded parts as such, and with the steps in detail every step
	out=$("$MPOLCTL" report -j "$job" 2>&1)
	sums=$(awk -v job="$job" '
		$0 ~ "^job " job " step [0-9]+$" { detail++ }
		/^job .*: [0-9]+ (identical steps, folded|steps, folded per node|steps, folded into one total for the job)$/ {
			sub(/^.*: /, ""); folded += $1; parts++ }
		END { printf "%d %d %d", detail + folded, parts, detail }' <<<"$out")
	# the courier carried the records, as at a site (not the steps' own writes)
	handed=$(cat "$MPOL_CLUSTER_DIR"/log/slurmd-*.log | grep -F "job $job step " | grep -c "handed to the node's courier")
	if [ "$got" = "$want" ] && [ "${sums%% *}" = "$n" ] && [ "$(cut -d' ' -f2 <<<"$sums")" -ge 1 ] && [ "$handed" -ge "$n" ]; then
		t_pass "$name (${#comment} bytes, $(cut -d' ' -f3 <<<"$sums") in detail, $handed hand-offs to the courier)"
	else
		t_fail "$name" "job $job after ${waited}s: (counted, steps under other nodes, newest in detail, folded) $got; report: (steps, folded parts, in detail) $sums; $handed of $n steps handed to the courier: $(grep '^job ' <<<"$out" | head -n 6 | paste -sd '|' | head -c 600); slurmd: $(cat "$MPOL_CLUSTER_DIR"/log/slurmd-*.log | grep -F "job $job" | grep -i "not written\|needs more\|[1-9][0-9]* lost" | head -n 3)"
	fi
}

for field in "${fields[@]}"; do
	many_job "$field" 1
	many_job "$field" 2
done
out=$(restart_cluster) || t_fail "many-step cases" "the cluster did not start again as the tier started it: ${out:0:600}"
