#!/bin/sh
# vm-boot: own
# vm-timeout: 150
# Memory hot-added over QMP to the empty memory-only node: mpolctl show sees it
# with the HMAT numbers QEMU gave it, the plans include it, on a kernel with auto
# weights `kernel` still equals the kernel's recomputed table, and a task of that
# socket puts its pages on it in the ratio of the new weights.
. /checks/lib.sh
hp=$VM_HOTPLUG_NODE
ini=$(nth "$hp" $VM_NODE_INITIATOR)
cpus=$(nth "$ini" $VM_NODE_CPUS)

if ! need_prog mpolctl; then
	fail "node$hp-empty-before" "mpolctl is not in the guest"
elif mpolctl show --json >/tmp/before.json 2>/tmp/show.err; then
	got=$(jq-get ".nodes[id=$hp].has_memory" </tmp/before.json 2>/dev/null || echo absent)
	case $got in false | absent) pass "node$hp-empty-before" ;; *) fail "node$hp-empty-before" "has_memory=$got" ;; esac
else
	fail "node$hp-empty-before" "mpolctl show --json failed: $(cat /tmp/show.err)"
fi

if ! hotplug "$hp" 1024; then
	fail qmp-hot-add "1 GiB hot-added to node$hp never came online in the guest"
	exit 0
fi
pass qmp-hot-add

need_prog mpolctl || { fail show-after "mpolctl is not in the guest"; exit 0; }
if ! mpolctl show --json >/tmp/after.json 2>/tmp/show.err; then
	fail show-after "mpolctl show --json failed after the hot-add: $(cat /tmp/show.err)"
	exit 0
fi
get() { jq-get "$1" </tmp/after.json 2>&1; }
expect_eq "node$hp-has-memory" "false true" "$(get ".nodes[id=$hp].has_cpu") $(get ".nodes[id=$hp].has_memory")" \
	"node$hp has_cpu has_memory"
kb=$(get ".nodes[id=$hp].mem_total_kb")
[ "$kb" -gt $((900 * 1024)) ] 2>/dev/null && pass "node$hp-size" || fail "node$hp-size" "mem_total_kb=$kb, expected about 1 GiB"
bw=$(hmat_bw "$ini" "$hp") lat=$(hmat_lat "$ini" "$hp")
expect_eq "node$hp-hmat" "$bw/$bw $lat/$lat" \
	"$(get ".nodes[id=$hp].access[class=1].read_bandwidth")/$(get ".nodes[id=$hp].access[class=1].write_bandwidth") $(get ".nodes[id=$hp].access[class=1].read_latency")/$(get ".nodes[id=$hp].access[class=1].write_latency")" \
	"node$hp bandwidth/latency"
expect_eq "node$hp-kind" CXL "$(get ".nodes[id=$hp].kind")" "node$hp kind"

# The plan of the hot-added node's socket now includes it.
socket=$(socket_nodes "$ini")
for algo in optimal kernel; do
	w=$(algo_weights $algo $socket)
	mpolctl plan --json --cpus "$cpus" --algorithm $algo >/tmp/plan.json 2>&1
	expect_eq "plan-node$ini-$algo" "$(echo $socket | tr ' ' ',') $(echo "$w" | tr ':' ',')" \
		"$(jq-get ".plans[initiator=$ini].nodes" </tmp/plan.json 2>&1 | tr -d '[]') $(jq-get ".plans[initiator=$ini].weights" </tmp/plan.json 2>&1 | tr -d '[]')" \
		"plan for CPUs $cpus after the hot-add"
done

# The kernel recomputes its auto weights with the new node (6.16 on).
auto=$(wi_auto_file)
if [ -n "$auto" ]; then
	mem=$(mem_nodes)
	sysfs=""
	for n in $mem; do read -r v <$WI/node$n; sysfs="$sysfs:$v"; done
	expect_eq auto-recomputed "$(algo_weights kernel $mem)" "${sysfs#:}" "the kernel's auto weights for nodes $mem"
	mpolctl plan --json --cpus "$(nth 0 $VM_NODE_CPUS)" --algorithm kernel --scope all --max-source sysfs-hmat \
		>/tmp/plan.json 2>&1
	expect_eq kernel-equals-auto "$(echo ${sysfs#:} | tr ':' ',')" \
		"$(jq-get '.plans[initiator=0].weights' </tmp/plan.json 2>&1 | tr -d '[]')" "mpolctl plan --algorithm kernel --scope all"
fi

# A task of that socket interleaves onto the new memory.
need_prog mpol-launch || { fail placement "mpol-launch is not in the guest (it did not build)"; exit 0; }
if [ -d $WI ]; then
	w=$(algo_weights optimal $socket)
	args="--lease /run/mpol-lease"
else
	w=$(echo $socket | sed 's/[0-9]*/1/g; s/ /:/g')
	args=""
fi
if mpol-launch --cpus "$cpus" $args -- page-touch 64 >/tmp/launch.out 2>&1; then
	for src in query numa_maps; do
		counts=$(page_counts /tmp/launch.out $src)
		cmp=$(counts_ratio_ok "$counts" "$(pair_weights "$socket" "$w")") && pass "placement-$src" ||
			fail "placement-$src" "pages $counts vs weights $(pair_weights "$socket" "$w"): $cmp"
	done
else
	fail placement "mpol-launch failed: $(cat /tmp/launch.out)"
fi
