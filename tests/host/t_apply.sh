# t_apply.sh - setting a task's policy on this kernel (sourced by tests/host/run):
# the plugin's libsmpol path through the launcher, the interleave fallback with an
# old kernel's answer injected (a private mount hides the weighted-interleave sysfs),
# strict refusing it, and `mpolctl apply --system`.

LAUNCH=$MPOL_BUILD/tests/host/mpol-launch
WI=/sys/kernel/mm/mempolicy/weighted_interleave
POLICY='sed -n "1{s/^[0-9a-f]* //;s/ \(file=\|anon=\|heap\|stack\|mapped=\|N[0-9]\|kernelpagesize_kB=\).*//;p;q}" /proc/self/numa_maps'
SHOWPOL="echo mode=\$SLURM_MEM_INTERLEAVE_MODE nodes=\$SLURM_MEM_INTERLEAVE_NODES weights=\$SLURM_MEM_INTERLEAVE_WEIGHTS policy=\$($POLICY)"

# launch SPEC: run the launcher with SPEC; sets OUT and RC.
launch() { OUT=$("$LAUNCH" --spec "$1" -- sh -c "$SHOWPOL" 2>&1); RC=$?; }

# old_kernel CMD...: CMD where /sys/kernel/mm/mempolicy looks like Linux 6.1's (empty).
old_kernel() {
	local empty rc
	empty=$(mktemp -d)
	unshare -m sh -c 'mount --bind "$1" /sys/kernel/mm/mempolicy && shift && exec "$@"' sh "$empty" "$@"
	rc=$?
	rmdir "$empty"
	return $rc
}

if [ ! -x "$LAUNCH" ]; then
	t_fail "apply: launcher" "$LAUNCH is missing (build first)"
else
	if [ -d "$WI" ]; then
		launch weighted
		t_expect_match "weighted: numa_maps shows weighted interleave on node 0" \
			'mode=weighted nodes=0 weights=[0-9]+ policy=weighted interleave:0$' "$OUT"
		launch auto
		t_expect_match "auto: weighted interleave with the kernel's weights" \
			"mode=auto nodes=0 weights=$(cat "$WI/node0") policy=weighted interleave:0\$" "$OUT"
	else
		t_skip "weighted and auto on this kernel" "no $WI: this kernel has no weighted interleave"
	fi
	launch interleave
	t_expect_match "interleave: numa_maps shows interleave" "mode=interleave nodes=0 weights=[0-9]+ policy=interleave:0\$" "$OUT"
	launch none
	t_expect_match "none: default policy" 'policy=default$' "$OUT"
	launch weighted,nodes=5
	if [ $RC -eq 1 ] && grep -q '^mpol-launch: .*5' <<<"$OUT"; then
		t_pass "a node this machine lacks is refused naming it"
	else
		t_fail "a node this machine lacks is refused naming it" "exit $RC: $OUT"
	fi

	if ! command -v unshare >/dev/null || ! old_kernel true 2>/dev/null; then
		t_skip "old-kernel fallback" "cannot make a private mount here (unshare -m as root)"
	else
		OUT=$(old_kernel "$LAUNCH" --spec weighted -- sh -c "$SHOWPOL" 2>&1)
		t_expect_match "old kernel: weighted is planned as plain interleave, and says why" \
			'path=interleave mode=interleave .*fell_back=0 note=this kernel has no weighted interleave \(needs Linux 6.9\): plain interleave over the same nodes' "$OUT"
		t_expect_match "old kernel: the task says interleave and gets it" \
			"mode=interleave nodes=0 weights=[0-9]+ policy=interleave:0\$" "$OUT"
		OUT=$(old_kernel "$LAUNCH" --spec weighted,strict -- sh -c 'echo RAN' 2>&1)
		RC=$?
		if [ $RC -eq 1 ] && ! grep -q RAN <<<"$OUT" &&
			grep -qx 'mpol-launch: strict: this kernel has no weighted interleave (needs Linux 6.9); not falling back to interleave' <<<"$OUT"; then
			t_pass "old kernel: strict fails before the program runs"
		else
			t_fail "old kernel: strict fails before the program runs" "exit $RC: $OUT"
		fi
		OUT=$(old_kernel "$LAUNCH" --spec interleave,strict -- sh -c "$SHOWPOL" 2>&1)
		t_expect_match "old kernel: interleave,strict needs no weights" "policy=interleave:0\$" "$OUT"
	fi
