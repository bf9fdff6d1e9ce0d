# t_release_10_mismatch.sh - the plugin built for another Slurm release
# (MPOL_OTHER_BUILD: the 22.05 build in the 24.11 cluster and the other way round).
# Slurm's loader accepts it (release.c), slurmd's log says what to rebuild, jobs that do
# not ask run as without the plugin (even under a site default, and with no record in
# accounting), jobs that ask fail with one line naming both releases, on the submitting
# side or, when their option came from a submit host of the right release, in their
# tasks. The tier's own plugin is back in place at the end.

rel_so=${MPOL_OTHER_BUILD:+$MPOL_OTHER_BUILD/src/plugins/mem_interleave/.libs/mem_interleave.so}
rel_cases=("slurmd's log says what to rebuild" "jobs without the option run (no placement, no record, nothing said)"
	"srun --mem-interleave fails with one line" "sbatch --mem-interleave fails with one line, nothing submitted"
	"a step whose option came from elsewhere fails in its tasks with the line, logged"
	"the cluster restarts with the tier's own plugin")
rel_skip_all() { local c; for c in "${rel_cases[@]}"; do t_skip "other release: $c" "$1"; done; }

if [ -z "$rel_so" ] || [ ! -f "$rel_so" ]; then
	rel_skip_all "no plugin built for another Slurm release (MPOL_OTHER_BUILD='${MPOL_OTHER_BUILD:-}'); scripts/test.sh slurm slurm24 builds both"
	return 0
fi
rel_built=$(plugin_release "$rel_so")
rel_running=$(slurm_release)
if [ -z "$rel_built" ] || [ "$rel_built" = "$rel_running" ]; then
	rel_skip_all "$rel_so is built for Slurm '$rel_built', not for another release than this cluster's $rel_running"
	return 0
fi
echo "(loading the plugin built for Slurm $rel_built into this Slurm $(slurm_release --full) cluster)"
rel_line="mem_interleave: built for Slurm $rel_built, this node runs Slurm $rel_running: the administrator must rebuild the plugin; --mem-interleave is unavailable"

# rel_restart BUILD ARGS: the cluster with BUILD's plugin and these plugstack arguments.
rel_restart() { restart_cluster MPOL_BUILD="$1" MPOL_PLUGSTACK_ARGS="$2"; }

rel_mark=$(log_mark "$SLURMD_LOG")
if ! rel_out=$(rel_restart "$MPOL_OTHER_BUILD" "statedir=$STATEDIR default=weighted"); then
	for c in "${rel_cases[@]}"; do t_fail "other release: $c" "the cluster did not start with $rel_so: $(tail -n 3 <<<"$rel_out")"; done
	rel_restart "$MPOL_BUILD" "statedir=$STATEDIR" >/dev/null
	return 0
fi

# 1. slurmd, at its start.
rel_log=$(log_since "$SLURMD_LOG" "$rel_mark")
rel_want="error: mem_interleave: built for Slurm $rel_built.[0-9]+, but this slurmd is Slurm $(slurm_release --full): rebuild mem_interleave.so against Slurm $rel_running's headers \(libslurm-dev, slurm-smd-dev or slurm-devel $rel_running\) and install it; until then jobs that ask for --mem-interleave fail and other jobs run without it"
t_expect_match "other release: slurmd's log says what to rebuild" "$rel_want" "$(grep mem_interleave <<<"$rel_log")"

# 2. Without the option: runs, no placement although the site's default is weighted,
# nothing said, and no record (the plugin never called slurm_update_job).
run_job srun -w "$HOST" bash -c 'echo JOB=$SLURM_JOB_ID; exec '"$SHOW"
rel_out=$OUT rel_rc=$RC
rel_job=$(sed -n 's/^JOB=\([0-9]*\)$/\1/p' <<<"$rel_out")
rel_task=$(grep '^task ' <<<"$rel_out")
run_job srun -N 2 -n 2 true
# Accounting has the job once its state is there; its AdminComment must be empty.
wait_until 15 sh -c "sacct -n -X -P -o State -j '${rel_job:-0}' | grep -q COMPLETED"
rel_acct=$(sacct -n -X -P -o State,AdminComment -j "${rel_job:-0}" 2>&1)
if [ $rel_rc -eq 0 ] && [ "$(grep -c . <<<"$rel_out")" -eq 2 ] && [ "$(field "$rel_task" mode)" = unset ] &&
	[ "$(policy_of "$rel_task")" = default ] && [ $RC -eq 0 ] && [ "$rel_acct" = "COMPLETED|" ]; then
	t_pass "other release: jobs without the option run (no placement, no record, nothing said)"
