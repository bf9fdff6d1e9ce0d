# t_report.sh - `mpolctl report` on records as accounting hands them back (sourced by
# tests/host/run): a fake sacct serves the records of tests/fixtures/records (their
# README says how they were made). A record of version 1 (a step summary "*") renders
# as it always did; a folded one (issue 21) shows each folded part as such, every step
# counted, and `-j JOB.STEP` finds a folded step; a node lost mid-step is named.

TR_TMP=$(mktemp -d)
TR_REC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures/records" && pwd)
mkdir -p "$TR_TMP/bin"
# sacct -n -P -X -o JobID,FIELD -j JOB: the record in AdminComment, Extra empty
cat >"$TR_TMP/bin/sacct" <<'EOF'
#!/bin/sh
for job; do :; done
case "$6" in *Extra) echo "$job|"; exit 0 ;; esac
printf '%s|%s\n' "$job" "$(cat "$TR_RECORD")"
EOF
chmod 755 "$TR_TMP/bin/sacct"

# tr_report FIXTURE ARGS...: mpolctl report ARGS with sacct serving FIXTURE; TR_OUT, TR_RC.
tr_report() {
	local fixture=$1
	shift
	TR_OUT=$(TR_RECORD="$TR_REC/$fixture" PATH="$TR_TMP/bin:$PATH" "$MPOLCTL" report "$@" 2>&1)
	TR_RC=$?
}

tr_report v1-summary -j 41
if [ $TR_RC -eq 0 ] && grep -q '^job 41 step 0$' <<<"$TR_OUT" && grep -q '^job 41 step 1$' <<<"$TR_OUT" &&
	grep -Eq '^3 nodes +0  ' <<<"$TR_OUT" && grep -q 'nodes with a note: 0' <<<"$TR_OUT" &&
	! grep -q 'folded' <<<"$TR_OUT"; then
	t_pass "report: a record of version 1 (a step summarized over its nodes) renders as before"
else
	t_fail "report: a record of version 1 (a step summarized over its nodes) renders as before" "exit $TR_RC: $TR_OUT"
fi

tr_report requeued-run2 -j 43
if [ $TR_RC -eq 0 ] && grep -q '^job 43: the record of its run 2 (the job was requeued; .*sacct -D -j 43 ' <<<"$TR_OUT" &&
	grep -q '^job 43 step 0$' <<<"$TR_OUT"; then
	t_pass "report: a requeued job's record says which run it is of, and where the others are"
else
	t_fail "report: a requeued job's record says which run it is of, and where the others are" "exit $TR_RC: $TR_OUT"
fi
tr_report v1-summary -j 41
t_expect_match "report: a first run's record names no run" '^0$' "$(grep -c 'the record of its run' <<<"$TR_OUT")"

tr_report lost-node -j 44
if [ $TR_RC -eq 0 ] && grep -q '^job 44 step 0$' <<<"$TR_OUT" && grep -q '^job 44 step 1$' <<<"$TR_OUT" &&
	[ "$(grep -c 'no entry' <<<"$TR_OUT")" -eq 1 ] && grep -q '^job 44 node node2: no entry (lost) for step 0$' <<<"$TR_OUT"; then
	t_pass "report: a node the step's record was written without is named as lost"
else
	t_fail "report: a node the step's record was written without is named as lost" "exit $TR_RC: $TR_OUT"
fi
tr_report lost-node -j 44.1
t_expect_match "report: -j JOB.STEP of a step that lost no node names none" '^0$' "$(grep -c 'no entry' <<<"$TR_OUT")"

tr_report folded-groups -j 42
if [ $TR_RC -eq 0 ] && grep -q '^job 42 step 399$' <<<"$TR_OUT" &&
	grep -Eq '^job 42 steps [0-9:,-]+: [0-9]+ identical steps, folded$' <<<"$TR_OUT" &&
	grep -Eq '^job 42 steps [0-9:,-]+: [0-9]+ steps, folded per node$' <<<"$TR_OUT" &&
	grep -q 'requested weighted, applied mixed' <<<"$TR_OUT" && grep -q '^Folded steps: ' <<<"$TR_OUT"; then
	t_pass "report: a folded record shows its groups of identical steps and its per-node totals as such"
else
	t_fail "report: a folded record shows its groups of identical steps and its per-node totals as such" "exit $TR_RC: $TR_OUT"
fi
# every step is counted once over the parts: 400 steps, 0-399
counted=$(sed -n 's/^job 42 steps [^ ]*: \([0-9]*\) .*/\1/p; s/^job 42 step [0-9]*$/1/p' <<<"$TR_OUT" | paste -sd+ | bc)
t_expect_match "report: the folded record counts all 400 steps across its parts" '^400$' "$counted"

tr_report folded-groups -j 42.3
if [ $TR_RC -eq 0 ] && [ "$(grep -c '^job 42 ' <<<"$TR_OUT")" -eq 1 ] &&
	grep -Eq '^job 42 steps 0-48:3,.*folded per node$' <<<"$TR_OUT"; then
	t_pass "report -j 42.3: a step folded per node shows that part alone"
else
	t_fail "report -j 42.3: a step folded per node shows that part alone" "exit $TR_RC: $TR_OUT"
fi
tr_report folded-groups -j 42.400
t_expect_match "report -j 42.400: a step the record lacks is named, with the steps it has" \
	'no record of step 400; recorded steps: 0-399$' "$TR_OUT"
tr_report folded-groups -j 42.355 --json
got=$(jq -r '[(.mempolicy.steps | keys | length), ([.mempolicy.folded.same[]?.ids] | length), (.mempolicy.folded.by_node != null)] | @tsv' <<<"$TR_OUT" 2>&1)
t_expect_match "report -j 42.355 --json: only the group that lists the step" $'^0\t1\tfalse$' "$got"

tr_report folded-job -j 43
if [ $TR_RC -eq 0 ] && grep -q '^job 43 steps 0-9998: 9999 steps, folded into one total for the job$' <<<"$TR_OUT" &&
	grep -q '^job 43 step 9999$' <<<"$TR_OUT" && grep -q '^  nodes: node1 node2$' <<<"$TR_OUT"; then
	t_pass "report: 10,000 steps in Extra's 900 bytes: one total for the job and the newest step"
else
	t_fail "report: 10,000 steps in Extra's 900 bytes: one total for the job and the newest step" "exit $TR_RC: $TR_OUT"
fi
tr_report folded-job -j 43 --json
got=$(jq -r '[(.mempolicy.folded.job.last_bytes | length), (.mempolicy.steps["9999"]["*"].last_bytes | length)] | @tsv' <<<"$TR_OUT" 2>&1)
t_expect_match "report --json: folded entries too have last_bytes" $'^[1-9][0-9]*\t[1-9][0-9]*$' "$got"
rm -rf "$TR_TMP"
