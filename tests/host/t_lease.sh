# t_lease.sh - the weights lease on this host's real sysfs (sourced by tests/host/run):
# a step's weights written and restored exactly (auto left as it was), a holder killed
# with SIGKILL and recovered, a live holder refused, a malformed journal left alone,
# and auto=true refused with ENODEV reported, not fatal. The host's table is put back
# whatever happens.

LAUNCH=$MPOL_BUILD/tests/host/mpol-launch
WI=/sys/kernel/mm/mempolicy/weighted_interleave
AUTO=$(ls "$WI" 2>/dev/null | grep -E '^(auto|__auto_type)$')

wi_state() { (cd "$WI" && for f in *; do printf '%s=%s ' "$f" "$(cat "$f")"; done); }
wi_nodes() { (cd "$WI" && for f in node*; do printf '%s=%s ' "$f" "$(cat "$f")"; done); }

# wi_restored NODES AUTO: the node weights are exactly NODES and auto is AUTO again --
# except where auto was on and this kernel refuses auto=true (ENODEV: no HMAT
# bandwidth data, as on a VM host): writing any node turns auto off for good there, and
# the restore can only report it. A kernel that takes auto=true must have it back.
wi_restored() {
	local now
	[ "$(wi_nodes)" = "$1" ] || return 1
	[ -n "$AUTO" ] || return 0
	now=$(cat "$WI/$AUTO")
	[ "$now" = "$2" ] && return 0
	[ "$2" = true ] && ! echo true 2>/dev/null >"$WI/$AUTO"
}

if [ ! -f "$WI/node0" ]; then
	t_skip "weights lease on this host" "no $WI/node0: this kernel has no weighted interleave"
elif [ ! -x "$LAUNCH" ]; then
	t_fail "weights lease on this host" "$LAUNCH is missing (build first)"
else
	SD=$(mktemp -d)
	orig=$(wi_state)
	orig_nodes=$(wi_nodes)
	orig_auto=$([ -z "$AUTO" ] || cat "$WI/$AUTO")
	node0=$(cat "$WI/node0")
	w=$((node0 % 200 + 7))           # a weight that differs from the current one

	# A step's lease: node0 shows the step's weight while it runs, then exactly what was.
	# What cat printed is the last line of stdout; the launcher's warnings (auto=true
	# refused with ENODEV on a kernel that starts with auto on) go to stderr.
	OUT=$("$LAUNCH" --lease "$SD" --spec "weighted,weights=0:$w" -- cat "$WI/node0" 2>"$SD/launch.err")
	got=$(tail -n 1 <<<"$OUT")
	[ "$got" = "$w" ] && t_pass "lease: node0 is $w while the step runs" ||
		t_fail "lease: node0 is $w while the step runs" "cat printed '$got'; stderr: $(cat "$SD/launch.err")"
	if wi_restored "$orig_nodes" "$orig_auto"; then
		t_pass "lease: the table is restored exactly after"
	else
		t_fail "lease: the table is restored exactly after" "was $orig, now $(wi_state)"
	fi
	[ -e "$SD/weights.journal" ] && t_fail "lease: no journal left" "$(cat "$SD/weights.journal")" || t_pass "lease: no journal left"

	# SIGKILL the holder: weights and journal stay; recover puts the table back.
	"$LAUNCH" --lease "$SD" --spec "weighted,weights=0:$w" -- sleep 30 >/dev/null 2>&1 &
	holder=$!
	for _ in $(seq 50); do [ "$(cat "$WI/node0")" = "$w" ] && break; sleep 0.1; done
	out=$("$MPOLCTL" recover --statedir "$SD" 2>&1); rc=$?
	if [ $rc -eq 1 ] && grep -q 'still running' <<<"$out" && [ "$(cat "$WI/node0")" = "$w" ]; then
		t_pass "recover refuses a live holder and changes nothing"
	else
		t_fail "recover refuses a live holder and changes nothing" "exit $rc: $out"
	fi
	out=$("$MPOLCTL" apply --system --statedir "$SD" 2>&1); rc=$?
	if [ $rc -eq 1 ] && grep -q 'holds the weights' <<<"$out"; then
		t_pass "apply --system refuses while a step holds the weights"
	else
		t_fail "apply --system refuses while a step holds the weights" "exit $rc: $out"
	fi
	child=$(pgrep -P $holder)
	kill -KILL $holder
	wait $holder 2>/dev/null
	[ -z "$child" ] || kill $child 2>/dev/null
	if [ "$(cat "$WI/node0")" = "$w" ] && [ -s "$SD/weights.journal" ]; then
		t_pass "SIGKILL: the dead step's weights and journal stay"
	else
		t_fail "SIGKILL: the dead step's weights and journal stay" "node0=$(cat "$WI/node0")"
	fi
	out=$("$MPOLCTL" recover --statedir "$SD" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q 'restored the weights journaled by job 1 step 0 .*no longer running' <<<"$out" &&
		wi_restored "$orig_nodes" "$orig_auto" && [ ! -e "$SD/weights.journal" ]; then
		t_pass "recover restores the dead step's journal and says what"
	else
		t_fail "recover restores the dead step's journal and says what" "exit $rc: $out; now $(wi_state)"
	fi
	out=$("$MPOLCTL" recover --statedir "$SD" 2>&1)
	t_expect_match "recover with nothing to do says so" '^nothing to recover' "$out"

	# A malformed journal: a clear error, nothing changed, the file kept for a human.
	printf 'slurm-mempolicy lease v1\nowner job=9 step=0 uid=0 pid=1 start=1\nsaved auto=0 0:x\n' >"$SD/weights.journal"
	pre=$(wi_state)
	out=$("$MPOLCTL" recover --statedir "$SD" 2>&1); rc=$?
	if [ $rc -eq 1 ] && grep -q 'malformed' <<<"$out" && [ -s "$SD/weights.journal" ] && [ "$(wi_state)" = "$pre" ]; then
		t_pass "recover: a malformed journal is reported, nothing changed"
	else
		t_fail "recover: a malformed journal is reported, nothing changed" "exit $rc: $out"
	fi
	rm -f "$SD/weights.journal"

	# A journal that had auto on, restored on a kernel without bandwidth data.
	if [ -n "$AUTO" ]; then
		printf 'slurm-mempolicy lease v1\nowner job=9 step=0 uid=0 pid=%d start=1\nsaved auto=1 0:%d\n' \
			"$(sh -c 'echo $$')" "$node0" >"$SD/weights.journal"
		echo "$w" >"$WI/node0"
		out=$("$MPOLCTL" recover --statedir "$SD" 2>&1); rc=$?
		now_auto=$(cat "$WI/$AUTO")
		if [ $rc -eq 0 ] && [ "$(cat "$WI/node0")" = "$node0" ] &&
			{ grep -q '^note: .*ENODEV' <<<"$out" || [ "$now_auto" = true ]; }; then
			t_pass "recover: node0 restored; auto=true refused (ENODEV) is a note, not a failure"
		else
			t_fail "recover: node0 restored; auto=true refused (ENODEV) is a note, not a failure" "exit $rc: $out"
		fi
	else
		t_skip "auto restore" "this kernel has no auto file"
	fi

	# Whatever happened above, leave the host as it was.
	echo "$node0" >"$WI/node0"
	[ "$orig_auto" != true ] || echo true >"$WI/$AUTO" 2>/dev/null
	wi_restored "$orig_nodes" "$orig_auto" || t_fail "host table left as found" "was $orig, now $(wi_state)"
	rm -rf "$SD"
fi
