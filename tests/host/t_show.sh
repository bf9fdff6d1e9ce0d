# t_show.sh - `mpolctl show` and `mpolctl plan` against this machine's real sysfs
# (sourced by tests/host/run): the node(s) as the kernel lists them, the auto file
# under whatever name this kernel gives it (__auto_type on 6.18), read-only, and bad
# arguments refused with exit 2 and a message.

TS_NODE=/sys/devices/system/node
TS_WI=/sys/kernel/mm/mempolicy/weighted_interleave

# ts_run ARGS...: run mpolctl; sets TS_OUT (stdout), TS_ERR (stderr), TS_RC.
ts_run() {
	local errf
	errf=$(mktemp)
	TS_OUT=$("$MPOLCTL" "$@" 2>"$errf")
	TS_RC=$?
	TS_ERR=$(cat "$errf")
	rm -f "$errf"
}

# ts_usage NAME REGEX ARGS...: mpolctl ARGS must exit 2, print REGEX on stderr, nothing on stdout.
ts_usage() {
	local name=$1 re=$2
	shift 2
	ts_run "$@"
	if [ "$TS_RC" -ne 2 ]; then
		t_fail "$name" "exit $TS_RC (want 2): $TS_ERR"
	elif [ -n "$TS_OUT" ]; then
		t_fail "$name" "printed on stdout: $TS_OUT"
	else
		t_expect_match "$name" "$re" "$TS_ERR"
	fi
}

# The weights table as one line, to prove show/plan changed nothing.
ts_wi_state() { [ -d "$TS_WI" ] && grep -r . "$TS_WI" 2>/dev/null | sort | tr '\n' ' '; }

if [ ! -x "$MPOLCTL" ]; then
	t_fail "show: mpolctl" "$MPOLCTL is missing (build first)"
