# t_answers.sh - answers that were wrong or silent (sourced by tests/host/run): a
# plugstack line the plugin would refuse, or a --plugstack that cannot be read, fails
# show and plan as check reports it; apply --dry-run refuses what the real run refuses;
# job ids as Slurm writes them; the number grammar for every number and list; an
# option given twice; a refused --process-mbind-nr.

TA_TMP=$(mktemp -d)
TA_FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
TA_ROOT=$TA_FIX/linux-7.3-boot

# ta_run ARGS...: mpolctl ARGS; TA_OUT (stdout), TA_ERR (stderr), TA_RC.
ta_run() {
	TA_OUT=$(timeout 60 "$MPOLCTL" "$@" 2>"$TA_TMP/err")
	TA_RC=$?
	TA_ERR=$(cat "$TA_TMP/err")
}

# ta_expect NAME RC REGEX ARGS...: exit RC, REGEX on stderr.
ta_expect() {
	local name=$1 rc=$2 re=$3
	shift 3
	ta_run "$@"
	if [ "$TA_RC" -eq "$rc" ]; then t_expect_match "$name" "$re" "$TA_ERR"
	else t_fail "$name" "exit $TA_RC (want $rc): $TA_OUT $TA_ERR"; fi
}

if [ ! -x "$MPOLCTL" ]; then
	t_fail "answers: mpolctl" "$MPOLCTL is missing (build first)"
