# t_dbd_client.sh - mem_interleave_dbd refuses what it cannot use before it talks to
# Slurm (sourced by tests/host/run): bad arguments are a usage error (exit 2, the
# reason on stderr), and input that is no JSON object of steps, or steps a merge cannot
# take, are reported on its one line as "failed 22 ...", exit 0, as the plugin parses
# it (record_ended.c). Its
# writes into slurmdbd run in the slurm tiers (t_acct_70_ended.sh).

DBD_CLIENT=$MPOL_BUILD/src/plugins/mem_interleave/mem_interleave_dbd

# dc_usage NAME REGEX ARGS...: the client exits 2 and its stderr matches REGEX.
dc_usage() {
	local name=$1 re=$2 err rc
	shift 2
	err=$("$DBD_CLIENT" "$@" </dev/null 2>&1 >/dev/null)
	rc=$?
	t_expect_match "dbd client: $name" "^2 .*$re" "$rc $err"
}

# dc_entries NAME TEXT [ARGS...]: TEXT on stdin is refused on the report line, exit 0
# (ARGS: the mode, a store of steps unless given).
dc_entries() {
	local out rc name=$1 text=$2
	shift 2
	out=$(printf '%s' "$text" | "$DBD_CLIENT" --job 7 "$@" 2>&1)
	rc=$?
	t_expect_match "dbd client: $name" "^0 failed 22 standard input holds no JSON object \(of steps, or a record\)$" "$rc $out"
}

# dc_steps NAME TEXT SENTENCE: steps on stdin that a merge cannot take are refused on
# the report line with SENTENCE before slurmdbd is asked anything (there is none here).
dc_steps() {
	local out rc
	out=$(printf '%s' "$2" | timeout 20 "$DBD_CLIENT" --job 7 2>&1)
	rc=$?
	if [ "$rc $out" = "0 failed 22 $3" ]; then t_pass "dbd client: $1"; else t_fail "dbd client: $1" "got: $rc $out"; fi
}

if [ ! -x "$DBD_CLIENT" ]; then
	t_skip "dbd client cases" "$DBD_CLIENT is not built (configure --disable-dbd-client, or --without-slurm)"
else
	dc_usage "job 0 is refused" "--job 0: " --job 0
	dc_usage "a job that is no number is refused" "--job 12x: " --job 12x
	dc_usage "a field other than AdminComment, SystemComment or Extra is refused" \
		"--field Comment: AdminComment, SystemComment" --job 7 --field Comment
	dc_usage "a run that is no number is refused" "--run -1: " --job 7 --run -1
	dc_usage "a start time 0 is refused" "--started 0: " --job 7 --run 1 --started 0
	dc_usage "no job is refused" "--job is needed, and nothing else" --run 1
	dc_usage "--step (the steps are on standard input) is refused" "unrecognized option '--step'" --job 7 --step 0
	dc_usage "an extra argument is refused" "--job is needed, and nothing else" --job 7 extra
	dc_usage "--recheck without a job is refused" "--job is needed, and nothing else" --recheck
	dc_usage "--recheck: a run that is no number is refused" "--run x: " --job 7 --run x --recheck
	dc_entries "--recheck: a copy that is no JSON object" '[1]' --recheck
	dc_entries "--recheck of a run: a copy that is no JSON object" '[1]' --run 1 --started 1700000000 --recheck
	dc_entries "--recheck of a field: a copy that is no JSON object" '[1]' --field AdminComment --recheck
	dc_usage "--recheck of a field this Slurm lacks is refused" "--field Nope: " --job 7 --field Nope --recheck
	dc_entries "no input" ""
	dc_entries "malformed JSON" '{"n1":'
	dc_entries "a JSON array" '[{"n1":{}}]'
	dc_entries "an empty object" '{}'
	dc_steps "a step whose value is no object of nodes" '{"0":{"n1":{}},"1":5}' \
		"a placement record needs a step ('1') and node entries"
	dc_steps "a node entry that is no object" '{"0":{"n1":[1]}}' "node n1's placement record entry is not an object"
	dc_steps "a node without a name" '{"0":{"":{}}}' "a placement record needs a node name, not ''"
	help=$("$DBD_CLIENT" --help 2>&1)
	t_expect_match "dbd client: --help says what it does and exits 0" "^0 usage: mem_interleave_dbd --job JOB" \
		"$? $help"
	t_expect_match "dbd client: --help names --recheck's field and its merge back" \
		"--field AdminComment\|Extra\] --recheck.*merges back the entries of a copy" "$(tr '\n' ' ' <<<"$help")"
fi
