# t_plugin_75_adversity.sh - broken surroundings: a malformed lease journal, a statedir
# that cannot exist, a sysfs root that vanished. Each ends in a clear message, the job
# either runs on what the node has or fails saying why, and nothing is lost or changed.

before=$(wi_node0)
during="cat $WI_DIR/node0 | sed 's/^/during=/'; $SHOW"
w=5
[ "$before" != $w ] || w=6

# A journal this version cannot read: never overwritten, never acted on.
journal=$STATEDIR/weights.journal
mkdir -p "$STATEDIR"
printf 'not a journal\n' >"$journal"
plugstack sysfs=always
mark=$(log_mark "$SLURMD_LOG")
run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:$w sh -c "$during"
if [ $RC -eq 0 ] && grep -q "^during=$before\$" <<<"$OUT" &&
	[ "$(field "$(grep '^task ' <<<"$OUT")" weights)" = "$before" ]; then
	t_pass "malformed journal: the step runs on the node's weights ($before), sysfs untouched"
else
	t_fail "malformed journal: the step runs on the node's weights ($before), sysfs untouched" "exit $RC: $OUT"
fi
if grep -q 'mem_interleave: .*malformed' <<<"$(log_since "$SLURMD_LOG" "$mark")"; then
	t_pass "malformed journal: slurmd's log says the journal is malformed"
else
	t_fail "malformed journal: slurmd's log says the journal is malformed" \
		"$(log_since "$SLURMD_LOG" "$mark" | grep mem_interleave | tail -n 3)"
fi
if [ -x "$MPOLCTL" ]; then
	out=$("$MPOLCTL" recover --statedir "$STATEDIR" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'malformed' <<<"$out" && [ "$(wi_node0)" = "$before" ]; then
		t_pass "malformed journal: mpolctl recover refuses it clearly and changes nothing"
	else
		t_fail "malformed journal: mpolctl recover refuses it clearly and changes nothing" "exit $rc: $out"
	fi
fi
if [ "$(cat "$journal" 2>/dev/null)" = "not a journal" ]; then
	t_pass "malformed journal: the file is left as it was for the admin"
else
	t_fail "malformed journal: the file is left as it was for the admin" "$(ls -l "$STATEDIR" 2>&1)"
fi
rm -f "$journal"

# A statedir that cannot be created: no lease, so no weights written; the job runs.
plugstack sysfs=always statedir=/proc/mpol-no-such-dir
run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=verbose,weighted,weights=0:$w sh -c "$during"
if [ $RC -eq 0 ] && grep -q "^during=$before\$" <<<"$OUT" && grep -q 'mem_interleave: .*/proc/mpol-no-such-dir' <<<"$OUT"; then
	t_pass "impossible statedir: the step runs on the node's weights and verbose says why"
else
	t_fail "impossible statedir: the step runs on the node's weights and verbose says why" "exit $RC: $OUT"
fi

# A sysfs root that is not there: asking jobs fail naming it, others run.
plugstack fsroot=/nonexistent/mpol-root
run_job srun -N 1 -w "$HOST" "$SHOW"
if [ $RC -eq 0 ] && [ "$(policy_of "$OUT")" = default ]; then
	t_pass "missing fsroot: a job without the option runs"
else
	t_fail "missing fsroot: a job without the option runs" "exit $RC: $OUT"
fi
run_job srun -N 1 -w "$HOST" --mem-interleave=weighted "$SHOW"
if [ $RC -ne 0 ] && grep -q 'mem_interleave: .*/nonexistent/mpol-root' <<<"$OUT" && ! grep -q '^task ' <<<"$OUT"; then
	t_pass "missing fsroot: a job asking for the plugin fails naming the path"
else
	t_fail "missing fsroot: a job asking for the plugin fails naming the path" "exit $RC: $OUT"
fi

plugstack
[ "$(wi_node0)" = "$before" ] || { t_fail "adversity cases left node0 at $(wi_node0)" "writing $before back"; echo "$before" >"$WI_DIR/node0"; }
