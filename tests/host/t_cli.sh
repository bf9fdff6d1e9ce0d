# t_cli.sh - what mpolctl answers when it cannot do what it was asked (sourced by
# tests/host/run): --json failures as a JSON object on stdout for every verb, the state
# directory's rules (relative, someone else's, a link, a held lock), the one number
# grammar, job ids, and --pid lists. Nothing here changes the host's weights.

TC_TMP=$(mktemp -d)
TC_FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)
TC_PLUGIN_WORDING="the state directory 'rel/dir' is not an absolute path: give one that starts with /"

# tc_run ARGS...: mpolctl ARGS; TC_OUT (stdout), TC_ERR (stderr), TC_RC.
tc_run() {
	TC_OUT=$("$MPOLCTL" "$@" 2>"$TC_TMP/err")
	TC_RC=$?
	TC_ERR=$(cat "$TC_TMP/err")
}

# tc_json_error NAME RC REGEX ARGS...: mpolctl ARGS exits RC and prints exactly one JSON
# object on stdout whose .error matches REGEX (and says the same on stderr).
tc_json_error() {
	local name=$1 want_rc=$2 re=$3 got
	shift 3
	tc_run "$@"
	got=$(jq -r 'if type == "object" and (keys == ["error"]) then .error else "not an error object: \(.)" end' \
		<<<"$TC_OUT" 2>&1)
	if [ "$TC_RC" -ne "$want_rc" ]; then
		t_fail "$name" "exit $TC_RC (want $want_rc): $TC_OUT $TC_ERR"
	elif [ "$(jq -s length <<<"$TC_OUT" 2>/dev/null)" != 1 ]; then
		t_fail "$name" "stdout is not one JSON object: '$TC_OUT'"
	elif ! grep -Eq -- "$re" <<<"$got"; then
		t_fail "$name" "error '$got' does not match /$re/"
	elif ! grep -qF -- "$got" <<<"$TC_ERR"; then
		t_fail "$name" "stderr does not say it: $TC_ERR"
	else
		t_pass "$name"
	fi
}

# tc_usage NAME REGEX ARGS...: exit 2 with REGEX on stderr.
tc_usage() {
	local name=$1 re=$2
	shift 2
	tc_run "$@"
	if [ "$TC_RC" -eq 2 ]; then t_expect_match "$name" "$re" "$TC_ERR"; else t_fail "$name" "exit $TC_RC: $TC_OUT $TC_ERR"; fi
}

# Fake Slurm commands: scontrol and sacct fail as they do without a cluster.
mkdir -p "$TC_TMP/bin"
printf '#!/bin/sh\necho "slurm_load_slurmd_status: Connection refused" >&2\nexit 1\n' >"$TC_TMP/bin/scontrol"
printf '#!/bin/sh\necho "sacct: error: Problem talking to the database: Connection refused" >&2\nexit 1\n' >"$TC_TMP/bin/sacct"
chmod 755 "$TC_TMP/bin/scontrol" "$TC_TMP/bin/sacct"
mkdir "$TC_TMP/empty"

if [ ! -x "$MPOLCTL" ]; then
	t_fail "cli: mpolctl" "$MPOLCTL is missing (build first)"
elif ! command -v jq >/dev/null; then
	t_skip "cli: --json failures" "jq is not installed (needed to read --json output)"
