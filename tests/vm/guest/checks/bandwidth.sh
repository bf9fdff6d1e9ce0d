#!/bin/sh
# vm-boot: shared
# vm-timeout: 240
# Bandwidth sources in a guest with a real ACPI HMAT: mpolctl reads every initiator x
# target pair QEMU gave (topology.sh) from the raw table, plans scope=all with them;
# `mpolctl calibrate` measures every pair (under TCG the numbers mean nothing: only
# that they are there), writes the table, and plan, show and mpol-launch (the plugin's
# calls) use it with the precedence override > measured > acpi-hmat > sysfs-hmat; a
# table of another machine is refused and HMAT used; calibrate refuses while a step
# runs. Leaves nothing behind (files in /tmp only).
. /checks/lib.sh

for p in mpolctl mpol-launch jq-get; do
	need_prog $p || { fail setup "$p is not in the guest (it did not build)"; exit 0; }
done
get() { jq-get "$1" <"$2" 2>&1; }
mem=$(mem_nodes)
inits=""
for n in $VM_NODES; do [ "$(nth "$n" $VM_NODE_CPUS)" = - ] || inits="$inits $n"; done
STATE=/tmp/bw-state
mkdir -p -m 0700 $STATE
# no site configuration: an empty plugstack file (mpolctl refuses a device such as /dev/null)
: >/tmp/plugstack-empty.conf
NOSITE="--plugstack /tmp/plugstack-empty.conf"

# 1. The raw ACPI HMAT: every pair, each its own number, in show's matrix.
if mpolctl show --json $NOSITE >/tmp/show.json 2>/tmp/show.err; then
	k=0 want="" got=""
	for i in $inits; do for t in $mem; do want="$want $i>$t=$(hmat_bw "$i" "$t"):acpi-hmat"; done; done
	while [ "$k" -lt "$(get '.bandwidth.pairs#' /tmp/show.json)" ]; do
		got="$got $(get ".bandwidth.pairs[$k].initiator" /tmp/show.json)>$(get ".bandwidth.pairs[$k].target" /tmp/show.json)=$(get ".bandwidth.pairs[$k].bandwidth" /tmp/show.json):$(get ".bandwidth.pairs[$k].source" /tmp/show.json)"
		k=$((k + 1))
	done
	expect_eq acpi-pairs "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" "$(echo $got | tr ' ' '\n' | sort | tr '\n' ' ')" \
		"every CPU node x memory node from the raw HMAT"
else
	fail acpi-pairs "mpolctl show failed: $(cat /tmp/show.err)"
fi

# 2. calibrate: every pair measured, a progress line each, the table written.
npairs=$(($(echo $inits | wc -w) * $(echo $mem | wc -w)))
if mpolctl calibrate $NOSITE --statedir $STATE --output /tmp/t.bw --size 8M --repeats 1 --json >/tmp/cal.json 2>/tmp/cal.err; then
	expect_eq calibrate-pairs "$npairs" "$(get '.pairs#' /tmp/cal.json)" "pairs measured"
	expect_eq calibrate-progress "$npairs" "$(grep -c '^calibrate: node[0-9]* -> node[0-9]* (' /tmp/cal.err)" \
		"progress lines on stderr"
	expect_eq calibrate-table "$npairs" "$(grep -c '^measured [0-9]* [0-9]* [1-9][0-9]* [1-9][0-9]*$' /tmp/t.bw)" \
		"measured lines with numbers in the table"
	expect_eq calibrate-identity "machine QEMU" "$(sed -n 's/^\(machine QEMU\).*/\1/p' /tmp/t.bw)" "the table's machine line"
else
	fail calibrate "mpolctl calibrate failed: $(cat /tmp/cal.err)"
fi

# plan_fields ARGS...: "source weights" of socket 0's scope=all plan
plan_fields() {
	mpolctl plan --json $NOSITE --cpus "$(nth 0 $VM_NODE_CPUS)" --scope all "$@" >/tmp/plan.json 2>/tmp/plan.err ||
		{ echo "failed: $(cat /tmp/plan.err)"; return; }
	echo "$(get '.plans[initiator=0].bandwidth_source' /tmp/plan.json) $(get '.plans[initiator=0].weights' /tmp/plan.json)"
}

