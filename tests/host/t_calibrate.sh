# t_calibrate.sh - `mpolctl calibrate` on this machine (sourced by tests/host/run): it
# measures every CPU node x memory node pair, writes a table that plan then uses
# (source "measured"), keeps an admin's override lines, refuses while a step runs
# (unless --force) and refuses --fsroot. The numbers themselves are not judged here
# (a shared VM's are noise); only that they are there and positive. Small arrays and
# one repeat keep it to seconds.

TK_TMP=$(mktemp -d)
TK_ARGS=(--size 16M --repeats 1 --plugstack "$TK_TMP/plugstack.conf" --statedir "$TK_TMP/state")
mkdir -m 0700 "$TK_TMP/state"
: >"$TK_TMP/plugstack.conf"   # no line: the plugin's defaults, not this host's line

if [ ! -x "$MPOLCTL" ]; then
	t_fail "calibrate: mpolctl" "$MPOLCTL is missing (build first)"
else
	pairs=$("$MPOLCTL" show --json 2>/dev/null |
		jq '([.nodes[] | select(.has_cpu)] | length) * ([.nodes[] | select(.has_memory)] | length)')
	"$MPOLCTL" calibrate "${TK_ARGS[@]}" --output "$TK_TMP/t.bw" --json >"$TK_TMP/out.json" 2>"$TK_TMP/err"
	rc=$?
	if [ $rc = 0 ] && jq -e --argjson n "$pairs" '(.pairs | length) == $n and
		all(.pairs[]; .median.read > 0 and .median.write > 0 and .median.copy > 0 and .median.triad > 0)' \
		"$TK_TMP/out.json" >/dev/null; then
		t_pass "calibrate: all $pairs pair(s) measured, every pass positive"
	else
		t_fail "calibrate: measures every pair" "exit $rc: $(cat "$TK_TMP/err") $(head -c 300 "$TK_TMP/out.json")"
	fi
	[ "$(grep -c '^calibrate: node[0-9]* -> node[0-9]* (' "$TK_TMP/err")" = "$pairs" ] &&
		t_pass "calibrate: one progress line per pair on stderr" ||
		t_fail "calibrate: one progress line per pair" "$(cat "$TK_TMP/err")"
	t_expect_match "calibrate: the table is written" '^measured 0 0 [1-9][0-9]* [1-9][0-9]*$' "$(cat "$TK_TMP/t.bw" 2>&1)"
	out=$("$MPOLCTL" plan --json --bandwidth "$TK_TMP/t.bw" --plugstack "$TK_TMP/plugstack.conf" 2>&1)
	t_expect_match "calibrate: plan uses the table (source measured)" '"bandwidth_source":"measured"' \
		"$(jq -c '.plans[0]' <<<"$out" 2>&1)"

	# an admin's override survives a new measurement
	echo "override 0 0 12345 12345" >>"$TK_TMP/t.bw"
	"$MPOLCTL" calibrate "${TK_ARGS[@]}" --output "$TK_TMP/t.bw" >"$TK_TMP/out" 2>&1
	t_expect_match "calibrate: override lines are kept" '^override 0 0 12345 12345$' "$(cat "$TK_TMP/t.bw")"
	t_expect_match "calibrate: it says so" 'wrote .* \(1 override line kept\)' "$(cat "$TK_TMP/out")"
	out=$("$MPOLCTL" show --json --bandwidth "$TK_TMP/t.bw" --plugstack "$TK_TMP/plugstack.conf" 2>&1)
	t_expect_match "calibrate: show gives the override its precedence" \
		'"initiator":0,"target":0,"read":12345,"write":12345,"bandwidth":12345,"source":"override"' \
		"$(jq -c '.bandwidth.pairs[]' <<<"$out" 2>&1)"

	# a table of another machine is refused, with a sentence, and HMAT is used
	sed 's/^node 0 cpus=[^ ]*/node 0 cpus=0-4095/' "$TK_TMP/t.bw" >"$TK_TMP/foreign.bw"
	out=$("$MPOLCTL" plan --bandwidth "$TK_TMP/foreign.bw" --plugstack "$TK_TMP/plugstack.conf" 2>&1)
	t_expect_match "calibrate: a foreign table is refused" \
		'warning: node 0 has other CPUs here than where the table was measured; HMAT is used instead' "$out"

	# a running step (a kept placement whose holder is this shell) stops it; --force runs
	printf '{"v":1,"job":5,"step":0,"uid":0,"stepd":{"pid":%d,"start":%s},"spec":"weighted","site_default":false,"site":{"algorithm":"optimal","precision":0.98,"max_weight_sum":72,"sysfs":"exclusive"},"mem_kb":0,"lease_held":false,"path":"weighted-interleave","note":"","launch_free_kb":{},"tasks":[]}\n' \
		"$$" "$(cut -d' ' -f22 /proc/$$/stat)" >"$TK_TMP/state/step.5.0.json"
	out=$("$MPOLCTL" calibrate "${TK_ARGS[@]}" --no-write 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -q 'job steps run on this node (job 5 step 0)' <<<"$out" &&
		t_pass "calibrate: refused while a step runs" || t_fail "calibrate: refused while a step runs" "exit $rc: $out"
	out=$("$MPOLCTL" calibrate "${TK_ARGS[@]}" --no-write --force 2>&1)
	rc=$?
	[ $rc = 0 ] && grep -q 'nothing written (--no-write)' <<<"$out" &&
		t_pass "calibrate: --force measures anyway" || t_fail "calibrate: --force" "exit $rc: $out"
	rm -f "$TK_TMP/state/step.5.0.json"

	out=$("$MPOLCTL" calibrate --fsroot /tmp --no-write 2>&1)
	[ $? = 2 ] && grep -q 'it measures this machine' <<<"$out" && t_pass "calibrate: --fsroot refused" ||
		t_fail "calibrate: --fsroot refused" "$out"
	out=$("$MPOLCTL" calibrate --output relative.bw 2>&1)
	[ $? = 2 ] && t_pass "calibrate: a relative --output refused" || t_fail "calibrate: relative --output" "$out"
	out=$("$MPOLCTL" calibrate --repeats 0 2>&1)
	[ $? = 2 ] && t_pass "calibrate: --repeats 0 refused" || t_fail "calibrate: --repeats 0" "$out"
fi
rm -rf "$TK_TMP"
