#!/bin/sh
# vm-boot: shared
# vm-timeout: 60
# mpolctl plan --json gives the weights the guest's topology calls for, with both
# algorithms and both scopes. The expectations are computed here from the HMAT
# numbers QEMU was given (topology.sh) with lib.sh's own implementations of the two
# algorithms: mpolctl runs as root, so it reads the raw ACPI HMAT and weighs each node
# by the bandwidth from the plan's own initiator (remote DRAM at 112000, not 224000);
# with --max-source sysfs-hmat it sees what the kernel's auto mode sees, and on a
# kernel with auto weights `kernel` with scope=all must then equal the kernel's table.
. /checks/lib.sh

need_prog mpolctl || { fail runs "mpolctl is not in the guest"; exit 0; }

# expected ALGO INITIATOR NODE...: "nodes=[..] weights=[..]" for these candidate nodes
# from that initiator (a node the algorithm gives no seat is left out of the plan).
expected() {
	w=$(pair_algo_weights "$@")
	shift 2
	nodes="" weights=""
	for n in "$@"; do
		x=${w%%:*}
		w=${w#*:}
		[ "$x" -gt 0 ] || continue
		nodes="$nodes,$n" weights="$weights,$x"
	done
	echo "nodes=[${nodes#,}] weights=[${weights#,}]"
}

# plan_of CASE INITIATOR ARGS...: "nodes=[..] weights=[..]" of mpolctl's plan for it.
plan_of() {
	c=$1 i=$2
	shift 2
	if ! mpolctl plan --json "$@" >/tmp/plan.json 2>/tmp/plan.err; then
		echo "mpolctl plan --json $* failed: $(cat /tmp/plan.err)"
		return 1
	fi
	echo "nodes=$(jq-get ".plans[initiator=$i].nodes" </tmp/plan.json 2>&1)" \
		"weights=$(jq-get ".plans[initiator=$i].weights" </tmp/plan.json 2>&1)"
}

mem=$(mem_nodes)
for i in $VM_NODES; do
	cpus=$(nth "$i" $VM_NODE_CPUS)
	[ "$cpus" != - ] || continue
	socket=$(socket_nodes "$i")
	for algo in optimal kernel; do
		got=$(plan_of "$algo" "$i" --cpus "$cpus" --algorithm "$algo")
		expect_eq "socket-node$i-$algo" "$(expected "$algo" "$i" $socket)" "$got" "CPUs $cpus, scope=socket, $algo"
		got=$(plan_of "$algo" "$i" --cpus "$cpus" --algorithm "$algo" --scope all)
		expect_eq "all-node$i-$algo" "$(expected "$algo" "$i" $mem)" "$got" "CPUs $cpus, scope=all, $algo (raw HMAT pairs)"
		expect_eq "all-node$i-$algo-sources" "acpi-hmat" "$(jq-get ".plans[initiator=$i].bandwidth_source" </tmp/plan.json 2>&1)" \
			"where the scope=all plan's bandwidths came from"
	done
done

# The kernel's own auto weights (6.16 on): the `kernel` algorithm must match them.
auto=$(wi_auto_file)
if [ -n "$auto" ]; then
	read -r on <$WI/$auto
	if [ "$on" = true ] || [ "$on" = 1 ]; then
		sysfs=""
		for n in $mem; do read -r w <$WI/node$n; sysfs="$sysfs,$w"; done
		got=$(plan_of kernel 0 --cpus "$(nth 0 $VM_NODE_CPUS)" --algorithm kernel --scope all --max-source sysfs-hmat)
		expect_eq kernel-equals-auto "nodes=[$(echo $mem | tr ' ' ',')] weights=[${sysfs#,}]" "$got" \
			"the guest kernel's auto weights ($auto=$on)"
	else
		fail kernel-equals-auto "$auto is $on at boot: the kernel computed no weights to compare with"
	fi
fi

# Bad arguments are refused with exit 2 and a message.
mpolctl plan --algorithm fastest >/tmp/plan.out 2>&1
rc=$?
expect_eq bad-algorithm "2 message" "$rc $([ -s /tmp/plan.out ] && echo message)" "exit status and message of --algorithm fastest"