else
	# --- every verb, a usage error: the object even when --json comes after the bad word
	for tc_verb in show plan apply recover report rebalance watch; do
		tc_json_error "$tc_verb --bogus --json: {\"error\": ...}, exit 2" 2 "^unknown option '--bogus'$" \
			$tc_verb --bogus --json
	done
	tc_json_error "mpolctl bogus --json: an unknown verb answers in JSON too" 2 "^unknown verb 'bogus'" bogus --json
	tc_json_error "watch --json: not available, said in JSON" 2 "^--json is not available" watch --json
	# --- every verb, a failure after the arguments were good: exit 1
	tc_json_error "show --json on a root without sysfs: exit 1" 1 "cannot read the online node list $TC_TMP/empty/" \
		show --json --fsroot "$TC_TMP/empty"
	tc_json_error "plan --json on a root without sysfs: exit 1" 1 "cannot read the online node list" \
		plan --json --fsroot "$TC_TMP/empty"
	tc_json_error "apply --system --json on a root without sysfs: exit 1" 1 "cannot read|no weighted interleave" \
		apply --system --dry-run --json --fsroot "$TC_TMP/empty"
	: >"$TC_TMP/statefile"
	tc_json_error "recover --json with a file as the state directory: exit 1" 1 \
		"the state directory $TC_TMP/statefile is not a directory: it is refused" \
		recover --json --statedir "$TC_TMP/statefile"
	PATH="$TC_TMP/bin:$PATH" tc_json_error "report --json when sacct fails: exit 1" 1 \
		"^job 17: sacct failed \(exit 1\): sacct: error: Problem talking to the database" report -j 17 --json
	PATH="$TC_TMP/bin:$PATH" tc_json_error "rebalance --json when scontrol fails: exit 1" 1 \
		"cannot list the processes of job 17: scontrol failed" rebalance --job 17 --json
	# rebalance prints its report even when a task failed: the failure is in it (exit 1),
	# and no second object follows
	tc_run rebalance --json --pid 999999
	if [ "$TC_RC" -eq 1 ] && [ "$(jq -s length <<<"$TC_OUT" 2>&1)" = 1 ] &&
		[ "$(jq -r '.tasks[0].reason' <<<"$TC_OUT" 2>&1)" = "no process 999999 runs on this node" ]; then
		t_pass "rebalance --json --pid 999999: exit 1, its one report says no such process"
	else
		t_fail "rebalance --json --pid 999999: exit 1, its one report says no such process" "exit $TC_RC: $TC_OUT"
	fi
	# a record whose plans include one for a task spanning two CPU nodes names them
	mkdir -p "$TC_TMP/sacct-ok"
	cat >"$TC_TMP/sacct-ok/sacct" <<'TC_EOF'
#!/bin/sh
echo '21|{"mempolicy":{"v":1,"unit_kib":4,"steps":{"0":{"n1":{"req":"weighted","mode":"weighted","path":"weighted-interleave","sysfs":false,"plans":[{"init":0,"nodes":[0,2],"w":[5,1],"share":[0.82,0.18],"bw":"sysfs-hmat"},{"init":0,"cpus":{"0":8,"1":8},"nodes":[0,1,2,3],"w":[5,5,1,1],"share":[0.41,0.41,0.09,0.09],"bw":"sysfs-hmat"}],"tasks":1,"samples":0}}}}}'
TC_EOF
	chmod 755 "$TC_TMP/sacct-ok/sacct"
	PATH="$TC_TMP/sacct-ok:$PATH" tc_run report -j 21
	t_expect_match "report: a spanning plan names its CPU nodes and their CPUs" \
		'weights 0:5,2:1 \(CPU node 0\); 0:5,1:5,2:1,3:1 \(CPU nodes 0: 8 CPUs, 1: 8 CPUs\)' "$TC_OUT"
	tc_run show --json
	if [ "$TC_RC" -eq 0 ] && [ "$(jq -r 'has("error")' <<<"$TC_OUT" 2>&1)" = false ]; then
		t_pass "show --json that works prints no error object"
	else
		t_fail "show --json that works prints no error object" "exit $TC_RC: $TC_OUT"
	fi
fi

# --- a relative --statedir: refused by recover and rebalance with the plugin's sentence
tc_usage "recover --statedir relative: refused as the plugin refuses statedir=" "--statedir: $TC_PLUGIN_WORDING" \
	recover --statedir rel/dir
tc_usage "rebalance --statedir relative: refused as the plugin refuses statedir=" "--statedir: $TC_PLUGIN_WORDING" \
	rebalance --dry-run --pid 1 --statedir rel/dir
tc_usage "watch --statedir relative: refused the same way" "--statedir: $TC_PLUGIN_WORDING" watch --statedir rel/dir
tc_usage "apply --statedir relative: refused the same way" "--statedir: $TC_PLUGIN_WORDING" apply --system --statedir rel/dir

# --- the state directory's rules, through mpolctl recover
tc_run recover --statedir "$TC_TMP/fresh"
if [ "$TC_RC" -eq 0 ] && [ ! -e "$TC_TMP/fresh" ]; then
	t_pass "recover: a missing state directory means nothing to recover (not made)"
