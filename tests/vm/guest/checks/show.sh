#!/bin/sh
# vm-boot: shared
# vm-timeout: 60
# mpolctl show --json against what QEMU was given (topology.sh) and what the
# guest kernel's own sysfs says: HMAT numbers, memory-only nodes, kinds, tiers and
# the weighted-interleave state.
. /checks/lib.sh

need_prog mpolctl || { fail runs "mpolctl is not in the guest"; exit 0; }
if ! mpolctl show --json >/tmp/show.json 2>/tmp/show.err; then
	fail runs "mpolctl show --json failed: $(cat /tmp/show.err)"
	exit 0
fi
if ! jq-get '.nodes#' </tmp/show.json >/dev/null 2>/tmp/show.err; then
	fail runs "mpolctl show --json printed no node list: $(cat /tmp/show.err) $(head -c 300 /tmp/show.json)"
	exit 0
fi
pass runs
get() { jq-get "$1" </tmp/show.json 2>&1; }

# HMAT access class 1 of every node with memory at boot: the numbers of its initiator.
for n in $VM_NODES; do
	[ "$(nth "$n" $VM_NODE_MEM_MB)" -gt 0 ] || continue
	ini=$(nth "$n" $VM_NODE_INITIATOR)
	bw=$(hmat_bw "$ini" "$n") lat=$(hmat_lat "$ini" "$n")
	got="$(get ".nodes[id=$n].access[class=1].read_bandwidth")/$(get ".nodes[id=$n].access[class=1].write_bandwidth")"
	got="$got $(get ".nodes[id=$n].access[class=1].read_latency")/$(get ".nodes[id=$n].access[class=1].write_latency")"
	expect_eq "hmat-node$n" "$bw/$bw $lat/$lat" "$got" "node$n bandwidth/latency"
done

# Memory-only nodes: CPU-less with memory (node2); the empty hot-plug node has none.
expect_eq memory-only-node2 "false true" "$(get '.nodes[id=2].has_cpu') $(get '.nodes[id=2].has_memory')" \
	"node2 has_cpu has_memory"
# The hot-plug node: listed without memory when online, not listed when not online;
# a failed query of an online node is a failure, not a pass.
hp=$VM_HOTPLUG_NODE
read -r online <$NODES/online
if got=$(jq-get ".nodes[id=$hp].has_memory" </tmp/show.json 2>/tmp/hp.err); then
	expect_eq "empty-node$hp" false "$got" "node$hp has_memory"
elif in_list "$hp" "$online"; then
	fail "empty-node$hp" "node$hp is online ($online) but mpolctl show --json has no entry for it: $(cat /tmp/hp.err)"
elif [ "$(get '.nodes#')" -gt 0 ] 2>/dev/null; then
	pass "empty-node$hp"   # not online at boot ($online), so not listed
else
	fail "empty-node$hp" "no node list to look in: $(get '.nodes#')"
fi
expect_eq kinds "DRAM DRAM CXL" "$(get '.nodes[id=0].kind') $(get '.nodes[id=1].kind') $(get '.nodes[id=2].kind')" \
	"kinds of nodes 0 1 2"

# Tiers: what the kernel's memory_tiering says, and on kernels that build tiers from
# HMAT (6.12 on) the memory-only node sits in a slower tier than DRAM.
want="" got=""
for n in 0 1 2; do
	t=-1
	for d in /sys/devices/virtual/memory_tiering/memory_tier*; do
		[ -f "$d/nodelist" ] || continue
		read -r l <"$d/nodelist"
		in_list "$n" "$l" && t=${d##*memory_tier}
	done
	want="$want $t" got="$got $(get ".nodes[id=$n].tier")"
done
expect_eq tiers "${want# }" "${got# }" "tiers of nodes 0 1 2 (sysfs memory_tiering)"
set -- $want
case $VM_KERNEL in
6.1) expect_eq tiers-kernel "same" "$([ "$1" = "$3" ] && echo same || echo differ)" "6.1 puts every node in one tier" ;;
*) expect_eq tiers-kernel "cxl-lower" "$([ "$3" -gt "$1" ] && [ "$1" = "$2" ] && echo cxl-lower || echo "$*")" \
	"HMAT-based tiers: node2 below nodes 0 and 1" ;;
esac

# Weighted interleave: the kernel's own sysfs, and the state this kernel must have.
present=$([ -d $WI ] && echo true || echo false)
auto=$(wi_auto_file)
auto_val=null
[ -z "$auto" ] || { read -r v <$WI/$auto; [ "$v" = true ] || [ "$v" = 1 ] && auto_val=true || auto_val=false; }
expect_eq wi-present "$present" "$(get '.kernel.weighted_interleave')" "kernel.weighted_interleave"
expect_eq wi-auto "${auto:-null} $auto_val" "$(get '.kernel.auto_file') $(get '.kernel.auto_enabled')" \
	"kernel.auto_file and auto_enabled"
case $VM_KERNEL in
6.1) expect_eq wi-kernel "false" "$present" "6.1 has no weighted interleave" ;;
6.12 | pmbind) expect_eq wi-kernel "true none" "$present ${auto:-none}" "6.12: sysfs weights, no auto file" ;;
newest) expect_eq wi-kernel "true true" "$present $auto_val" "newest: auto weights on" ;;
esac
# The text table works too and has a row for every online node: its id and its kind.
if ! out=$(mpolctl show 2>&1); then
	fail text "mpolctl show: $out"
else
	missing=""
	for n in $VM_NODES; do
		in_list "$n" "$online" || continue
		echo "$out" | grep -Eq "^$n +$(get ".nodes[id=$n].kind") " || missing="$missing node$n"
	done
	if [ -z "$missing" ]; then pass text; else fail text "no row for$missing in: $out"; fi
fi
