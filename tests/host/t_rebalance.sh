# t_rebalance.sh - mpolctl rebalance and watch on this kernel (sourced by tests/host/run).
# One NUMA node here, so no page can change node: these cases test the machinery
# (page queries on live children, pidfd identity, exits, interrupts, permissions,
# dry runs, Slurm lookups through a fake scontrol, hotplug uevents, bad arguments).
# The movement itself is tested by the unit tests (planner) and the VM tier.

RB_TMP=$(mktemp -d)
RB_HOLD=$MPOL_BUILD/tests/host/page-hold
RB_PIDS=()
if [ ! -x "$RB_HOLD" ]; then
	RB_HOLD=$RB_TMP/page-hold
	${CC:-cc} -O2 -o "$RB_HOLD" "$here/page-hold.c" || RB_HOLD=
fi
chmod 755 "$RB_TMP"

# rb_hold NAME TOUCH_MIB [RESERVE_MIB] [VAR=VALUE...]: start page-hold with that
# environment as the current user; sets RB_PID (empty when it did not get ready).
rb_hold() {
	local name=$1 touch=$2 reserve=${3:-0}
	shift 3 2>/dev/null || shift $#
	env -i PATH="$PATH" "$@" "$RB_HOLD" "$touch" "$reserve" >"$RB_TMP/$name.out" 2>&1 &
	RB_PID=$!
	RB_PIDS+=("$RB_PID")
	rb_wait_for "$RB_TMP/$name.out" '^ready' || RB_PID=
}

