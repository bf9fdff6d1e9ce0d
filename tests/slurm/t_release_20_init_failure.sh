# t_release_20_init_failure.sh - where Slurm lets a SPANK plugin say what its
# slurm_spank_init failing means (slurm_spank_init_failure_mode: 25.11 and 26.05 declare
# it, 22.05 and 24.11 do not), mem_interleave's init failing in slurmstepd fails that
# job and leaves the node up; without it slurmd drains the node of a batch job. The
# failure provoked is the one the plugin's init can have: Slurm refusing its option
# (refuse-options.c, preloaded into the cluster's daemons for these cases only).

if_cases=("a batch job fails (FAILED, not requeued)" "the node stays up (not drained)"
	"slurmd's log names the refused option" "the cluster restarts without the interposer")
if_fail_all() { local c; for c in "${if_cases[@]}"; do t_fail "init failure: $c" "$1"; done; }

if_prefix=$(dirname "$(dirname "$(command -v slurmd)")")
if ! grep -q 'slurm_spank_init_failure_mode' "$if_prefix/include/slurm/spank.h" 2>/dev/null; then
	for if_c in "${if_cases[@]}"; do
		t_skip "init failure: $if_c" "Slurm $(slurm_release --full) has no slurm_spank_init_failure_mode ($if_prefix/include/slurm/spank.h): a failing init drains the node there"
	done
	return 0
fi
if_so=$MPOL_CLUSTER_DIR/refuse-options.so
if ! if_out=$(cc -shared -fPIC -Wall -Wextra -Werror -I"$if_prefix/include" -o "$if_so" "$here/refuse-options.c" -ldl 2>&1); then
	if_fail_all "cannot build the interposer: $if_out"
	return 0
fi

# if_restart [PRELOAD]: the cluster again, its daemons with PRELOAD.
if_restart() { restart_cluster ${1:+LD_PRELOAD="$1"}; }

if_mark=$(log_mark "$SLURMD_LOG")
if ! if_out=$(if_restart "$if_so"); then
	if_fail_all "the cluster did not start with the interposer: $(tail -n 3 <<<"$if_out")"
	if_restart >/dev/null
	return 0
fi
run_job sbatch -w "$HOST" -o /dev/null --parsable --wrap true
if_job=${OUT%%;*}
# FAILED once slurmctld has it; a requeued job (what a node failure brings) stays queued.
wait_until 30 sh -c "[ -z \"\$(squeue -h -j '$if_job' -o %i)\" ]"
if_state=$(scontrol -o show job "$if_job" 2>&1 | grep -o 'JobState=[A-Z_]*')
if_node=$(sinfo -h -N -n "$HOST" -o '%T|%E')
t_expect_match "init failure: ${if_cases[0]}" "^job [0-9]+: JobState=FAILED$" "job $if_job: $if_state"
if [[ $if_node == idle\|* ]]; then
	t_pass "init failure: ${if_cases[1]}"
else
	t_fail "init failure: ${if_cases[1]}" "node $HOST: $if_node"
fi
t_expect_match "init failure: ${if_cases[2]}" "mem_interleave: cannot register --mem-interleave" \
	"$(log_since "$SLURMD_LOG" "$if_mark" | grep mem_interleave)"

# Whatever happened, the next file gets the node back, without the interposer.
scancel "$if_job" 2>/dev/null
[[ $if_node == idle\|* ]] || scontrol update NodeName="$HOST" State=RESUME 2>/dev/null
if if_out=$(if_restart); then
	t_pass "init failure: ${if_cases[3]}"
else
	t_fail "init failure: ${if_cases[3]}" "$(tail -n 3 <<<"$if_out")"
fi
rm -f "$if_so"