else
	t_fail "other release: jobs without the option run (no placement, no record, nothing said)" \
		"exit $rel_rc: $rel_out; 2-node step exit $RC: $OUT; accounting: '$rel_acct'"
fi

# 3-4. With the option, refused before anything is submitted: one line from the plugin.
for rel_cmd in srun sbatch; do
	rel_name=mpol-rel-$$-$rel_cmd
	case $rel_cmd in
	srun) run_job srun -J "$rel_name" -w "$HOST" --mem-interleave=weighted true ;;
	sbatch) run_job sbatch -J "$rel_name" -o /dev/null --mem-interleave=weighted --wrap true ;;
	esac
	rel_case="other release: $rel_cmd --mem-interleave fails with one line"
	[ $rel_cmd = sbatch ] && rel_case="$rel_case, nothing submitted"
	if [ $RC -ne 0 ] && [ "$(grep -c mem_interleave <<<"$OUT")" -eq 1 ] &&
		grep -qxF "$rel_cmd: error: $rel_line" <<<"$OUT" && no_job_named "$rel_name"; then
		t_pass "$rel_case"
	else
		t_fail "$rel_case" "exit $RC: $OUT"
	fi
done

# 5. The option reached slurmstepd from an srun of the right release (a submit host
# rebuilt before this node): srun here reads a copy of slurm.conf whose plugstack
# loads the tier's own build, slurmstepd the other one.
rel_conf=$MPOL_CLUSTER_DIR/etc/slurm-own-plugin.conf
sed "s|^PlugStackConfig=.*|PlugStackConfig=$MPOL_CLUSTER_DIR/etc/plugstack-own-plugin.conf|" "$SLURM_CONF" >"$rel_conf"
echo "required $MPOL_BUILD/src/plugins/mem_interleave/.libs/mem_interleave.so statedir=$STATEDIR" \
	>"$MPOL_CLUSTER_DIR/etc/plugstack-own-plugin.conf"
chmod 0644 "$rel_conf" "$MPOL_CLUSTER_DIR/etc/plugstack-own-plugin.conf"
rel_mark=$(log_mark "$SLURMD_LOG")
run_job env SLURM_CONF="$rel_conf" srun -w "$HOST" --mem-interleave=weighted bash -c 'echo JOB=$SLURM_JOB_ID; exec '"$SHOW"
rel_log=$(log_since "$SLURMD_LOG" "$rel_mark")
if [ $RC -ne 0 ] && grep -qxF "$rel_line" <<<"$OUT" && ! grep -q '^task ' <<<"$OUT" &&
	grep -qF "error: mem_interleave: job " <<<"$rel_log" && grep -qF "${rel_line#mem_interleave: }" <<<"$rel_log"; then
	t_pass "other release: a step whose option came from elsewhere fails in its tasks with the line, logged"
else
	t_fail "other release: a step whose option came from elsewhere fails in its tasks with the line, logged" \
		"exit $RC: $OUT; slurmd log: $(grep mem_interleave <<<"$rel_log" | tail -n 2)"
fi
rm -f "$rel_conf" "$MPOL_CLUSTER_DIR/etc/plugstack-own-plugin.conf"

# The tier's own plugin again, for whatever runs next.
if rel_out=$(rel_restart "$MPOL_BUILD" "statedir=$STATEDIR"); then
	t_pass "other release: the cluster restarts with the tier's own plugin"
else
	t_fail "other release: the cluster restarts with the tier's own plugin" "$(tail -n 3 <<<"$rel_out")"
fi