# 3. Plans follow the table: socket 0's scope=all weights are lib.sh's optimal over
# the measured min(read, write).
if [ -s /tmp/t.bw ]; then
	bws="" nodes=""
	for t in $mem; do
		bws="$bws $(awk -v t="$t" '$1 == "measured" && $2 == 0 && $3 == t { print ($4 < $5 ? $4 : $5) }' /tmp/t.bw)"
	done
	w=$(optimal_weights 0.98 72 $bws)
	seated="" rest=$w
	for x in $(echo "$w" | tr ':' ' '); do [ "$x" = 0 ] || seated="$seated,$x"; done
	expect_eq plan-measured "measured [${seated#,}]" "$(plan_fields --bandwidth /tmp/t.bw)" \
		"socket 0 scope=all plan on the measured table (bandwidths$bws)"
	# precedence: an override for one pair; without the table the raw HMAT; with
	# --max-source sysfs-hmat what the kernel sees
	cp /tmp/t.bw /tmp/o.bw
	echo "override 0 0 999999 999999" >>/tmp/o.bw
	plan_fields --bandwidth /tmp/o.bw >/dev/null
	expect_eq precedence-override "override" "$(get '.plans[initiator=0].sources[0]' /tmp/plan.json)" "node 0's source"
	expect_eq precedence-measured "measured" "$(get '.plans[initiator=0].bandwidth_source' /tmp/plan.json)" \
		"the plan's weakest source"
	w=$(pair_algo_weights optimal 0 $mem | tr ':' ',')
	expect_eq precedence-acpi "acpi-hmat [$w]" "$(plan_fields --bandwidth none)" "no table: the raw HMAT"
	w=$(algo_weights optimal $mem | tr ':' ',')
	expect_eq precedence-sysfs "sysfs-hmat [$w]" "$(plan_fields --bandwidth none --max-source sysfs-hmat)" \
		"sysfs HMAT only: every node by its best initiator"
	# another machine's table: refused with a sentence, the raw HMAT used
	sed 's/^machine .*/machine Dell Inc. \/ PowerEdge R760 \/ 0X1/' /tmp/t.bw >/tmp/f.bw
	got=$(plan_fields --bandwidth /tmp/f.bw)
	w=$(pair_algo_weights optimal 0 $mem | tr ':' ',')
	expect_eq foreign-table-refused "acpi-hmat [$w]" "$got" "a table measured on another machine"
	if grep -q "measured on a 'Dell Inc. / PowerEdge R760 / 0X1', this machine is a 'QEMU" /tmp/plan.json; then
		pass foreign-table-message
	else
		fail foreign-table-message "plan's warnings: $(jq-get .warnings </tmp/plan.json 2>&1)"
	fi
	sed '/^node 2 /d' /tmp/t.bw >/tmp/m.bw
	plan_fields --bandwidth /tmp/m.bw >/dev/null
	if grep -q 'node 2 has memory here but is not in the table' /tmp/plan.json; then
		pass missing-node-refused
	else
		fail missing-node-refused "plan's warnings: $(jq-get .warnings </tmp/plan.json 2>&1)"
	fi
	# the plugin's calls (mpol-launch --bandwidth resolves as slurmstepd does)
	mpol-launch --cpus "$(nth 0 $VM_NODE_CPUS)" --spec weighted,scope=all --bandwidth /tmp/t.bw -- true \
		>/tmp/launch.out 2>&1
	expect_eq launch-measured "measured" "$(sed -n 's/^launch:.* bw=\([^ ]*\).*/\1/p' /tmp/launch.out)" \
		"the source the plugin's plan rests on: $(cat /tmp/launch.out)"
	mpol-launch --cpus "$(nth 0 $VM_NODE_CPUS)" --spec weighted,scope=all --bandwidth /tmp/f.bw -- true \
		>/tmp/launch.out 2>&1
	expect_eq launch-foreign "acpi-hmat" "$(sed -n 's/^launch:.* bw=\([^ ]*\).*/\1/p' /tmp/launch.out)" \
		"a foreign table refused by the plugin's calls too: $(cat /tmp/launch.out)"
fi

# 4. bench/stream's program: every placement measured, the ratios printed, and the
# weights it wrote for the weighted ones restored.
if need_prog stream-bench; then
	before=$(wi_snapshot)
	stream-bench -c "$(nth 0 $VM_NODE_CPUS)" -s all -b none -m 8 -r 1 -n 1 >/tmp/stream.out 2>&1
	rc=$?
	if [ ! -d $WI ]; then
		want="local interleave"
	else
		want="local interleave kernel ours ours/local ours/kernel"
	fi
	got=$(awk '/^placement/ { on = 1; next } on && NF == 3 { printf "%s%s", sep, $1; sep = " " }' /tmp/stream.out)
	expect_eq stream-placements "0 $want" "$rc $got" "bench/stream's rows: $(tr '\n' '|' </tmp/stream.out)"
	expect_eq stream-weights-restored "$before" "$(wi_snapshot)" "the weights table after bench/stream"
else
	fail stream-placements "stream-bench is not in the guest (it did not build)"
fi

# 5. calibrate refuses while a step runs (a kept placement whose holder lives).
read -r _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ start _ </proc/$$/stat
printf '{"v":1,"job":5,"step":0,"uid":0,"stepd":{"pid":%d,"start":%s},"spec":"weighted","site_default":false,"site":{"algorithm":"optimal","precision":0.98,"max_weight_sum":72,"sysfs":"exclusive"},"mem_kb":0,"lease_held":false,"path":"weighted-interleave","note":"","launch_free_kb":{},"tasks":[]}\n' \
	$$ "$start" >$STATE/step.5.0.json
mpolctl calibrate $NOSITE --statedir $STATE --no-write --size 8M --repeats 1 >/tmp/busy.out 2>&1
rc=$?
if [ $rc = 1 ] && grep -q 'job steps run on this node (job 5 step 0)' /tmp/busy.out; then
	pass calibrate-refuses-while-a-step-runs
else
	fail calibrate-refuses-while-a-step-runs "exit $rc: $(cat /tmp/busy.out)"
fi
rm -rf $STATE /tmp/t.bw /tmp/o.bw /tmp/f.bw /tmp/m.bw
