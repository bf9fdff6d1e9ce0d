# t_plugin_85_statedir.sh - no local user can stall a job through the state directory,
# and no lock is waited for without bound: the directory is root's (0700, files 0600),
# the unprivileged $TEST_USER cannot open (so cannot flock) its locks, a directory a
# user made first is refused and never taken over, a read-only one is named as such, and
# a lock held by a stuck root process delays a step by lock_timeout at most, after
# which the step runs without what the lock guards and says so.

before=$(wi_node0)
during="cat $WI_DIR/node0 | sed 's/^/during=/'; $SHOW"
w=5
[ "$before" != $w ] || w=6
sd_tmp=$MPOL_CLUSTER_DIR/statedir-tests
# a state directory of its own that the plugin makes now, never one an earlier run left
sd_state=$sd_tmp/state
rm -rf "$sd_tmp"
mkdir -p "$sd_tmp"
chmod 755 "$sd_tmp"

# hold_lock FILE: a (stuck) root process holds FILE's flock; $holder is that process, so
# killing it frees the lock (flock(1) would leave its child holding it).
hold_lock() {
	(exec 8>>"$1" && flock -x 8 && exec sleep 120) &
	holder=$!
	wait_until 5 sh -c "! flock -n '$1' true"
}

# sd_step NAME STATEDIR_NOTE_REGEX LOG_REGEX: a one-task job asking for weights=0:$w ran,
# on the node's weights (nothing written), its note and slurmd's log saying why.
sd_step() {
	local name=$1 note_re=$2 log_re=$3 mark task
	mark=$(log_mark "$SLURMD_LOG")
	run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:$w \
		sh -c "$during; echo \"note=\$SLURM_MEM_INTERLEAVE_NOTE\""
	task=$(grep '^task ' <<<"$OUT")
	if [ $RC -ne 0 ] || [ -z "$task" ]; then
		t_fail "$name: the job runs" "exit $RC: $OUT"
	elif ! grep -q "^during=$before\$" <<<"$OUT" || [ "$(field "$task" weights)" != "$before" ]; then
		t_fail "$name: the step runs on the node's weights ($before), nothing written" "$OUT"
	else
		t_pass "$name: the job runs on the node's weights ($before), nothing written"
	fi
	t_expect_match "$name: the task's SLURM_MEM_INTERLEAVE_NOTE says why" "$note_re" "$(grep '^note=' <<<"$OUT")"
	t_expect_match "$name: slurmd's log says why" "$log_re" "$(log_since "$SLURMD_LOG" "$mark" | grep 'mem_interleave: ')"
}

if [ -z "$before" ]; then
	t_fail "state directory" "$WI_DIR/node0 is missing: this kernel has no weighted interleave"
elif ! id "$TEST_USER" >/dev/null 2>&1; then
	t_fail "state directory" "the test user $TEST_USER does not exist (cluster.sh start makes it)"
