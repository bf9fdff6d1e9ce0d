#!/bin/sh
# vm-boot: own
# vm-initramfs: slurm
# vm-timeout: 150
# The plugin under real Slurm on the guest's NUMA machine: munged, slurmctld and
# slurmd on this node, then srun jobs with --mem-interleave. A job that owns the
# node gets its plan's weights written (the lease) and its pages follow them; after
# the step the weights are back as they were. On 6.1 the task falls back to
# interleave and says so; with strict the step fails.
. /checks/lib.sh
export PATH=/bin:/usr/sbin:/usr/bin
up() { cut -d. -f1 /proc/uptime; }

hostname vm
ip link set lo up
# getaddrinfo(AI_ADDRCONFIG), which Slurm uses, finds nothing on a host whose only
# addresses are loopback ones: give lo one more.
ip addr add 10.0.0.1/32 dev lo
# No systemd: slurmd builds its own cgroup v2 tree (cgroup.conf IgnoreSystemd=yes).
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir -p /sys/fs/cgroup/system.slice /run/munge
echo "+cpuset +memory" >/sys/fs/cgroup/cgroup.subtree_control
chown munge:munge /run/munge /var/lib/munge /var/log/munge /etc/munge /etc/munge/munge.key
t0=$(cut -d' ' -f1 /proc/uptime)
munged --force --num-threads=2 2>/tmp/munged.err || { fail daemons "munged did not start: $(cat /tmp/munged.err)"; exit 0; }
slurmctld 2>/tmp/ctld.err || { fail daemons "slurmctld did not start: $(cat /tmp/ctld.err; tail -n 5 /var/log/slurmctld.log)"; exit 0; }
slurmd 2>/tmp/slurmd.err || { fail daemons "slurmd did not start: $(cat /tmp/slurmd.err; tail -n 5 /var/log/slurmd.log)"; exit 0; }
# sinfo can block while slurmctld is busy: bound the wait by the clock.
end=$(($(up) + 45))
state=""
while [ "$(up)" -lt $end ]; do
	state=$(timeout 5 sinfo -h -o %t 2>&1)
	[ "$state" = idle ] && break
	sleep 1
done
if [ "$state" != idle ]; then
	fail daemons "node vm is '$state', not idle, after 45 s: $(tail -n 4 /var/log/slurmd.log /var/log/slurmctld.log)"
	exit 0
fi
echo "## slurm up after $(awk -v a="$t0" '{ print $1 - a }' /proc/uptime)s"
pass daemons

# check_task CASE FILE: a task's output (cpus, env, page-touch) against its socket's plan.
check_task() {
	c=$1
	cpus=$(sed -n 's/^cpus //p' "$2")
	# The task's socket: the CPU node whose CPUs it was bound to.
	ini=""
	for n in $VM_NODES; do [ "$(nth "$n" $VM_NODE_CPUS)" = "$cpus" ] && ini=$n; done
	[ -n "$ini" ] || { fail "$c-socket" "bound to CPUs '$cpus', not one socket's"; return; }
	nodes=$(socket_nodes "$ini")
	if [ -d $WI ]; then
		w=$(algo_weights optimal $nodes)
		want="weighted $(echo $nodes | tr ' ' ',') $w"
		got=$(sed -n 's/^env //p' "$2")
	else
		w=$(echo $nodes | sed 's/[0-9][0-9]*/1/g; s/ /:/g')
		want="interleave $(echo $nodes | tr ' ' ',')"
		got=$(sed -n 's/^env //p' "$2" | cut -d' ' -f1,2)
	fi
	expect_eq "$c-env" "$want" "$got" "SLURM_MEM_INTERLEAVE_{MODE,NODES,WEIGHTS} (CPUs $cpus)"
	for src in query numa_maps; do
		counts=$(page_counts "$2" $src)
		cmp=$(counts_ratio_ok "$counts" "$(pair_weights "$nodes" "$w")") && pass "$c-pages-$src" ||
			fail "$c-pages-$src" "CPUs $cpus: pages $counts vs weights $(pair_weights "$nodes" "$w"): $cmp"
	done
}
TASK='echo "cpus $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)";
	echo "env $SLURM_MEM_INTERLEAVE_MODE $SLURM_MEM_INTERLEAVE_NODES $SLURM_MEM_INTERLEAVE_WEIGHTS";
	page-touch 64'

before=$(wi_snapshot)
# One task per socket, each on a whole socket's cores, the job owning the node.
# Each task prints its CPUs, the plugin's environment and where its pages went.
timeout 60 srun -l -n2 -c2 --exclusive --mem-interleave=verbose,weighted sh -c "$TASK" >/tmp/job.out 2>&1
rc=$?
cat /tmp/job.out
if [ $rc != 0 ]; then
	fail job "srun --mem-interleave=verbose,weighted exit $rc: $(tail -n 5 /tmp/job.out; tail -n 3 /var/log/slurmd.log)"
else
	pass job
fi
grep -q 'mem_interleave: task' /tmp/job.out && pass verbose-line ||
	fail verbose-line "no 'mem_interleave: task ...' line on the tasks' stderr"
for task in 0 1; do
	sed -n "s/^$task: //p" /tmp/job.out >/tmp/task$task.out
	check_task "task$task" /tmp/task$task.out
done
expect_eq weights-restored "$before" "$(wi_snapshot)" "weighted-interleave sysfs after the step"

# The same as an ordinary user: the task sets its policy as that user, slurmstepd
# (root) still writes and restores the weights.
su user -s /bin/sh -c "cd /tmp && timeout 60 srun -n1 -c2 --exclusive --mem-interleave=weighted sh -c '$TASK'" \
	>/tmp/user.out 2>&1
rc=$?
cat /tmp/user.out
[ $rc = 0 ] && pass user-job || fail user-job "srun as uid 1000 exit $rc: $(tail -n 5 /tmp/user.out)"
check_task user-task /tmp/user.out
expect_eq user-weights-restored "$before" "$(wi_snapshot)" "weighted-interleave sysfs after the user's step"

if [ ! -d $WI ]; then
	timeout 60 srun -n1 -c2 --mem-interleave=weighted,strict page-touch 1 >/tmp/strict.out 2>&1
	rc=$?
	if [ $rc != 0 ] && grep -q 'strict: .*not falling back to interleave' /tmp/strict.out && ! grep -q '^pages' /tmp/strict.out; then
		pass strict-refuses
	else
		fail strict-refuses "srun exit $rc: $(cat /tmp/strict.out)"
	fi
fi
echo "## slurm check done after $(awk -v a="$t0" '{ print $1 - a }' /proc/uptime)s"