else
	ts_before=$(ts_wi_state)
	ts_online=$(cat $TS_NODE/online)

	ts_run show
	if [ "$TS_RC" -ne 0 ]; then
		t_fail "show: runs on this host" "exit $TS_RC: $TS_ERR"
	else
		t_pass "show: runs on this host"
		t_expect_match "show: lists the online nodes ($ts_online)" "nodes online $ts_online," "$TS_OUT"
		for ts_dir in $TS_NODE/node[0-9]*; do
			ts_id=${ts_dir##*node}
			ts_cpus=$(cat "$ts_dir/cpulist")
			[ -n "$ts_cpus" ] || continue
			t_expect_match "show: node$ts_id is DRAM with CPUs $ts_cpus" \
				"^$ts_id +DRAM +$ts_cpus " "$TS_OUT"
		done
		if [ -d "$TS_WI" ]; then
			t_expect_match "show: kernel has weighted interleave" "weighted interleave: yes" "$TS_OUT"
		else
			t_expect_match "show: kernel has no weighted interleave" "weighted interleave: no" "$TS_OUT"
		fi
	fi

	# The auto file by whatever name this kernel gives it.
	ts_auto=
	for ts_f in "$TS_WI/auto" "$TS_WI/__auto_type"; do [ -e "$ts_f" ] && ts_auto=$ts_f; done
	if [ -z "$ts_auto" ]; then
		t_skip "show: auto file recognised" "this kernel has no auto file in $TS_WI"
	else
		ts_name=${ts_auto##*/}
		ts_val=$(cat "$ts_auto")
		t_expect_match "show: auto file '$ts_name' = $ts_val recognised" \
			"auto file: $ts_name = $ts_val" "$TS_OUT"
		ts_run show --json
		t_expect_match "show --json: auto file '$ts_name'" \
			"^$ts_name $ts_val\$" "$(jq -r '.kernel | "\(.auto_file) \(.auto_enabled)"' <<<"$TS_OUT")"
	fi
	if [ -e "$TS_WI/node0" ]; then
		ts_w=$(cat "$TS_WI/node0")
		ts_run show --json
		t_expect_match "show --json: node0 weight $ts_w as in sysfs" "^$ts_w\$" \
			"$(jq -r '.nodes[] | select(.id == 0) | .weight' <<<"$TS_OUT")"
	fi
	ts_run show --json
	ts_n=$(jq '.nodes | length' <<<"$TS_OUT" 2>/dev/null)
	ts_want=$(ls -d $TS_NODE/node[0-9]* | wc -l)
	if [ "$TS_RC" -eq 0 ] && [ "$ts_n" = "$ts_want" ]; then
		t_pass "show --json: one JSON object with $ts_want node(s)"
	else
		t_fail "show --json: one JSON object with $ts_want node(s)" "exit $TS_RC, nodes '$ts_n': $TS_ERR"
	fi

	ts_run plan
	ts_missing=
	ts_ncpu_nodes=0
	for ts_dir in $TS_NODE/node[0-9]*; do
		ts_cpus=$(cat "$ts_dir/cpulist")
		[ -n "$ts_cpus" ] || continue
		ts_ncpu_nodes=$((ts_ncpu_nodes + 1))
		grep -Eq "^initiator ${ts_dir##*/} \(CPUs $ts_cpus\): nodes " <<<"$TS_OUT" || ts_missing="$ts_missing ${ts_dir##*/}"
	done
	if [ "$TS_RC" -eq 0 ] && [ "$ts_ncpu_nodes" -gt 0 ] && [ -z "$ts_missing" ] &&
		[ "$(grep -c '^initiator node' <<<"$TS_OUT")" -eq "$ts_ncpu_nodes" ]; then
		t_pass "plan: one plan for each of the $ts_ncpu_nodes CPU node(s) on this host"
	else
		t_fail "plan: one plan for each of the $ts_ncpu_nodes CPU node(s) on this host" \
			"exit $TS_RC, missing:${ts_missing:- none}: $TS_OUT"
	fi
	ts_run plan --cpus 0 --json
	t_expect_match "plan --cpus 0: node0's plan" '^0 ' \
		"$(jq -r '.plans[] | "\(.initiator) \(.nodes|join(",")) \(.weights|join(":"))"' <<<"$TS_OUT" 2>&1)"

	for ts_verb in show plan; do
		ts_run $ts_verb --help
		if [ "$TS_RC" -eq 0 ]; then
			t_expect_match "$ts_verb --help: usage on stdout" "^usage: mpolctl $ts_verb .*--fsroot DIR" "$TS_OUT"
		else
			t_fail "$ts_verb --help: usage on stdout" "exit $TS_RC: $TS_ERR"
		fi
	done

	ts_empty=$(mktemp -d)
	ts_usage "show: unknown option" "unknown option '--bogus'" show --bogus
	ts_usage "show: stray argument" "unexpected argument 'node0'" show node0
	ts_usage "show: --fsroot without a value" "option '--fsroot' needs a value" show --fsroot
	ts_usage "show: --fsroot that does not exist" "'/nonexistent/root': no such directory" show --fsroot /nonexistent/root
	ts_usage "show: --fsroot that is a file" "is not a directory" show --fsroot /etc/hostname
	ts_usage "show: --fsroot empty" "empty" show --fsroot ""
	MPOL_FSROOT=/nonexistent/root ts_usage "show: bad MPOL_FSROOT" "MPOL_FSROOT '/nonexistent/root'" show
	ts_run show --fsroot "$ts_empty"
	if [ "$TS_RC" -eq 1 ]; then
		t_expect_match "show: a root without sysfs fails (exit 1) naming the file" \
			"cannot read the online node list $ts_empty/sys/devices/system/node/online" "$TS_ERR"
	else
		t_fail "show: a root without sysfs fails (exit 1) naming the file" "exit $TS_RC: $TS_OUT $TS_ERR"
	fi
	rmdir "$ts_empty"
	ts_usage "plan: size with a bad suffix" "--mem: bad size '4X': its suffix is not K, M, G or T" plan --mem 4X
	ts_usage "plan: fractional size" "--mem: bad size '1.5G'" plan --mem 1.5G
	ts_usage "plan: negative size" "--mem: bad size '-1G'" plan --mem -1G
	ts_usage "plan: precision 0" "--precision: bad precision '0': give a number above 0" plan --precision 0
	ts_usage "plan: precision above 1" "--precision: bad precision '1.5'" plan --precision 1.5
	ts_usage "plan: precision not a number" "--precision: bad precision 'nan'" plan --precision nan
	ts_usage "plan: unknown scope" "unknown --scope 'node' \(known: socket, all\)" plan --scope node
	ts_usage "plan: unknown algorithm" "unknown --algorithm 'fast'" plan --algorithm fast
	ts_usage "plan: bad CPU list" "--cpus: bad CPU list '0-': a range is missing a number" plan --cpus 0-
	ts_usage "plan: empty node list" "--nodes is empty" plan --nodes ""
	ts_usage "plan: CPU that no node holds" "the task's CPUs 8000 belong to no NUMA node of this machine" plan --cpus 8000
	ts_usage "plan: node without memory" "node 999" plan --nodes 999
	ts_usage "plan: missing value" "option '--mem' needs a value" plan --mem

	ts_after=$(ts_wi_state)
	if [ "$ts_before" = "$ts_after" ]; then
		t_pass "show/plan changed no weight"
	else
		t_fail "show/plan changed no weight" "before: $ts_before after: $ts_after"
	fi
fi
