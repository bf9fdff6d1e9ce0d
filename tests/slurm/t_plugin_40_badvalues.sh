# t_plugin_40_badvalues.sh - a bad value is refused on the submitting side: non-zero
# exit, one message naming the bad part, and nothing submitted (squeue and sacct).

# VALUE|the reason the message must give (besides echoing the value)
bad_values=(
	"bogus|unknown word 'bogus' (modes: weighted"
	"weighted,weights=0:0|bad weight '0' for node 0: give a whole number from 1 to 255"
	"weighted,weights=0:256|bad weight '256' for node 0: give a whole number from 1 to 255"
	"weighted,weights=0|'0' has no weight; give node:weight pairs"
	"weighted,weights=0: 1|bad weight ' 1' for node 0"
	"weighted,nodes=abc|id 'abc': give a whole number from 0 to 1023"
	"weighted,nodes=3-1|the range '3-1' goes backwards"
	"weighted,scope=rack|bad scope 'rack': use socket or all"
	"weighted,precision=1.5|bad precision '1.5': give a number above 0 and at most 1"
	"weighted,precision=zero|bad precision 'zero': give a number above 0 and at most 1"
	"weighted,precision=1e-300|bad precision '1e-300': give a number above 0 and at most 1"
	"weighted,precision=0x1p-1|bad precision '0x1p-1'"
	"weighted,precision= 0.5|bad precision ' 0.5'"
	"weighted,precision=1.0000000000000001|with at most 9 digits after the point"
	"weighted,color=blue|unknown key 'color'"
	"verbose,quiet,weighted|both quiet and verbose given"
	"weighted,interleave|two modes given ('weighted' and 'interleave')"
	"|the value is empty"
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
		elif ! grep -qF -- "$part" <<<"${msg/"$value"/}"; then
			t_fail "$case_name" "exit $RC but the message does not say '$part': $OUT"
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

# A value longer than Slurm's message keeps its reason: it is quoted as an excerpt.
long="weighted,precision=$(printf '9%.0s' $(seq 900))"
run_job srun -J "mpol-long-$$" --mem-interleave="$long" true
if [ $RC -ne 0 ] && grep -q "mem_interleave: --mem-interleave='weighted,precision=9\{29\}\.\.\.9\{16\}' (919 bytes): bad precision '9\{48\}\.\.\.9\{16\}' (900 bytes): give a number above 0 and at most 1" <<<"$OUT"; then
	t_pass "a 919-character bad value: the message quotes an excerpt and keeps the reason"
else
	t_fail "a 919-character bad value: the message quotes an excerpt and keeps the reason" "exit $RC: $(head -c 1500 <<<"$OUT")"
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