else
	# --- a state directory made by a step that took the lease: root's alone
	plugstack sysfs=always "statedir=$sd_state"
	run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted,weights=0:$w true
	perms=$(stat -c '%U %a' "$sd_state" 2>&1)
	if [ $RC -eq 0 ] && [ "$perms" = "root 700" ]; then
		t_pass "the state directory is root's, mode 0700"
	else
		t_fail "the state directory is root's, mode 0700" "exit $RC, $sd_state: $perms: $OUT"
	fi
	loose=$(find "$sd_state" -mindepth 1 \( ! -user root -o -perm /077 \) -printf '%p %u %m\n' 2>&1)
	if [ -e "$sd_state/lock" ] && [ -z "$loose" ]; then
		t_pass "every file in it is root's, mode 0600 ($(cd "$sd_state" && echo *))"
	else
		t_fail "every file in it is root's, mode 0600" "lock: $(ls -l "$sd_state/lock" 2>&1); loose: $loose"
	fi

	# --- the attack of the issue: $TEST_USER flocks the record lock and the lease lock
	for lk in record.lock lock; do
		: >>"$sd_state/$lk"
		out=$("${AS_USER[@]}" timeout 10 flock -x -w 1 "$sd_state/$lk" true 2>&1)
		rc=$?
		if [ $rc -ne 0 ] && grep -q 'Permission denied' <<<"$out"; then
			t_pass "$TEST_USER cannot open $lk to hold it (flock: Permission denied)"
		else
			t_fail "$TEST_USER cannot open $lk to hold it" "flock exit $rc: $out"
		fi
	done
	# and the job it would have stalled runs (bounded by JOB_TIMEOUT like every job)
	"${AS_USER[@]}" flock -x "$sd_state/record.lock" sleep 40 >/dev/null 2>&1 &
	attacker=$!
	run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted "$SHOW"
	check_task "with $TEST_USER trying to hold the record lock, a weighted job runs" "$OUT" weighted '^weighted interleave:0$'
	if wait_until 5 sh -c "! kill -0 $attacker"; then
		t_pass "$TEST_USER's flock gave up at once: it cannot open the lock"
	else
		t_fail "$TEST_USER's flock gave up at once: it cannot open the lock" "it still runs (holding the lock?)"
		kill "$attacker" 2>/dev/null
	fi
	wait "$attacker" 2>/dev/null

	# --- a stuck root process holds the lease lock: the step waits lock_timeout (1 s)
	# at most, then runs on the node's weights and says so
	plugstack sysfs=always lock_timeout=1 "statedir=$sd_state"
	hold_lock "$sd_state/lock"
	sd_step "lease lock held" "another process held it for longer than 1\\.000 s" \
		"weights not written: cannot lock $sd_state/lock: another process held it for longer than 1\\.000 s"
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	t_expect_match "lease lock held: node0 is still $before" "^$before\$" "$(wi_node0)"

	# --- the record lock held: the record is written without it, said in slurmd's log
	plugstack lock_timeout=1 "statedir=$sd_state"
	hold_lock "$sd_state/record.lock"
	mark=$(log_mark "$SLURMD_LOG")
	run_job srun -N 1 -w "$HOST" -n 1 --mem-interleave=weighted "$SHOW"
	check_task "record lock held: the job runs" "$OUT" weighted '^weighted interleave:0$'
	if wait_until 20 sh -c "tail -c +$((mark + 1)) '$SLURMD_LOG' | grep -q 'cannot lock $sd_state/record.lock: another process held it for longer than 1.000 s (lock_timeout=).*; the record is written without it'"; then
		t_pass "record lock held: slurmd's log says the record is written without it"
	else
		t_fail "record lock held: slurmd's log says the record is written without it" \
			"$(log_since "$SLURMD_LOG" "$mark" | grep mem_interleave | tail -n 4)"
	fi
	# a two-node step's collector, without the lock, no longer counts as the only
	# writer: this node's other steps may race it, so it confirms twice (3 reads or
	# more; the only writer reads its write back once: 2)
	first=$(first_node)
	first_log=$MPOL_CLUSTER_DIR/log/slurmd-$first.log
	mark=$(log_mark "$first_log")
	run_job srun -N 2 -n 2 --mem-interleave=weighted bash -c '[ "$SLURM_PROCID" = 0 ] && echo JOB=$SLURM_JOB_ID; exit 0'
	said=$(log_since "$first_log" "$mark" | grep -F "job $(acct_job "$OUT") step 0: placement record of 2 node(s) written by the step's collector")
	if [ $RC -eq 0 ] && grep -q '([3-9] reads, ' <<<"$said"; then
		t_pass "record lock held: a two-node step's collector confirms its write"
	else
		t_fail "record lock held: a two-node step's collector confirms its write" "exit $RC ($OUT); $first: $said"
	fi
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null

	# --- a state directory a user made first (a plausible path in /tmp): refused, never
	# taken over, nothing written into it
	userdir=/tmp/mpol-userstate-$$
	rm -rf "$userdir"
	"${AS_USER[@]}" mkdir -m 0755 "$userdir"
	plugstack sysfs=always "statedir=$userdir"
	sd_step "a state directory $TEST_USER made" "belongs to uid $(id -u "$TEST_USER"), not to uid 0" \
		"state directory $userdir belongs to uid $(id -u "$TEST_USER")"
	if [ "$(stat -c '%U %a' "$userdir")" = "$TEST_USER 755" ] && [ -z "$(ls -A "$userdir")" ]; then
		t_pass "a state directory $TEST_USER made: left as it was, nothing written into it"
	else
		t_fail "a state directory $TEST_USER made: left as it was, nothing written into it" "$(ls -la "$userdir")"
	fi
	rm -rf "$userdir"

	# --- a symbolic link at the path: refused, never followed
	mkdir -m 0700 "$sd_tmp/target"
	ln -s "$sd_tmp/target" "$sd_tmp/link"
	plugstack sysfs=always "statedir=$sd_tmp/link"
	sd_step "a state directory that is a symbolic link" "is a symbolic link: it is refused, never followed" \
		"$sd_tmp/link is a symbolic link"
	if [ -z "$(ls -A "$sd_tmp/target")" ]; then
		t_pass "a state directory that is a symbolic link: its target is untouched"
	else
		t_fail "a state directory that is a symbolic link: its target is untouched" "$(ls -la "$sd_tmp/target")"
	fi

	# --- a read-only file system: said so, not "No such file or directory"
	mkdir -p "$sd_tmp/ro"
	if mount -t tmpfs -o ro,mode=0700 mpol-ro "$sd_tmp/ro" 2>/dev/null; then
		plugstack sysfs=always "statedir=$sd_tmp/ro"
		sd_step "a read-only state directory" "the file system is read-only; give statedir=" \
			"cannot open $sd_tmp/ro/lock: the file system is read-only"
		umount "$sd_tmp/ro"
	else
		t_skip "a read-only state directory" "cannot mount a read-only tmpfs here (mount -t tmpfs -o ro)"
	fi
	plugstack
	t_expect_match "after the state directory tests node0 is $before" "^$before\$" "$(wi_node0)"
fi
rm -rf "$sd_tmp"