else
	t_fail "recover: a missing state directory means nothing to recover (not made)" "exit $TC_RC: $TC_OUT $TC_ERR"
fi
mkdir "$TC_TMP/target"
ln -s "$TC_TMP/target" "$TC_TMP/link"
tc_run recover --statedir "$TC_TMP/link"
if [ "$TC_RC" -eq 1 ] && grep -q "is a symbolic link: it is refused, never followed" <<<"$TC_ERR" &&
	[ -z "$(ls -A "$TC_TMP/target")" ]; then
	t_pass "recover: a state directory that is a symbolic link is refused, its target untouched"
else
	t_fail "recover: a state directory that is a symbolic link is refused, its target untouched" \
		"exit $TC_RC: $TC_ERR; target holds: $(ls -A "$TC_TMP/target")"
fi
mkdir -m 0777 "$TC_TMP/open"
chmod 0777 "$TC_TMP/open"
tc_run recover --statedir "$TC_TMP/open"
if [ "$TC_RC" -eq 1 ] && grep -q "may be written by its group or others (mode 0777)" <<<"$TC_ERR" &&
	[ "$(stat -c %a "$TC_TMP/open")" = 777 ]; then
	t_pass "recover: a world-writable state directory is refused and left as it is"
else
	t_fail "recover: a world-writable state directory is refused and left as it is" "exit $TC_RC: $TC_ERR"
fi
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	mkdir "$TC_TMP/users"
	chown nobody "$TC_TMP/users"
	tc_run recover --statedir "$TC_TMP/users"
	if [ "$TC_RC" -eq 1 ] && grep -q "belongs to uid $(id -u nobody), not to uid 0" <<<"$TC_ERR" &&
		[ "$(stat -c %U "$TC_TMP/users")" = nobody ]; then
		t_pass "recover: a state directory a user made first is refused, never taken over"
	else
		t_fail "recover: a state directory a user made first is refused, never taken over" "exit $TC_RC: $TC_ERR"
	fi
	# a lock held by another process: waited for at most the lock timeout (5 s), then a sentence
	mkdir -m 0700 "$TC_TMP/held"
	: >"$TC_TMP/held/lock"
	# the holder is the process itself (flock(1) would leave a child holding the lock)
	(exec 8>>"$TC_TMP/held/lock" && flock -x 8 && exec sleep 60) &
	tc_holder=$!
	for tc_i in $(seq 50); do flock -n "$TC_TMP/held/lock" true || break; sleep 0.1; done
	tc_run recover --statedir "$TC_TMP/held"
	kill "$tc_holder" 2>/dev/null
	wait "$tc_holder" 2>/dev/null
	if [ "$TC_RC" -eq 1 ] && grep -q "cannot lock $TC_TMP/held/lock: another process held it for longer than 5.000 s" <<<"$TC_ERR"; then
		t_pass "recover: a held lock is waited for at most 5 s, then named"
	else
		t_fail "recover: a held lock is waited for at most 5 s, then named" "exit $TC_RC: $TC_ERR"
	fi
else
	t_skip "recover: a state directory a user made first is refused" "needs root to give a directory to nobody"
	t_skip "recover: a held lock is waited for at most 5 s" "needs root (the state directory is root's)"
fi

# --- numbers: one grammar (decimal, no sign, space, exponent or hex)
tc_usage "rebalance --rate 1e3: no exponent" "bad --rate '1e3': give a number above 0 and at most 1000000000" \
	rebalance --dry-run --pid 1 --rate 1e3
tc_usage "rebalance --rate 0x10: no hexadecimal" "bad --rate '0x10'" rebalance --dry-run --pid 1 --rate 0x10
tc_usage "rebalance --rate 0.0001: at most 3 digits after the point" "bad --rate '0.0001'" rebalance --dry-run --pid 1 --rate 0.0001
tc_usage "rebalance --batch ' 5': no space" "bad --batch ' 5': give a whole number from 1 to 65536" rebalance --dry-run --pid 1 --batch " 5"
tc_usage "watch --settle 1.5: whole seconds" "bad --settle '1.5': give a whole number from 0 to 3600" watch --settle 1.5
tc_usage "plan --precision 1e-300: no exponent" "bad precision '1e-300': give a number above 0 and at most 1" \
	plan --precision 1e-300