else
	# --- the plugstack line: refused by the plugin -> refused by show and plan
	printf 'required /usr/lib/slurm/mem_interleave.so precision=nan\n' >"$TA_TMP/nan.conf"
	: >"$TA_TMP/empty.conf"
	for ta_verb in show plan "apply --system --dry-run"; do
		ta_expect "answers: $ta_verb --plugstack /nonexistent fails (exit 1)" 1 \
			"--plugstack: cannot read /nonexistent: No such file or directory" $ta_verb --fsroot "$TA_ROOT" \
			--plugstack /nonexistent
		ta_expect "answers: $ta_verb with precision=nan in the line fails (exit 1) naming it" 1 \
			"nan.conf:1: plugstack argument precision: bad precision 'nan'.*the plugin refuses this line" \
			$ta_verb --fsroot "$TA_ROOT" --plugstack "$TA_TMP/nan.conf"
		ta_run $ta_verb --fsroot "$TA_ROOT" --plugstack "$TA_TMP/empty.conf"
		[ "$TA_RC" -eq 0 ] && t_pass "answers: $ta_verb with a plugstack.conf without the line: the defaults" ||
			t_fail "answers: $ta_verb with a plugstack.conf without the line: the defaults" "exit $TA_RC: $TA_ERR"
	done
	ta_run check --fsroot "$TA_ROOT" --plugstack "$TA_TMP/nan.conf" --bandwidth none
	t_expect_match "answers: check reports the same line as an error (exit 4)" \
		"^4 error +plugstack-invalid .*precision 'nan'" "$TA_RC $TA_OUT"

	# --- apply --dry-run refuses the state directory the real run refuses
	mkdir -m 0777 "$TA_TMP/open"
	chmod 0777 "$TA_TMP/open"
	ta_expect "answers: apply --system --dry-run refuses a world-writable --statedir (exit 1)" 1 \
		"may be written by its group or others \(mode 0777\).*the real run refuses it too" \
		apply --system --dry-run --fsroot "$TA_ROOT" --statedir "$TA_TMP/open"
	ta_expect "answers: apply --system --auto --dry-run refuses it too" 1 "mode 0777" \
		apply --system --auto --dry-run --fsroot "$TA_ROOT" --statedir "$TA_TMP/open"
	mkdir -m 0700 "$TA_TMP/state"
	ta_run apply --system --dry-run --fsroot "$TA_ROOT" --statedir "$TA_TMP/state"
	if [ "$TA_RC" -eq 0 ] && grep -q "would write the system weights" <<<"$TA_OUT"; then
		t_pass "answers: apply --system --dry-run with a sound --statedir says what it would write"
	else
		t_fail "answers: apply --system --dry-run with a sound --statedir says what it would write" "exit $TA_RC: $TA_ERR"
	fi

	# --- job ids as Slurm writes them: report -j 01 asks for job 1 and finds it
	mkdir -p "$TA_TMP/bin"
	printf '#!/bin/sh\n# sacct -n -P -X -o JobID,FIELD -j JOB: the job as accounting writes it\nfor a; do last=$a; done\n[ "$last" = 1 ] && echo "1|{\\"mempolicy\\":{\\"v\\":1,\\"unit_kib\\":4,\\"steps\\":{}}}"\nexit 0\n' \
		>"$TA_TMP/bin/sacct"
	chmod 755 "$TA_TMP/bin/sacct"
	for ta_job in 1 01 001; do
		PATH="$TA_TMP/bin:$PATH" ta_run report -j $ta_job --json
		if [ "$TA_RC" -eq 0 ] && [ "$(jq -r .job <<<"$TA_OUT" 2>&1)" = 1 ]; then
			t_pass "answers: report -j $ta_job is job 1"
		else
			t_fail "answers: report -j $ta_job is job 1" "exit $TA_RC: $TA_OUT $TA_ERR"
		fi
	done

	# --- the number grammar: no sign, blank or newline, for every number and list
	# (calibrate --no-write and watch --once --dry-run: a regression that takes the value
	# measures or watches, but changes nothing)
	ta_expect "answers: calibrate --repeats ' 1' refused" 2 "bad --repeats ' 1'" calibrate --no-write --repeats " 1"
	ta_expect "answers: calibrate --repeats +1 refused" 2 "bad --repeats '\+1'" calibrate --no-write --repeats "+1"
	ta_expect "answers: plan --cpus ' 0' refused" 2 "bad --cpus ' 0'" plan --fsroot "$TA_ROOT" --cpus " 0"
	ta_expect "answers: plan --cpus \$'1\\\\n' refused" 2 "bad --cpus '1\\\\x0a'" plan --fsroot "$TA_ROOT" --cpus $'1\n'
	ta_expect "answers: plan --nodes ' 0' refused" 2 "bad --nodes ' 0'" plan --fsroot "$TA_ROOT" --nodes " 0"
	ta_expect "answers: plan --nodes +0 refused" 2 "bad --nodes '\+0'" plan --fsroot "$TA_ROOT" --nodes "+0"
	# --- each id once, as --pid
	ta_expect "answers: plan --nodes 0,0 refused" 2 "bad --nodes '0,0': 0 is named twice" plan --fsroot "$TA_ROOT" --nodes 0,0
	ta_expect "answers: plan --nodes 0-2,1 refused" 2 "bad --nodes '0-2,1': 1 is named twice" \
		plan --fsroot "$TA_ROOT" --nodes 0-2,1
	ta_expect "answers: plan --cpus 1,0-1 refused" 2 "bad --cpus '1,0-1': 1 is named twice" plan --fsroot "$TA_ROOT" --cpus 1,0-1
	ta_run plan --fsroot "$TA_ROOT" --nodes 0,2 --cpus 0-1 --json
	t_expect_match "answers: plan --nodes 0,2 --cpus 0-1 still works" "^0 0,2$" \
		"$(jq -r '.plans[] | "\(.initiator) \(.nodes | join(","))"' <<<"$TA_OUT" 2>&1)"
	# --- an option with a value, given twice: refused by every verb, as -j is
	ta_expect "answers: plan --scope twice refused" 2 "--scope given twice: give it once" \
		plan --fsroot "$TA_ROOT" --scope all --scope socket
	ta_expect "answers: show --fsroot twice refused" 2 "--fsroot given twice: give it once" \
		show --fsroot "$TA_ROOT" --fsroot "$TA_FIX/two-socket-cxl"
	ta_expect "answers: check --statedir twice refused" 2 "--statedir given twice: give it once" \
		check --statedir "$TA_TMP/state" --statedir "$TA_TMP/state"
	ta_expect "answers: calibrate --repeats twice refused" 2 "--repeats given twice: give it once" \
		calibrate --no-write --repeats 1 --repeats 2
	ta_expect "answers: rebalance --rate twice refused" 2 "--rate given twice: give it once" \
		rebalance --dry-run --pid 1 --rate 5 --rate 6
	ta_expect "answers: rebalance --job twice refused" 2 "--job given twice: give it once" rebalance --job 5 --job 6
	ta_expect "answers: watch --settle twice refused" 2 "--settle given twice: give it once" watch --once --dry-run --settle 1 --settle 2

	# --- a --process-mbind-nr the probe refuses is a failure, not a note
	ta_expect "answers: rebalance --process-mbind-nr 457 fails (exit 1)" 1 \
		"--process-mbind-nr 457 is refused \(.*statmount.*\): leave it out" \
		rebalance --dry-run --pid $$ --process-mbind-nr 457
fi
rm -rf "$TA_TMP"
