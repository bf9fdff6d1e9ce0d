# t_plugin_50_plugstack.sh - bad plugstack arguments are reported in slurmd's log with
# the bad key or value named, and never take down a job that did not ask for the plugin.

# ARGUMENT|what the log must say
bad_args=(
	"bogus_key=1|unknown plugstack argument 'bogus_key' (known: default, sysfs"
	"sysfs=sometimes|plugstack argument sysfs='sometimes': use never, exclusive or always"
	"algorithm=magic|plugstack argument algorithm='magic': use optimal or kernel"
	"precision=7|plugstack argument precision: bad precision '7': give a number above 0 and at most 1"
	"precision=1e-300|bad precision '1e-300'"
	"max_weight_sum=0|plugstack argument max_weight_sum='0': give a whole number from 1 to 1024"
	"lock_timeout=1e3|plugstack argument lock_timeout='1e3': give a number from 0 to 300"
	"default=bogus|plugstack argument default='bogus': unknown word 'bogus'"
	"statedir=|plugstack argument 'statedir=' has no value"
	"statedir=relative/dir|the state directory 'relative/dir' is not an absolute path"
)
for entry in "${bad_args[@]}"; do
	arg=${entry%|*} part=${entry##*|}
	plugstack "$arg"
	mark=$(log_mark "$SLURMD_LOG")
	run_job srun -w "$HOST" "$SHOW"
	if [ $RC -eq 0 ] && [ "$(policy_of "$OUT")" = default ]; then
		t_pass "plugstack '$arg': a job without the option still runs"
	else
		t_fail "plugstack '$arg': a job without the option still runs" "exit $RC: $OUT"
	fi
	log=$(log_since "$SLURMD_LOG" "$mark")
	if grep -qF -- "$part" <<<"$(grep 'mem_interleave: ' <<<"$log")"; then
		t_pass "plugstack '$arg': slurmd's log says why"
	else
		t_fail "plugstack '$arg': slurmd's log says \"$part\"" \
			"new log lines: $(grep -i 'mem_interleave\|spank' <<<"$log" | tail -n 3)"
	fi
done

# A job that asks for the plugin under a broken configuration fails or runs without a
# policy, but says why; it never silently claims a policy it did not get.
plugstack bogus_key=1
run_job srun -w "$HOST" --mem-interleave=weighted "$SHOW"
mode=$(field "$OUT" mode)
policy=$(policy_of "$OUT")
if [ $RC -ne 0 ] && grep -q 'mem_interleave: .*bogus_key' <<<"$OUT"; then
	t_pass "bad plugstack: a job asking for the plugin fails naming the bad key"
elif [ $RC -eq 0 ] && [ "$mode" = weighted ] && [ "$policy" = "weighted interleave:0" ]; then
	t_pass "bad plugstack: a job asking for the plugin still gets its policy"
else
	t_fail "bad plugstack: a job asking for the plugin fails clearly or gets its policy" \
		"exit $RC: $OUT"
fi
plugstack
