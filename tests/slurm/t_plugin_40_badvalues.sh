# t_plugin_40_badvalues.sh - a bad value is refused on the submitting side: non-zero
# exit, one message naming the bad part, and nothing submitted (squeue and sacct).

# VALUE|the part the message must name (besides echoing the value)
bad_values=(
	'bogus|bogus'
	'weighted,weights=0:0|0'
	'weighted,weights=0:256|256'
	'weighted,weights=0|0'
	'weighted,nodes=abc|abc'
	'weighted,nodes=3-1|3-1'
	'weighted,scope=rack|rack'
	'weighted,precision=1.5|1.5'
	'weighted,precision=zero|zero'
	'weighted,color=blue|color'
	'verbose,quiet,weighted|quiet'
	'weighted,interleave|interleave'
	'|empty'
)
n=0
for entry in "${bad_values[@]}"; do
	value=${entry%|*} part=${entry##*|}
	n=$((n + 1))
	for cmd in srun sbatch salloc; do
		name=mpol-bad-$$-$n-$cmd
		case $cmd in
		srun) run_job srun -J "$name" --mem-interleave="$value" true ;;
		sbatch) run_job sbatch -J "$name" -o /dev/null --mem-interleave="$value" --wrap true ;;
		salloc) run_job salloc -J "$name" --mem-interleave="$value" true ;;
		esac
		case_name="$cmd --mem-interleave='$value' is refused"
		# The refusal must be the plugin's own message, not Slurm's "unrecognized option".
		msg=$(grep 'mem_interleave: ' <<<"$OUT")
		if [ $RC -eq 0 ]; then
			t_fail "$case_name" "exit 0: $OUT"
		elif [ -z "$msg" ]; then
			t_fail "$case_name" "exit $RC without a mem_interleave message: $OUT"
		elif [ "$part" != empty ] && ! grep -qF -- "$part" <<<"${msg/"$value"/}"; then
			t_fail "$case_name" "exit $RC but the message does not name '$part': $OUT"
		elif [ "$(grep -c . <<<"$OUT")" -gt 3 ]; then
			t_fail "$case_name" "more than a short message: $OUT"
		else
			t_pass "$case_name ($(head -n 1 <<<"$msg"))"
		fi
	done
done

# One combined check for "nothing submitted", so the tier stays fast (sacct lags).
sleep 1
leaked=$(squeue -h -a -o %j | grep "^mpol-bad-$$-"; sacct -n -X -a -S now-2hours -o JobName%60 | tr -d ' ' | grep "^mpol-bad-$$-")
if [ -z "$leaked" ]; then
	t_pass "no refused value submitted a job (squeue and sacct)"
else
	t_fail "no refused value submitted a job (squeue and sacct)" "$leaked"
fi

# The same value twice is fine; a conflicting second value is refused.
run_job srun -w "$HOST" --mem-interleave=weighted --mem-interleave=weighted "$SHOW"
check_task "the same value twice is accepted" "$OUT" weighted '^weighted interleave:0$'
run_job srun -J "mpol-conflict-$$" --mem-interleave=weighted --mem-interleave=interleave true
if [ $RC -ne 0 ] && grep -q 'mem_interleave: .*interleave' <<<"$OUT" && no_job_named "mpol-conflict-$$"; then
	t_pass "two conflicting values are refused"
else
	t_fail "two conflicting values are refused" "exit $RC: $OUT"
fi
