# t_plugin_00_option.sh - the option exists where users look for it: srun/sbatch/salloc
# --help list it, --mem-interleave=help prints the syntax and exits 0 without
# submitting anything, and slurmd loaded the plugin without complaint.

for cmd in srun sbatch salloc; do
	run_job "$cmd" --help
	t_expect_match "$cmd --help lists --mem-interleave" '--mem-interleave' "$OUT"
done

name=mpol-help-$$
run_job srun -J "$name" --mem-interleave=help true
if [ $RC -ne 0 ]; then
	t_fail "srun --mem-interleave=help exits 0" "exit $RC: $OUT"
elif ! grep -q 'weighted' <<<"$OUT" || ! grep -q 'interleave' <<<"$OUT"; then
	t_fail "srun --mem-interleave=help prints the syntax" "output: $OUT"
else
	t_pass "srun --mem-interleave=help prints the syntax and exits 0"
fi
if no_job_named "$name"; then
	t_pass "--mem-interleave=help submits nothing"
else
	t_fail "--mem-interleave=help submits nothing" "a job named $name exists"
fi

run_job sbatch -J "$name" -o /dev/null --mem-interleave=help --wrap true
t_check "sbatch --mem-interleave=help exits 0" test "$RC" -eq 0
run_job salloc -J "$name" --mem-interleave=help true
t_check "salloc --mem-interleave=help exits 0" test "$RC" -eq 0
if no_job_named "$name"; then
	t_pass "sbatch and salloc --mem-interleave=help submit nothing"
else
	t_fail "sbatch and salloc --mem-interleave=help submit nothing" "a job named $name exists"
fi

# srun knows the option (the plugin is loaded) and slurmd logged no load failure
# since this run started it.
run_job srun -w "$HOST" --mem-interleave=none true
load_errors=$(log_since "$SLURMD_LOG" "${SLURMD_LOG_START:-0}" | grep -E 'Failed to load|Dlopen|mem_interleave: cannot register')
if [ $RC -eq 0 ] && [ -z "$load_errors" ]; then
	t_pass "slurmd and srun load the plugin without errors"
else
	t_fail "slurmd and srun load the plugin without errors" "srun exit $RC: $OUT; slurmd log: $load_errors"
fi
