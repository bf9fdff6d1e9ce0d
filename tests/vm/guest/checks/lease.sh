#!/bin/sh
# vm-boot: shared
# vm-timeout: 120
# The sysfs weights on a real kernel: the step's lease (mpol-launch --lease, the
# library calls slurmstepd makes) writes the plan's weights and puts back exactly
# what was there, auto included; a holder killed with SIGKILL leaves a journal that
# `mpolctl recover` restores; `mpolctl apply --system` writes the per-socket optimum
# and `--system --auto` hands the table back to the kernel.
. /checks/lib.sh
SD=/run/mpol-lease-check

if [ ! -d $WI ]; then
	# 6.1: nothing to write; the admin command must say so instead of pretending.
	need_prog mpolctl || { fail apply-refused "mpolctl is not in the guest"; exit 0; }
	mpolctl apply --system >/tmp/apply.out 2>&1
	rc=$?
	if [ $rc != 0 ] && grep -qi 'weighted' /tmp/apply.out; then pass apply-refused; else fail apply-refused "exit $rc: $(cat /tmp/apply.out)"; fi
	exit 0
fi

before=$(wi_snapshot)
auto=$(wi_auto_file)
echo "## weights at boot: $before"

# restore_boot: put the boot table back whatever a failed case left (nodes, then auto).
restore_boot() {
	for kv in $before; do
		k=${kv%%=*} v=${kv#*=}
		case $k in node*) echo "$v" >$WI/$k 2>/dev/null ;; esac
	done
	[ -z "$auto" ] || echo "${before##*$auto=}" | cut -d' ' -f1 >$WI/$auto 2>/dev/null
}

# The table a lease or `apply --system` should write: every socket's plan
# (each CPU node with its memory-only nodes) with lib.sh's optimal weights; auto off.
leased=$before
for i in $VM_NODES; do
	[ "$(nth "$i" $VM_NODE_CPUS)" != - ] || continue
	nodes=$(socket_nodes "$i")
	w=$(algo_weights optimal $nodes)
	for n in $nodes; do
		leased=$(echo " $leased " | sed "s/ node$n=[0-9]* / node$n=${w%%:*} /; s/^ //; s/ $//")
		w=${w#*:}
	done
done
[ -z "$auto" ] || leased=$(echo " $leased " | sed "s/ $auto=[a-z01]* / $auto=false /; s/^ //; s/ $//")

if need_prog mpol-launch; then
	mpol-launch --cpus "$(nth 0 $VM_NODE_CPUS)" --lease $SD -- sh -c '. /checks/lib.sh; echo "during $(wi_snapshot)"' \
		>/tmp/lease.out 2>&1
	rc=$?
	during=$(sed -n 's/^during //p' /tmp/lease.out)
	if [ $rc != 0 ]; then
		fail lease-writes "mpol-launch --lease failed (exit $rc): $(cat /tmp/lease.out)"
	else
		expect_eq lease-writes "$leased" "$during" "weights while the step runs"
	fi
	expect_eq lease-restores "$before" "$(wi_snapshot)" "weights after the step"
	[ -z "$(ls $SD/weights.journal 2>/dev/null)" ] && pass lease-journal-removed ||
		fail lease-journal-removed "$SD/weights.journal is still there after release"
	restore_boot

	# A holder killed with SIGKILL: the weights stay written, the journal stays,
	# and `mpolctl recover` puts the boot table back.
	mpol-launch --cpus "$(nth 0 $VM_NODE_CPUS)" --lease $SD -- page-touch 4 --hold >/tmp/hold.out 2>&1 &
	holder=$!
	t=0
	while ! grep -q '^ready' /tmp/hold.out && [ $t -lt 100 ]; do usleep 100000; t=$((t + 1)); done
	toucher=$(sed -n 's/^ready //p' /tmp/hold.out)
	kill -9 $holder
	wait $holder 2>/dev/null
	[ -n "$toucher" ] && kill $toucher 2>/dev/null
	expect_eq crash-leaves-weights "$leased" "$(wi_snapshot)" "weights after SIGKILL of the holder"
	if need_prog mpolctl; then
		mpolctl recover --statedir $SD >/tmp/recover.out 2>&1
		rc=$?
		[ $rc = 0 ] && pass recover-runs || fail recover-runs "mpolctl recover exit $rc: $(cat /tmp/recover.out)"
		expect_eq recover-restores "$before" "$(wi_snapshot)" "weights after mpolctl recover"
	fi
	restore_boot

	# Two steps at once: the second wants other weights for node1 (3), is refused the
	# lease (the first holds it) and runs on the first's table, saying why, as a step on
	# a shared node does; the first's table stays, and its release still restores the
	# boot table exactly.
	mpol-launch --cpus "$(nth 0 $VM_NODE_CPUS)" --lease $SD -- page-touch 4 --hold >/tmp/first.out 2>&1 &
	first=$!
	t=0
	while ! grep -q '^ready' /tmp/first.out && [ $t -lt 100 ]; do usleep 100000; t=$((t + 1)); done
	read -r held1 <$WI/node1
	mpol-launch --cpus "$(nth 1 $VM_NODE_CPUS)" --lease $SD --spec weighted,weights=1:3 -- page-touch 1 \
		>/tmp/second.out 2>&1
	rc=$?
	if [ $rc = 0 ] && [ "$held1" != 3 ] && grep -q "^launch:.* nodes=1 weights=$held1 .*note=.*held by job 1" /tmp/second.out &&
		grep -q '^pages' /tmp/second.out; then
		pass lease-second-refused
	else
		fail lease-second-refused "second holder (node1 held at $held1): exit $rc: $(cat /tmp/second.out)"
	fi
	expect_eq lease-second-leaves-weights "$leased" "$(wi_snapshot)" "weights while the first step still runs"
	toucher=$(sed -n 's/^ready //p' /tmp/first.out)
	[ -n "$toucher" ] && kill $toucher
	wait $first
	expect_eq lease-first-restores "$before" "$(wi_snapshot)" "weights after the first step ends"
	restore_boot
else
	fail lease-writes "mpol-launch is not in the guest (it did not build)"
fi

need_prog mpolctl || { fail apply-system "mpolctl is not in the guest"; exit 0; }
mpolctl apply --system >/tmp/apply.out 2>&1
rc=$?
[ $rc = 0 ] || fail apply-system-runs "mpolctl apply --system exit $rc: $(cat /tmp/apply.out)"
expect_eq apply-system "$leased" "$(wi_snapshot)" "weights after mpolctl apply --system"
system=$(wi_snapshot)
mpolctl apply --system --auto >/tmp/apply.out 2>&1
rc=$?
if [ -n "$auto" ]; then
	[ $rc = 0 ] || fail apply-auto-runs "mpolctl apply --system --auto exit $rc: $(cat /tmp/apply.out)"
	expect_eq apply-auto "$before" "$(wi_snapshot)" "weights after mpolctl apply --system --auto (the kernel's own again)"
elif [ $rc = 0 ]; then
	# No auto file (6.9-6.15): handing back can only mean the default weights.
	expect_eq apply-auto "$before" "$(wi_snapshot)" "weights after mpolctl apply --system --auto without an auto file"
else
	[ -s /tmp/apply.out ] && [ "$(wi_snapshot)" = "$system" ] && pass apply-auto-refused ||
		fail apply-auto-refused "exit $rc, message '$(cat /tmp/apply.out)', weights $(wi_snapshot) (were $system)"
fi
restore_boot