# rb_wait_for FILE REGEX: up to 60 s for REGEX to appear in FILE (a bound, not a
# measure: on a loaded 2-core machine the holder took over 10 s to touch 1 GiB).
rb_wait_for() {
	local i
	for i in $(seq 600); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# rb_intact NAME PID: the holder's memory still has its pattern.
rb_intact() {
	kill -USR1 "$2" 2>/dev/null || return 1
	rb_wait_for "$RB_TMP/$1.out" '^(intact|corrupt)' && grep -q '^intact' "$RB_TMP/$1.out"
}

# rb_json FILE FILTER: jq on a JSON output.
rb_json() { jq -r "$2" "$1" 2>/dev/null; }

# A fake scontrol: `listpids` prints $RB_TMP/listpids, or fails when it is absent.
mkdir -p "$RB_TMP/bin"
cat >"$RB_TMP/bin/scontrol" <<'SH'
#!/bin/sh
[ "$1" = listpids ] || { echo "fake scontrol: only listpids" >&2; exit 1; }
[ -f "$RB_LISTPIDS" ] || { echo "slurm_load_slurmd_status: Connection refused" >&2; exit 1; }
cat "$RB_LISTPIDS"
SH
chmod 755 "$RB_TMP/bin/scontrol"
rb_scontrol() { PATH="$RB_TMP/bin:$PATH" RB_LISTPIDS=$RB_TMP/listpids "$@"; }

# --- bad arguments: exit 2, with a message naming the problem
rb_bad() { # rb_bad NAME REGEX ARGS...
	local name=$1 re=$2 out rc
	shift 2
	out=$("$MPOLCTL" "$@" 2>&1); rc=$?
	if [ $rc -eq 2 ] && grep -Eq -- "$re" <<<"$out"; then t_pass "rebalance: bad arguments: $name"
	else t_fail "rebalance: bad arguments: $name" "exit $rc: $out"; fi
}
rb_bad "no target" "exactly one of --job" rebalance
rb_bad "both --job and --pid" "exactly one of --job" rebalance --job 5 --pid 1
rb_bad "pid not a number" "--pid 'abc'" rebalance --pid abc
rb_bad "pid zero" "--pid '0'" rebalance --pid 0
rb_bad "pid list with a hole" "bad --pid '1,,x': it has an empty entry" rebalance --pid 1,,x
rb_bad "job id with a bad step" "--job: '12.x' names no step" rebalance --job 12.x
rb_bad "job id zero" "--job: '0' is not a job id" rebalance --job 0
rb_bad "rate zero" "--rate '0'" rebalance --pid 1 --rate 0
rb_bad "rate not a number" "--rate 'fast'" rebalance --pid 1 --rate fast
rb_bad "unknown backend" "unknown backend 'mbind'" rebalance --pid 1 --backend mbind
rb_bad "process_mbind without its number" "process-mbind-nr" rebalance --pid 1 --backend process_mbind
rb_bad "batch zero" "--batch '0'" rebalance --pid 1 --batch 0
rb_bad "spec none" "names no interleave" rebalance --pid 1 --spec none
rb_bad "spec malformed" "--spec: unknown key 'bogus'" rebalance --pid 1 --spec weighted,bogus=1
rb_bad "unknown option" "unknown option '--frobnicate'" rebalance --pid 1 --frobnicate
rb_bad "stray operand" "unexpected argument 'extra'" rebalance --pid 1 extra
rb_bad "watch: settle not a number" "--settle 'soon'" watch --settle soon
rb_bad "watch: --json" "--json is not available: watch logs one line per action" watch --json
out=$("$MPOLCTL" rebalance --help 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q -- '--dry-run' <<<"$out" && grep -q -- '--rate MB/s' <<<"$out" &&
	t_pass "rebalance --help" || t_fail "rebalance --help" "exit $rc: $out"
out=$("$MPOLCTL" watch --help 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q -- '--settle' <<<"$out" && t_pass "watch --help" || t_fail "watch --help" "exit $rc: $out"

if [ -z "$RB_HOLD" ]; then
	t_fail "rebalance: page-hold helper" "neither built nor compilable (cc missing?)"
elif ! command -v jq >/dev/null; then
	t_skip "rebalance: live processes" "jq is not installed (needed to read --json output)"
else
	# --- a dry run on a child with 64 MiB touched: counted, nothing moved
	rb_hold dry 64
	if [ -z "$RB_PID" ]; then
		t_fail "rebalance: start a page holder" "$(cat "$RB_TMP/dry.out")"
	else
		"$MPOLCTL" rebalance --pid "$RB_PID" --dry-run --json >"$RB_TMP/dry.json" 2>"$RB_TMP/dry.err"; rc=$?
		pages=$(rb_json "$RB_TMP/dry.json" '.tasks[0].pages')
		if [ $rc -eq 0 ] && [ "$(rb_json "$RB_TMP/dry.json" '.tasks[0].status')" = done ] &&
			[ "${pages:-0}" -ge 16384 ] && [ "$(rb_json "$RB_TMP/dry.json" '.dry_run')" = true ]; then
			t_pass "rebalance --dry-run: counts the child's 16384+ touched pages"
		else
			t_fail "rebalance --dry-run: counts the child's 16384+ touched pages" "exit $rc: $(cat "$RB_TMP/dry.json" "$RB_TMP/dry.err")"
		fi
		# One node: the whole task is on its only plan node, the minimum is 0.
		[ "$(rb_json "$RB_TMP/dry.json" '.tasks[0].minimum')" = 0 ] &&
			[ "$(rb_json "$RB_TMP/dry.json" '.tasks[0].planned')" = 0 ] &&
			t_pass "rebalance --dry-run: one node, minimum and plan are 0 pages" ||
			t_fail "rebalance --dry-run: one node, minimum and plan are 0 pages" "$(cat "$RB_TMP/dry.json")"
		t_expect_match "rebalance: the chosen backend and why are in the output" \
			'^move_pages move_pages: process_mbind is not configured' "$(rb_json "$RB_TMP/dry.json" '"\(.backend) \(.why)"')"
		t_expect_match "rebalance: every action is logged on stderr" \
			"planning pid $RB_PID \\(page-hold, uid 0\\) to nodes 0 weights" "$(cat "$RB_TMP/dry.err")"
		out=$("$MPOLCTL" rebalance --pid "$RB_PID" 2>&1); rc=$?
		[ $rc -eq 0 ] && grep -Eq "^pid $RB_PID \(page-hold\): spec weighted -> nodes 0" <<<"$out" &&
			grep -Eq "minimum to move 0, moved 0" <<<"$out" &&
			t_pass "rebalance (text): before/target/after and 0 pages moved" ||
			t_fail "rebalance (text): before/target/after and 0 pages moved" "exit $rc: $out"
		rb_intact dry "$RB_PID" && t_pass "rebalance: the child's memory is intact afterwards" ||
			t_fail "rebalance: the child's memory is intact afterwards" "$(cat "$RB_TMP/dry.out")"
		# The migrate_pages backend says what it cannot do.
		out=$("$MPOLCTL" rebalance --pid "$RB_PID" --backend migrate_pages 2>&1); rc=$?
		[ $rc -eq 0 ] && grep -q "backend: migrate_pages as asked" <<<"$out" &&
			grep -q "note: migrate_pages moves whole nodes" <<<"$out" &&
			t_pass "rebalance --backend migrate_pages: chosen and its limit reported" ||
			t_fail "rebalance --backend migrate_pages: chosen and its limit reported" "exit $rc: $out"
		# process_mbind with statmount's number: refused without calling it.
		out=$("$MPOLCTL" rebalance --pid "$RB_PID" --backend process_mbind --process-mbind-nr 457 2>&1); rc=$?
		[ $rc -eq 1 ] && grep -q "statmount upstream, not process_mbind: refused" <<<"$out" &&
			t_pass "rebalance: process_mbind number 457 refused" ||
			t_fail "rebalance: process_mbind number 457 refused" "exit $rc: $out"
		out=$("$MPOLCTL" rebalance --pid "$RB_PID" --process-mbind-nr 4000 2>&1); rc=$?
		[ $rc -eq 0 ] && grep -q "backend: move_pages: syscall 4000 is not implemented" <<<"$out" &&
			t_pass "rebalance: auto falls back to move_pages when the process_mbind probe fails" ||
			t_fail "rebalance: auto falls back to move_pages when the process_mbind probe fails" "exit $rc: $out"
		# A user may not rebalance root's process.
		if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
			out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$MPOLCTL" rebalance --pid "$RB_PID" 2>&1); rc=$?
			[ $rc -eq 1 ] && grep -q "belongs to uid 0: only root may rebalance another user's process" <<<"$out" &&
				t_pass "rebalance: a user rebalancing another user's process is refused" ||
				t_fail "rebalance: a user rebalancing another user's process is refused" "exit $rc: $out"
		else
			t_skip "rebalance: a user rebalancing another user's process is refused" "needs root and setpriv to act as another user"
		fi
		kill "$RB_PID" 2>/dev/null
		wait "$RB_PID" 2>/dev/null
		# a pid the admin names must exist: gone before the run is a failure, not a skip
		out=$("$MPOLCTL" rebalance --pid "$RB_PID" 2>&1); rc=$?
		[ $rc -eq 1 ] && grep -q "pid $RB_PID: no process $RB_PID runs on this node" <<<"$out" &&
			t_pass "rebalance: a --pid that is gone before the run fails (exit 1) naming it" ||
			t_fail "rebalance: a --pid that is gone before the run fails (exit 1) naming it" "exit $rc: $out"
	fi

	# --- a plan naming nodes outside the task's cpuset: a four-node fixture topology
	# (--fsroot) against this host's real cpuset (node 0 only)
	fx=$here/../fixtures/two-socket-cxl
	rb_hold cs 8
	if [ -d "$fx/sys" ] && [ -n "$RB_PID" ]; then
		out=$("$MPOLCTL" rebalance --pid "$RB_PID" --fsroot "$fx" --dry-run 2>&1); rc=$?
		[ $rc -eq 1 ] && grep -q "its cpuset allows nodes 0 only, the plan also wants .*give --grow-cpuset" <<<"$out" &&
			t_pass "rebalance: plan nodes outside the task's cpuset are refused, naming --grow-cpuset" ||
			t_fail "rebalance: plan nodes outside the task's cpuset are refused, naming --grow-cpuset" "exit $rc: $out"
		# --grow-cpuset: the holder in a cgroup of its own; a fake tree mirrors its path.
		cg=mpol-rb-$$
		if grep -q ':cpuset:' /proc/self/cgroup; then real=/sys/fs/cgroup/cpuset; else real=/sys/fs/cgroup; fi
		[ -d /sys/fs/cgroup/unified ] && ! grep -q ':cpuset:' /proc/self/cgroup && real=/sys/fs/cgroup/unified
		if [ "$(id -u)" -eq 0 ] && mkdir "$real/$cg" 2>/dev/null; then
			[ -f "$real/$cg/cpuset.cpus" ] && cat "$real/cpuset.cpus" >"$real/$cg/cpuset.cpus" 2>/dev/null
			[ -f "$real/$cg/cpuset.mems" ] && echo 0 >"$real/$cg/cpuset.mems" 2>/dev/null
			echo "$RB_PID" >"$real/$cg/cgroup.procs"
			fake=$RB_TMP/fake
			cp -a "$fx" "$fake"
			mkdir -p "$fake$real/$cg"
			echo 0 >"$fake$real/$cg/cpuset.mems"
			"$MPOLCTL" rebalance --pid "$RB_PID" --fsroot "$fake" --grow-cpuset --dry-run --json \
				>"$RB_TMP/grow.json" 2>"$RB_TMP/grow.err"; rc=$?
			file=$(rb_json "$RB_TMP/grow.json" '.tasks[0].cpuset[0].file')
			change="$(rb_json "$RB_TMP/grow.json" '.tasks[0].cpuset[0].before') -> $(rb_json "$RB_TMP/grow.json" '.tasks[0].cpuset[0].after')"
			if [ $rc -eq 0 ] && [ "$file" = "$fake$real/$cg/cpuset.mems" ] && [[ $change =~ ^0\ -\>\ 0[-,][0-9] ]] &&
				[ "$(cat "$fake$real/$cg/cpuset.mems")" = 0 ] && grep -q "would widen" "$RB_TMP/grow.err"; then
				t_pass "rebalance --grow-cpuset --dry-run: the job's cpuset.mems would widen ($change), nothing written"
			else
				t_fail "rebalance --grow-cpuset --dry-run: the job's cpuset.mems would widen, nothing written" \
					"exit $rc file '$file' change '$change': $(cat "$RB_TMP/grow.json" "$RB_TMP/grow.err")"
			fi
			echo "$RB_PID" >"$real/cgroup.procs"
			kill "$RB_PID" 2>/dev/null
			wait "$RB_PID" 2>/dev/null
			rmdir "$real/$cg"
		else
			t_skip "rebalance --grow-cpuset --dry-run: the job's cpuset.mems would widen" "needs root to make a cgroup"
		fi
	else
		t_fail "rebalance: plan nodes outside the task's cpuset" "fixture $fx missing or the holder did not start"
	fi
	kill "$RB_PID" 2>/dev/null

	# --- the mechanism new allocations can follow a hot-added node by: a weighted
	# interleave policy with MPOL_F_STATIC_NODES may name a node that has no memory
	# (here node 3 of a one-node machine); the kernel keeps the mask and uses the nodes
	# that have memory, so a cpuset rebind at hotplug can widen it later.
	rb_static="MPOL_F_STATIC_NODES over nodes 0,3 (3 without memory) is accepted"
	if [ ! -d /sys/kernel/mm/mempolicy/weighted_interleave ]; then
		t_skip "$rb_static" "this kernel has no weighted interleave"
	else
		"$RB_HOLD" 8 0 0,3 >"$RB_TMP/static.out" 2>&1 &
		spid=$!
		RB_PIDS+=("$spid")
		if rb_wait_for "$RB_TMP/static.out" '^ready'; then
			anyp=$(grep -o 'weighted interleave=static:[0-9,-]*' "/proc/$spid/numa_maps" | sort -u | tr '\n' ' ')
			[ -n "$anyp" ] && grep -q 'weighted interleave=static:0 ' <<<"$anyp " &&
				t_pass "$rb_static; numa_maps: ${anyp% }" ||
				t_fail "$rb_static" "policies seen: '$anyp'; $(cat "$RB_TMP/static.out")"
		else
			t_fail "$rb_static" "$(cat "$RB_TMP/static.out")"
		fi
		kill "$spid" 2>/dev/null
	fi

	# --- a user rebalancing their own process
	if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$RB_HOLD" 16 0 >"$RB_TMP/user.out" 2>&1 &
		RB_PIDS+=($!)
		upid=$!
		if rb_wait_for "$RB_TMP/user.out" '^ready'; then
			out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$MPOLCTL" rebalance --pid "$upid" --json 2>"$RB_TMP/user.err"); rc=$?
			[ $rc -eq 0 ] && [ "$(jq -r '.tasks[0].status' <<<"$out")" = done ] &&
				t_pass "rebalance: a user may rebalance their own process" ||
				t_fail "rebalance: a user may rebalance their own process" "exit $rc: $out $(cat "$RB_TMP/user.err")"
		else
			t_fail "rebalance: a user may rebalance their own process" "holder did not start: $(cat "$RB_TMP/user.out")"
		fi
		kill "$upid" 2>/dev/null
	else
		t_skip "rebalance: a user may rebalance their own process" "needs root and setpriv to act as another user"
	fi

	# --- a huge, sparsely touched mapping (64 GiB reserved, one page touched) costs what
	# it holds: the walk visits present pages only (PAGEMAP_SCAN, Linux 6.7)
	rb_hold sparse 8 65536
	if [ -n "$RB_PID" ]; then
		t0=$(date +%s%N)
		"$MPOLCTL" rebalance --pid "$RB_PID" --dry-run --json >"$RB_TMP/sparse.json" 2>"$RB_TMP/sparse.err"; rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		pages=$(rb_json "$RB_TMP/sparse.json" '.tasks[0].pages')
		if [ $rc -eq 0 ] && [ "${pages:-0}" -ge 2049 ] && [ "${pages:-0}" -lt 4096 ] && [ $ms -lt 5000 ]; then
			t_pass "rebalance: a 64 GiB mapping with one page touched is walked in ${ms} ms ($pages pages)"
		else
			t_fail "rebalance: a 64 GiB mapping with one page touched is walked quickly" \
				"exit $rc, $ms ms, pages '$pages': $(cat "$RB_TMP/sparse.err" | tail -n 3)"
		fi
		kill "$RB_PID" 2>/dev/null
	else
		t_fail "rebalance: a 64 GiB mapping with one page touched is walked quickly" \
			"the page holder did not start: $(cat "$RB_TMP/sparse.out")"
	fi

	# --- a process exiting mid-rebalance: a long walk (1 GiB touched, one page per
	# call), stopped once it has begun, the holder killed, then resumed
	rb_hold exiting 1024 0
	if [ -n "$RB_PID" ]; then
		"$MPOLCTL" rebalance --pid "$RB_PID" --batch 1 --json >"$RB_TMP/exit.json" 2>"$RB_TMP/exit.err" &
		rpid=$!
		rb_wait_for "$RB_TMP/exit.err" "rebalancing pid $RB_PID"
		sleep 0.3
		kill -STOP "$rpid"
		kill -9 "$RB_PID"
		wait "$RB_PID" 2>/dev/null
		kill -CONT "$rpid"
		wait "$rpid"; rc=$?
		st=$(rb_json "$RB_TMP/exit.json" '.tasks[0].status')
		if [ $rc -eq 0 ] && [ "$st" = exited ] && grep -q "exited during the run" "$RB_TMP/exit.err"; then
			t_pass "rebalance: a process exiting mid-run is skipped cleanly (exit 0, status exited)"
		else
			t_fail "rebalance: a process exiting mid-run is skipped cleanly (exit 0, status exited)" \
				"exit $rc status '$st': $(cat "$RB_TMP/exit.json" "$RB_TMP/exit.err" | tail -n 8)"
		fi
	else
		t_fail "rebalance: a process exiting mid-run is skipped cleanly (exit 0, status exited)" \
			"the page holder did not start: $(cat "$RB_TMP/exiting.out")"
	fi

	# --- SIGINT stops after the current batch and reports
	rb_hold intr 1024 0
	if [ -n "$RB_PID" ]; then
		"$MPOLCTL" rebalance --pid "$RB_PID" --batch 1 >"$RB_TMP/intr.txt" 2>"$RB_TMP/intr.err" &
		rpid=$!
		rb_wait_for "$RB_TMP/intr.err" "rebalancing pid $RB_PID"
		kill -INT "$rpid"
		wait "$rpid"; rc=$?
		if [ $rc -eq 1 ] && grep -q "interrupted: stopped after the current batch; run again to resume" "$RB_TMP/intr.txt" &&
			rb_intact intr "$RB_PID"; then
			t_pass "rebalance: SIGINT stops after the batch, reports, exits 1, task intact"
		else
			t_fail "rebalance: SIGINT stops after the batch, reports, exits 1, task intact" \
				"exit $rc: $(cat "$RB_TMP/intr.txt" "$RB_TMP/intr.err" | tail -n 8)"
		fi
		kill "$RB_PID" 2>/dev/null
	else
		t_fail "rebalance: SIGINT stops after the batch, reports, exits 1, task intact" \
			"the page holder did not start: $(cat "$RB_TMP/intr.out")"
	fi

	# --- --job through (a fake) scontrol listpids
	rb_hold job 8 0 SLURM_JOB_ID=77 SLURM_STEP_ID=0 SLURM_MEM_INTERLEAVE_MODE=weighted
	jpid=$RB_PID
	rb_hold nojob 8 0 SLURM_JOB_ID=77 SLURM_STEP_ID=0
	npid=$RB_PID
	if [ -n "$jpid" ] && [ -n "$npid" ]; then
		printf 'PID      JOBID    STEPID   LOCALID GLOBALID\n%-8s 77       0        0       0\n%-8s 77       0        1       1\n%-8s 78       0        0       0\n' \
			"$jpid" "$npid" "$$" >"$RB_TMP/listpids"
		rb_scontrol "$MPOLCTL" rebalance --job 77.0 --json --statedir "$RB_TMP/state" >"$RB_TMP/job.json" 2>"$RB_TMP/job.err"; rc=$?
		if [ $rc -eq 0 ] && [ "$(rb_json "$RB_TMP/job.json" "[.tasks[] | select(.pid == $jpid)][0].status")" = done ] &&
			[ "$(rb_json "$RB_TMP/job.json" '.tasks | length')" = 2 ]; then
			t_pass "rebalance --job: the job's processes from scontrol listpids, other jobs' left out"
		else
			t_fail "rebalance --job: the job's processes from scontrol listpids, other jobs' left out" \
				"exit $rc: $(cat "$RB_TMP/job.json" "$RB_TMP/job.err")"
		fi
		t_expect_match "rebalance --job: a task that did not ask for --mem-interleave is skipped" \
			'did not ask for --mem-interleave' "$(rb_json "$RB_TMP/job.json" "[.tasks[] | select(.pid == $npid)][0].reason")"
		t_expect_match "rebalance --job: without a lease the weights are left alone" \
			'job 77 does not hold the weights lease' "$(rb_json "$RB_TMP/job.json" '.lease')"
		rm -f "$RB_TMP/listpids"
		out=$(rb_scontrol "$MPOLCTL" rebalance --job 77 2>&1); rc=$?
		[ $rc -eq 1 ] && grep -q "cannot list the processes of job 77: .*Connection refused" <<<"$out" &&
			t_pass "rebalance --job: scontrol failing is a clear error" ||
			t_fail "rebalance --job: scontrol failing is a clear error" "exit $rc: $out"
		printf 'PID JOBID STEPID LOCALID GLOBALID\n' >"$RB_TMP/listpids"
		out=$(rb_scontrol "$MPOLCTL" rebalance --job 77 2>&1); rc=$?
		[ $rc -eq 1 ] && grep -q "job 77 has no processes on this node" <<<"$out" &&
			t_pass "rebalance --job: a job with no processes here is a clear error" ||
			t_fail "rebalance --job: a job with no processes here is a clear error" "exit $rc: $out"
		kill "$jpid" "$npid" 2>/dev/null
	else
		t_fail "rebalance --job: start the job's page holders" "$(cat "$RB_TMP/job.out" "$RB_TMP/nojob.out")"
	fi

	# --- a job holding the weights lease gets its weights rewritten under its journal:
	# a fixture tree with sysfs weights (--fsroot), a journal naming a live holder
	fx=$here/../fixtures/linux-7.3-after-hotplug
	rb_hold lease 8 0 SLURM_JOB_ID=77 SLURM_STEP_ID=0 SLURM_MEM_INTERLEAVE_MODE=weighted
	if [ -n "$RB_PID" ] && [ -d "$fx/sys/kernel/mm/mempolicy/weighted_interleave" ]; then
		fake=$RB_TMP/lease-fs
		cp -a "$fx" "$fake"
		wi=$fake/sys/kernel/mm/mempolicy/weighted_interleave
		echo 9 >"$wi/node0"
		start=$(sed 's/.*) //' "/proc/$RB_PID/stat" | cut -d' ' -f20)
		mkdir -p "$RB_TMP/lease"
		printf 'slurm-mempolicy lease v1\nowner job=77 step=0 uid=0 pid=%s start=%s\nsaved auto=1 0:3 1:3 2:1 3:1\n' \
			"$RB_PID" "$start" >"$RB_TMP/lease/weights.journal"
		cp "$RB_TMP/lease/weights.journal" "$RB_TMP/journal.before"
		printf 'PID JOBID STEPID LOCALID GLOBALID\n%s 77 0 0 0\n' "$RB_PID" >"$RB_TMP/listpids"
		rb_scontrol "$MPOLCTL" rebalance --job 77 --fsroot "$fake" --statedir "$RB_TMP/lease" --spec weighted,nodes=0 \
			--json >"$RB_TMP/lease.json" 2>"$RB_TMP/lease.err"; rc=$?
		w=$(rb_json "$RB_TMP/lease.json" '.tasks[0].weights[0]')
		if [ $rc -eq 0 ] && [ "$(cat "$wi/node0")" = "$w" ] && [ "$w" != 9 ] &&
			cmp -s "$RB_TMP/journal.before" "$RB_TMP/lease/weights.journal" &&
			grep -q "holds the weights lease: its sysfs weights were rewritten" "$RB_TMP/lease.json"; then
			t_pass "rebalance --job: the job's lease weights rewritten (node0 9 -> $w), its journal kept as it was"
		else
			t_fail "rebalance --job: the job's lease weights rewritten, its journal kept as it was" \
				"exit $rc node0=$(cat "$wi/node0") plan weight '$w': $(cat "$RB_TMP/lease.json" "$RB_TMP/lease.err" "$RB_TMP/lease/weights.journal")"
		fi
		# A dry run says so and writes nothing.
		echo 9 >"$wi/node0"
		out=$(rb_scontrol "$MPOLCTL" rebalance --job 77 --fsroot "$fake" --statedir "$RB_TMP/lease" --spec weighted,nodes=0 --dry-run 2>&1); rc=$?
		[ $rc -eq 0 ] && [ "$(cat "$wi/node0")" = 9 ] && grep -q "sysfs weights would be rewritten" <<<"$out" &&
			t_pass "rebalance --job --dry-run: the lease weights are left alone" ||
			t_fail "rebalance --job --dry-run: the lease weights are left alone" "exit $rc node0=$(cat "$wi/node0"): $out"
		kill "$RB_PID" 2>/dev/null
	else
		t_fail "rebalance --job: lease" "holder did not start or fixture $fx has no weights"
	fi

	# --- a recycled pid: job 77's task exits and an unrelated process gets its pid
	# (ns_last_pid in a private pid namespace); rebalance --job must leave it alone.
	if [ "$(id -u)" -eq 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
		export RB_HOLD RB_TMP MPOLCTL
		rb_scontrol unshare --pid --fork --mount-proc bash -c '
			env -i SLURM_JOB_ID=77 SLURM_MEM_INTERLEAVE_MODE=weighted "$RB_HOLD" 4 0 >"$RB_TMP/old.out" &
			old=$!
			for i in $(seq 50); do grep -q ready "$RB_TMP/old.out" && break; sleep 0.1; done
			printf "PID JOBID STEPID LOCALID GLOBALID\n%s 77 0 0 0\n" "$old" >"$RB_TMP/listpids"
			kill -9 $old; wait $old 2>/dev/null
			echo $((old - 1)) >/proc/sys/kernel/ns_last_pid
			env -i "$RB_HOLD" 4 0 >"$RB_TMP/new.out" &
			new=$!
			for i in $(seq 50); do grep -q ready "$RB_TMP/new.out" && break; sleep 0.1; done
			echo "old=$old new=$new"
			"$MPOLCTL" rebalance --job 77 --json --statedir "$RB_TMP/state"
			kill $new' >"$RB_TMP/recycle.txt" 2>&1; rc=$?
		if grep -q "^old=\([0-9]*\) new=\1$" "$RB_TMP/recycle.txt"; then
			[ $rc -eq 0 ] && grep -Eq '"status": ?"skipped"' "$RB_TMP/recycle.txt" &&
				grep -q "is no longer in job 77; left alone" "$RB_TMP/recycle.txt" &&
				t_pass "rebalance --job: a recycled pid is left alone" ||
				t_fail "rebalance --job: a recycled pid is left alone" "exit $rc: $(cat "$RB_TMP/recycle.txt")"
		else
			t_fail "rebalance --job: a recycled pid is left alone" "could not recycle the pid: $(cat "$RB_TMP/recycle.txt")"
		fi
	else
		t_skip "rebalance --job: a recycled pid is left alone" "needs root and unshare --pid to recycle a pid"
	fi
fi

# --- watch: a (synthetic) memory online uevent, one burst, one round
RB_UEVENT=$(ls -d /sys/devices/system/memory/memory*/uevent 2>/dev/null | head -n 1)
if [ "$(id -u)" -eq 0 ] && [ -n "$RB_UEVENT" ] && [ -w "$RB_UEVENT" ]; then
	printf 'PID JOBID STEPID LOCALID GLOBALID\n' >"$RB_TMP/listpids"
	rb_scontrol "$MPOLCTL" watch --once --settle 1 --dry-run >"$RB_TMP/watch.out" 2>&1 &
	wpid=$!
	rb_wait_for "$RB_TMP/watch.out" "listening for memory"
	echo online >"$RB_UEVENT"
	echo online >"$RB_UEVENT"
	for i in $(seq 100); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$wpid" 2>/dev/null; then
		kill "$wpid"
		t_fail "watch: one round per burst of hotplug uevents" "still running after 10 s: $(cat "$RB_TMP/watch.out")"
	else
		wait "$wpid"; rc=$?
		[ $rc -eq 0 ] && grep -q "memory hotplug burst: 2 events, 2 memory blocks online" "$RB_TMP/watch.out" &&
			grep -q "no job runs on this node" "$RB_TMP/watch.out" &&
			t_pass "watch: one round per burst of hotplug uevents" ||
			t_fail "watch: one round per burst of hotplug uevents" "exit $rc: $(cat "$RB_TMP/watch.out")"
	fi
else
	t_skip "watch: one round per burst of hotplug uevents" "needs root to send a synthetic memory uevent"
fi

# --- watch when scontrol listpids fails as a whole (a stale step socket): the steps'
# kept placements still name the jobs to rebalance
if [ "$(id -u)" -eq 0 ] && [ -n "$RB_UEVENT" ] && [ -w "$RB_UEVENT" ]; then
	rb_hold kept 64 0
	ksd=$RB_TMP/kept-state
	mkdir -p -m 0700 "$ksd"
	kstart() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
	if [ -n "$RB_PID" ]; then
		printf '{"v":1,"job":93,"step":0,"uid":0,"stepd":{"pid":%d,"start":%s},"spec":"weighted",' \
			"$$" "$(kstart $$)" >"$ksd/step.93.0.json"
		printf '"site_default":false,"site":{"algorithm":"optimal","precision":0.98,"max_weight_sum":72,' >>"$ksd/step.93.0.json"
		printf '"sysfs":"exclusive"},"mem_kb":0,"lease_held":false,"path":"weighted-interleave","note":"",' >>"$ksd/step.93.0.json"
		printf '"launch_free_kb":{},"tasks":[{"pid":%d,"start":%s,"initiator":-1}]}' \
			"$RB_PID" "$(kstart "$RB_PID")" >>"$ksd/step.93.0.json"
		chmod 600 "$ksd/step.93.0.json"
		rm -f "$RB_TMP/listpids"      # the fake scontrol now fails for every listing
		rb_scontrol "$MPOLCTL" watch --once --settle 1 --scan 0 --dry-run --statedir "$ksd" >"$RB_TMP/watch2.out" 2>&1 &
		wpid=$!
		rb_wait_for "$RB_TMP/watch2.out" "listening for memory"
		echo online >"$RB_UEVENT"
		for i in $(seq 100); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
		kill "$wpid" 2>/dev/null
		wait "$wpid"
		if grep -q "cannot list the jobs on this node through scontrol: .*Connection refused; the steps' kept placements name the jobs" "$RB_TMP/watch2.out" &&
			grep -q "running mpolctl rebalance --job 93 " "$RB_TMP/watch2.out"; then
			t_pass "watch: scontrol listpids failing, the kept placements name the jobs to rebalance"
		else
			t_fail "watch: scontrol listpids failing, the kept placements name the jobs to rebalance" "$(cat "$RB_TMP/watch2.out")"
		fi
	else
		t_fail "watch: scontrol listpids failing, the kept placements name the jobs to rebalance" "the holder did not start"
	fi
else
	t_skip "watch: scontrol listpids failing, the kept placements name the jobs to rebalance" "needs root to send a synthetic memory uevent"
fi

for p in "${RB_PIDS[@]}"; do kill "$p" 2>/dev/null; done
wait 2>/dev/null
rm -rf "$RB_TMP"