fi

# mpolctl apply --system on a copy of a 7.3 guest's sysfs (HMAT, 3 memory nodes).
fixture=$here/../fixtures/linux-7.3-boot
if [ ! -d "$fixture/sys" ]; then
	t_fail "apply --system on a captured tree" "fixture $fixture is missing"
else
	tree=$(mktemp -d)
	cp -a "$fixture/sys" "$tree/"
	before=$(cat "$tree$WI"/node* "$tree$WI/auto" | tr '\n' ' ')
	dry=$("$MPOLCTL" apply --system --dry-run --fsroot "$tree" --statedir "$tree/state" 2>&1)
	t_expect_match "apply --dry-run lists every memory node" 'node0 .*->.*node1 .*->.*node2 .*->' "$(tr '\n' ' ' <<<"$dry")"
	t_expect_match "apply --dry-run writes nothing" "^$before\$" "$(cat "$tree$WI"/node* "$tree$WI/auto" | tr '\n' ' ')"
	out=$("$MPOLCTL" apply --system --fsroot "$tree" --statedir "$tree/state" 2>&1)
	rc=$?
	ok=$rc
	for n in 0 1 2; do
		want=$(sed -n "s/^  node$n *[0-9]* -> //p" <<<"$dry")
		[ "$(cat "$tree$WI/node$n")" = "$want" ] || ok=1
	done
	if [ $ok -eq 0 ]; then t_pass "apply --system writes what --dry-run showed"; else t_fail "apply --system writes what --dry-run showed" "exit $rc: $out; now $(cat "$tree$WI"/node* | tr '\n' ' ')"; fi
	out=$("$MPOLCTL" apply --system --auto --fsroot "$tree" --statedir "$tree/state" 2>&1)
	t_expect_match "apply --system --auto turns auto back on" '^true$' "$(cat "$tree$WI/auto")"
	rm -rf "$tree"
fi

# Bad arguments exit 2 with a message; an old kernel has nothing to apply.
out=$("$MPOLCTL" apply 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q -- '--system' <<<"$out"; then t_pass "apply without --system is a usage error"; else t_fail "apply without --system is a usage error" "exit $rc: $out"; fi
out=$("$MPOLCTL" apply --system --bogus 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q -- "--bogus" <<<"$out"; then t_pass "apply --bogus is a usage error"; else t_fail "apply --bogus is a usage error" "exit $rc: $out"; fi
old=$here/../fixtures/linux-6.1-boot
if [ -d "$old/sys" ]; then
	out=$("$MPOLCTL" apply --system --fsroot "$old" --statedir "$(mktemp -d)" 2>&1); rc=$?
	if [ $rc -eq 1 ] && grep -q 'needs Linux 6.9' <<<"$out"; then t_pass "apply on a 6.1 tree says there are no weights"; else t_fail "apply on a 6.1 tree says there are no weights" "exit $rc: $out"; fi
fi

# The host's auto file: writing true without HMAT data gives ENODEV, reported, nothing changed.
auto=$(ls "$WI" 2>/dev/null | grep -E '^(auto|__auto_type)$')
if [ -z "$auto" ]; then
	t_skip "apply --auto on this kernel" "no auto file in $WI (before 6.16)"
else
	node0=$(cat "$WI/node0") was=$(cat "$WI/$auto")
	sd=$(mktemp -d)
	out=$("$MPOLCTL" apply --system --auto --statedir "$sd" 2>&1); rc=$?
	now=$(cat "$WI/$auto")
	if [ $rc -eq 1 ] && grep -q 'ENODEV' <<<"$out"; then
		if [ "$now" = "$was" ] && [ "$(cat "$WI/node0")" = "$node0" ]; then t_pass "apply --auto: ENODEV reported, nothing changed"; else t_fail "apply --auto: ENODEV reported, nothing changed" "auto $was -> $now"; fi
	elif [ $rc -eq 0 ] && [ "$now" = true ]; then
		t_pass "apply --auto: this kernel has bandwidth data and took auto=true"
	else
		t_fail "apply --auto on this kernel" "exit $rc: $out"
	fi
	# Put the host back as it was (writing a node turns auto off).
	[ "$was" = true ] || [ "$now" = false ] || echo "$node0" >"$WI/node0"
	rm -rf "$sd"
fi