tc_usage "plan --precision 1.0000000000000001: judged on its digits" "at most 9 digits after the point" \
	plan --precision 1.0000000000000001
tc_usage "plan --precision ' 0.5': no space" "bad precision ' 0.5'" plan --precision " 0.5"
tc_run plan --fsroot "$TC_FIX/asym-rw" --cpus 0 --precision 0.000000001 --json
if [ "$TC_RC" -eq 0 ]; then t_pass "plan --precision 0.000000001: the smallest precision is accepted"
else t_fail "plan --precision 0.000000001: the smallest precision is accepted" "exit $TC_RC: $TC_ERR"; fi

# --- a long bad value keeps the reason (quoted as a bounded excerpt)
tc_long=$(printf 'x%.0s' $(seq 900))
tc_usage "a 900-character bad value is quoted as an excerpt and the reason kept" \
	"unknown word 'x{48}\\.\\.\\.x{16}' \\(900 bytes\\) \\(modes: " rebalance --dry-run --pid 1 --spec "$tc_long"

# --- job ids and --pid lists
tc_usage "rebalance --pid 1,,2: an empty entry is refused" "bad --pid '1,,2': it has an empty entry" rebalance --dry-run --pid 1,,2
tc_usage "rebalance --pid 1,: a trailing comma is refused" "bad --pid '1,': it has an empty entry" rebalance --dry-run --pid 1,
tc_usage "rebalance --pid given the same process twice" "--pid names process 7 twice" rebalance --dry-run --pid 7 --pid 7
tc_usage "rebalance --job 216_3: an array task is refused with what to give" \
	"'216_3' is an array task: give its own job id \(squeue -o %A" rebalance --job 216_3
tc_usage "rebalance --job 17.4294967295: no such step" "'17.4294967295' names no step" rebalance --job 17.4294967295
tc_usage "report -j twice: refused, not the last silently used" "-j/--job given twice: give it once" report -j 216 -j 217
tc_usage "report -j 17_x: a bad array task" "'17_x' is not a job id" report -j 17_x
PATH="$TC_TMP/bin:$PATH" tc_run report -j 216_3
if [ "$TC_RC" -eq 1 ] && grep -q "job 216_3: sacct failed" <<<"$TC_ERR"; then
	t_pass "report -j 216_3: an array task is asked of sacct by that name"
else
	t_fail "report -j 216_3: an array task is asked of sacct by that name" "exit $TC_RC: $TC_ERR"
fi
tc_run rebalance --pid 999999
if [ "$TC_RC" -eq 1 ] && grep -q "pid 999999: no process 999999 runs on this node" <<<"$TC_ERR"; then
	t_pass "rebalance --pid 999999: a pid that names no process fails (exit 1)"
else
	t_fail "rebalance --pid 999999: a pid that names no process fails (exit 1)" "exit $TC_RC: $TC_OUT $TC_ERR"
fi

# --- report: a region-aware step's large mappings by how they were placed (the record
# from a fake sacct)
mkdir -p "$TC_TMP/acct"
cat >"$TC_TMP/acct/sacct" <<'SACCT'
#!/bin/sh
echo '17|{"mempolicy":{"v":1,"unit_kib":4,"steps":{"0":{"n1":{"req":"weighted","mode":"weighted","path":"weighted-interleave","sysfs":false,"plans":[],"tasks":1,"samples":2,"t":1700000000,"last":{"0":100},"peak":{"0":100},"regions":{"alloc":3,"sampler":1,"pending":0}}}}}}'
SACCT
chmod 755 "$TC_TMP/acct/sacct"
PATH="$TC_TMP/acct:$PATH" tc_run report -j 17
if [ "$TC_RC" -eq 0 ] && grep -qx "  large mappings at the last sample: 3 placed as allocated, 1 by the sampler, 0 not on the plan" <<<"$TC_OUT"; then
	t_pass "report: a region-aware step's large mappings by how they were placed"
else
	t_fail "report: a region-aware step's large mappings by how they were placed" "exit $TC_RC: $TC_OUT $TC_ERR"
fi

rm -rf "$TC_TMP"
