#!/bin/sh
# vm-boot: own
# vm-initramfs: slurm
# vm-timeout: 300
# The plugin under real Slurm on the guest's NUMA machine: munged, slurmctld and
# slurmd on this node, then srun jobs with --mem-interleave. A job that owns the
# node gets its plan's weights written (the lease) and its pages follow them; after
# the step the weights are back as they were. On 6.1 the task falls back to
# interleave and says so; with strict the step fails. Then the one decision: with the
# site's algorithm=kernel or precision=0.9, `mpolctl rebalance --dry-run` targets the
# weights the step's tasks run with; and migration: a task re-pinned to the other
# socket is rebalanced by `mpolctl watch` to that socket's plan (moved pages = the
# minimum), one moved within its socket and a process that did not ask are untouched.
# Last, region-aware placement (min_region=64M) against the whole-task interleave, and
# bench/regions -S comparing the placements (measured and printed, never timed).
. /checks/lib.sh
export PATH=/bin:/usr/sbin:/usr/bin

slurm_start || exit 0
t0=$SLURM_T0

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
# moved_about_minimum MOVED MINIMUM: never more than the planner's minimum, and all of it
# but 0.1% + 1 page: a running task's pages can leave a node between the sampler's count
# and its walk (the task frees them, NUMA balancing moves them), and the walk does not
# take a page that is no longer there.
moved_about_minimum() {
	[ -n "$1" ] && [ -n "$2" ] && [ "$1" -gt 0 ] && [ "$1" -le "$2" ] && [ "$1" -ge $(($2 - $2 / 1000 - 1)) ]
}

# held_step NAME SRUN-ARGS...: a one-task step holding 64 MiB on CPU 0, output in
# /tmp/NAME.out; sets JOB and PID.
held_step() {
	n=$1
	shift
	timeout 120 srun -J "$n" -n1 --exclusive --cpu-bind=map_cpu:$(nth 0 $VM_NODE_CPUS | cut -d- -f1) "$@" \
		page-touch 64 --hold >/tmp/$n.out 2>&1 &
	PID= JOB=
	wait_for /tmp/$n.out '^ready' && PID=$(sed -n 's/^ready //p' /tmp/$n.out)
	JOB=$(squeue -h -n "$n" -o %i)
	# its kept placement, which the step writes with its first sample (a second in)
	t=0
	while [ -n "$JOB" ] && [ ! -s "/run/slurm-mempolicy/step.$JOB.0.json" ] && [ $t -lt 100 ]; do
		usleep 100000
		t=$((t + 1))
	done
}
# step_end PID: end a held task and wait for its job to leave.
step_end() {
	[ -n "$1" ] && kill "$1"
	t=0
	while [ -n "$(squeue -h -o %i)" ] && [ $t -lt 100 ]; do usleep 100000; t=$((t + 1)); done
}
# rb_target JOB: task 0's target weights from rebalance --dry-run --json, as "7:2".
rb_target() {
	mpolctl rebalance --job "$1" --dry-run --json >/tmp/rb.json 2>/tmp/rb.err
	jq-get '.tasks[0].weights' </tmp/rb.json | tr -d '[] ' | tr ',' ':'
}

if [ -d $WI ]; then
	s0=$(socket_nodes "$(nth 0 $VM_NODES)")
	# algorithm=kernel on a node the job owns: the step writes the kernel formula's
	# weights for its socket, and rebalance targets them.
	plugstack algorithm=kernel
	held_step kernel-algo --mem-interleave=weighted
	want=$(algo_weights kernel $s0)
	expect_eq site-kernel-runs "$want" "$(rb_target "$JOB")" \
		"rebalance target of a step under algorithm=kernel ($(tail -n 2 /tmp/rb.err))"
	step_end "$PID"
	# precision=0.9 with sysfs=never: the tasks run on the node's table, and so does the target.
	plugstack precision=0.9 sysfs=never
	held_step prec-never --mem-interleave=weighted
	sys=""
	for n in $s0; do read -r v <$WI/node$n; sys="$sys:$v"; done
	expect_eq site-never-runs-on-table "${sys#:}" "$(rb_target "$JOB")" "rebalance target under sysfs=never"
	case $(jq-get '.tasks[0].source' </tmp/rb.json) in
	*"kept placement (algorithm optimal, precision 0.9, on the node's weights)"*) pass site-settings-kept ;;
	*) fail site-settings-kept "source: $(jq-get '.tasks[0].source' </tmp/rb.json)" ;;
	esac
	step_end "$PID"
	plugstack

	# Migration: two tasks of one step on socket 0's first CPU and its second; a
	# process without the option on the same CPU.
	c0=$(nth 0 $VM_NODE_CPUS | cut -d- -f1)
	c0b=$(nth 0 $VM_NODE_CPUS | cut -d- -f2)
	c1=$(nth 1 $VM_NODE_CPUS | cut -d- -f1)
	timeout 120 srun -J mig -n2 --exclusive --cpu-bind=map_cpu:$c0,$c0 --mem-interleave=weighted \
		sh -c 'exec page-touch 64 --hold >/tmp/mig$SLURM_PROCID.out 2>&1' &
	taskset -c "$c0" page-touch 64 --hold >/tmp/plain.out 2>&1 &
	m0= m1= plain=
	wait_for /tmp/mig0.out '^ready' && m0=$(sed -n 's/^ready //p' /tmp/mig0.out)
	wait_for /tmp/mig1.out '^ready' && m1=$(sed -n 's/^ready //p' /tmp/mig1.out)
	wait_for /tmp/plain.out '^ready' && plain=$(sed -n 's/^ready //p' /tmp/plain.out)
	if [ -z "$m0" ] || [ -z "$m1" ] || [ -z "$plain" ]; then
		fail migration-setup "the held tasks did not start: $(cat /tmp/mig0.out /tmp/mig1.out /tmp/plain.out)"
	else
		b1=$(signal_counts mig1 "$m1" USR1 0)
		bp=$(signal_counts plain "$plain" USR1 0)
		taskset -pc "$c1" "$m0" >/dev/null      # to the other socket
		taskset -pc "$c0b" "$m1" >/dev/null     # within its socket
		taskset -pc "$c1" "$plain" >/dev/null   # did not ask
		timeout 60 mpolctl watch --scan 1 --settle 1 --once >/tmp/watch.out 2>&1
		rc=$?
		cat /tmp/watch.out
		grep -q "task $m0 .*now runs on CPUs $c1 (the plan of CPU node(s) 1) while its memory follows node(s) 0's: rebalancing it" /tmp/watch.out &&
			pass migration-detected || fail migration-detected "watch exit $rc: $(cat /tmp/watch.out)"
		if grep -q "task $m1 \|pid $m1\|task $plain \|pid $plain" /tmp/watch.out; then
			fail migration-others-untouched "watch named them: $(cat /tmp/watch.out)"
		else
			pass migration-others-untouched
		fi
		s1=$(socket_nodes "$(nth 1 $VM_NODES)")
		w1=""
		for n in $s1; do read -r v <$WI/node$n; w1="$w1 $n:$v"; done
		counts=$(signal_counts mig0 "$m0" USR1 0)
		cmp=$(counts_ratio_ok "$counts" "${w1# }") && pass migration-pages-follow-socket1 ||
			fail migration-pages-follow-socket1 "pages $counts vs socket 1's plan ${w1# }: $cmp"
		moved=$(sed -n "s/.*minimum to move \([0-9]*\), moved \([0-9]*\) .*/\2 \1/p" /tmp/watch.out)
		set -- $moved
		moved_about_minimum "$1" "$2" && pass migration-moved-minimum ||
			fail migration-moved-minimum "moved/minimum '$moved'"
		expect_eq migration-within-socket-untouched "$b1" "$(signal_counts mig1 "$m1" USR1 0)" "pages of the task moved within socket 0"
		expect_eq migration-plain-untouched "$bp" "$(signal_counts plain "$plain" USR1 0)" "pages of the process without the option"
		# Recorded: the next scans leave the rebalanced task alone (busybox's timeout
		# stops watch with SIGTERM, which it takes as a normal stop).
		timeout 4 mpolctl watch --scan 1 --settle 1 --once >/tmp/watch2.out 2>&1
		rc=$?
		if grep -q 'mpolctl watch: stopped' /tmp/watch2.out && ! grep -q rebalancing /tmp/watch2.out; then
			pass migration-once
		else
			fail migration-once "second watch exit $rc: $(cat /tmp/watch2.out)"
		fi
	fi
	for p in $m0 $m1 $plain; do kill "$p" 2>/dev/null; done
	step_end ""
fi
# Region-aware placement (min_region=64M): a task with a 256 MiB array, 8 MiB of small
# allocations and a 64 MiB mapping it touches only later. The task's own policy stays
# on its node; slurmstepd's sampler (sample_interval=1) gives the array the plan: on
# pmbind by process_mbind, so the later mapping's pages follow the weights the moment
# they fault; on stock kernels by moving the pages, so the later mapping is moved at
# the next sample. Without min_region everything is interleaved, the small ones too.
# region_counts REGION: poll (up to 15 s) until REGION's pages match the weights.
region_counts() {
	i=0
	while [ $i -lt 15 ]; do
		counts=$(signal_counts region "$PID" USR1 "$1")
		counts_ratio_ok "$counts" "$(pair_weights "$s0" "$w0")" >/dev/null && return 0
		sleep 1
		i=$((i + 1))
	done
	return 1
}
if [ -d $WI ]; then
	s0=$(socket_nodes "$(nth 0 $VM_NODES)")
	w0=$(algo_weights optimal $s0)
	local0=$(nth 0 $VM_NODES)
	nr=""
	[ "$VM_KERNEL" = pmbind ] && nr="process_mbind_nr=$(cat /checks/pmbind-nr)"
	# page-touch is static: the interposer (slurm-root.sh put it here) cannot reach it
	REGIONS_SO=/usr/lib/slurm-mempolicy/mem_interleave_regions.so
	plugstack sample_interval=1 $nr preload=$REGIONS_SO
	t1=$(cut -d' ' -f1 /proc/uptime)
	timeout 120 srun -J region -n1 --exclusive --cpu-bind=map_cpu:$(nth 0 $VM_NODE_CPUS | cut -d- -f1) \
		--mem-interleave=verbose,weighted,min_region=64M page-touch 256 --small 8 --reserve 64 --hold \
		>/tmp/region.out 2>&1 &
	PID=
	wait_for /tmp/region.out '^ready' 600 && PID=$(sed -n 's/^ready //p' /tmp/region.out)
	if [ -z "$PID" ]; then
		fail region-setup "the task did not start: $(cat /tmp/region.out; tail -n 3 /var/log/slurmd.log)"
	else
		if [ "$VM_KERNEL" = pmbind ]; then by="set by process_mbind as they appear"; else by="pages moved at each sample"; fi
		grep -q "local on node $local0; mappings >= 64M: weighted interleave nodes $(echo $s0 | tr ' ' ',') weights $w0, placed as they are allocated, else $by" \
			/tmp/region.out && pass region-verbose || fail region-verbose "$(grep mem_interleave /tmp/region.out)"
		# the task's own policy governs its heap (the array may have its own by now)
		heap=$(awk '/ heap /{ print $2 }' /proc/$PID/numa_maps)
		expect_eq region-task-local "prefer:$local0" "$heap" "the policy of the task's heap (its own)"
		region_counts 0 && pass region-array-weights ||
			fail region-array-weights "256 MiB array: $counts vs $(pair_weights "$s0" "$w0") after 15 s"
		small=$(page_counts /tmp/region.out query small)
		# exactly one count, node $local0's: "N0=1500 N2=548" is not all local
		echo "$small" | grep -Eqx "N$local0=[0-9]+" && pass region-small-local ||
			fail region-small-local "8 MiB of small allocations: '$small', not all on node $local0"
		line=$(grep "task pid $PID: placed" /var/log/slurmd.log | head -n 1)
		echo "## $line"
		set -- $(echo "$line" | sed -n 's/.*placed \([0-9]*\) of \([0-9]*\) large mapping(s) (\([0-9]*\) by process_mbind): \([0-9]*\) pages, minimum to move \([0-9]*\), moved \([0-9]*\), \([0-9]*\) did not move/\1 \2 \3 \4 \5 \6 \7/p')
		# pmbind: the array and the untouched mapping get the policy; stock: the array's
		# pages move, the untouched mapping has none yet (large, on the plan)
		want="1 2 0"
		[ "$VM_KERNEL" = pmbind ] && want="2 2 2"
		expect_eq region-placed "$want" "$1 $2 $3" "mappings placed, large, by process_mbind ($line)"
		moved_about_minimum "$6" "$5" && [ "$7" = 0 ] && pass region-moved-minimum ||
			fail region-moved-minimum "moved '$6', minimum '$5', not moved '$7'"
		if [ "$VM_KERNEL" = pmbind ]; then
			# its policy was set before it had a page: they fault by the weights, no sample needed
			counts=$(signal_counts region "$PID" HUP reserve)
			cmp=$(counts_ratio_ok "$counts" "$(pair_weights "$s0" "$w0")") && pass region-later-faults-follow ||
				fail region-later-faults-follow "64 MiB touched later: $counts: $cmp"
			grep -q "^policy region=reserve weighted interleave" /tmp/region.out && pass region-later-policy ||
				fail region-later-policy "$(grep '^policy region=reserve' /tmp/region.out)"
		else
			kill -HUP "$PID"
			region_counts reserve && pass region-later-moved ||
				fail region-later-moved "64 MiB touched later: $counts after 15 s"
		fi
		grep -q "large mappings not placed" /var/log/slurmd.log &&
			fail region-no-errors "$(grep 'large mappings not placed' /var/log/slurmd.log)" || pass region-no-errors
		echo "## region-aware step took $(awk -v a="$t1" '{ print $1 - a }' /proc/uptime)s"
		step_end "$PID"
	fi
	# Placement at allocation: region-alloc (dynamic) runs with the interposer. Its three
	# 64 MiB arrays, one freed and allocated again 10 times at the same address, and a
	# fork child's array are on the plan from their first touch, its small objects on the
	# task's node, and the sampler (every second) finds nothing to place: no page moved.
	# region-alloc-static, which LD_PRELOAD cannot reach, gets the sampler, which says so.
	# held_alloc NAME PROGRAM: sets PID
	held_alloc() {
		timeout 120 srun -J "$1" -n1 --exclusive --cpu-bind=map_cpu:$(nth 0 $VM_NODE_CPUS | cut -d- -f1) \
			--mem-interleave=verbose,weighted,min_region=32M "$2" 64 --hold >/tmp/$1.out 2>&1 &
		PID=
		wait_for /tmp/$1.out '^ready' 600 && PID=$(sed -n 's/^ready //p' /tmp/$1.out)
	}
	plan="$(pair_weights "$s0" "$w0")"
	held_alloc ralloc region-alloc
	if [ -z "$PID" ]; then
		fail ralloc-setup "the task did not start: $(cat /tmp/ralloc.out; tail -n 3 /var/log/slurmd.log)"
	else
		grep -q "mappings >= 32M: weighted interleave nodes $(echo $s0 | tr ' ' ',') weights $w0, placed as they are allocated, else " \
			/tmp/ralloc.out && pass ralloc-verbose || fail ralloc-verbose "$(grep mem_interleave /tmp/ralloc.out)"
		for r in a0 a1 a2 again child; do
			counts=$(page_counts /tmp/ralloc.out query $r)
			cmp=$(counts_ratio_ok "$counts" "$plan") && pass "ralloc-$r-on-plan" ||
				fail "ralloc-$r-on-plan" "'$counts' under '$(sed -n "s/^policy region=$r //p" /tmp/ralloc.out)': $cmp"
		done
		expect_eq ralloc-same-address "same-address 10 of 10" "$(grep '^same-address' /tmp/ralloc.out)" \
			"the array freed and allocated again"
		small=$(page_counts /tmp/ralloc.out query small)
		echo "$small" | grep -Eqx "N$local0=[0-9]+" && pass ralloc-small-local ||
			fail ralloc-small-local "4 KiB objects: '$small', not all on node $local0"
		# three samples later: each large mapping had the plan's policy, nothing was placed
		sleep 3
		counts=$(signal_counts ralloc "$PID" USR1 a0)
		if grep -q "task pid $PID: placed\|task pid $PID: large mappings not placed" /var/log/slurmd.log; then
			fail ralloc-no-page-moved "$(grep "task pid $PID" /var/log/slurmd.log)"
		else
			cmp=$(counts_ratio_ok "$counts" "$plan") && pass ralloc-no-page-moved ||
				fail ralloc-no-page-moved "a0 after three samples: $counts: $cmp"
		fi
		step_end "$PID"
	fi
	held_alloc rstatic region-alloc-static
	if [ -z "$PID" ]; then
		fail rstatic-setup "the task did not start: $(cat /tmp/rstatic.out; tail -n 3 /var/log/slurmd.log)"
	else
		ok=""
		for i in $(seq 15); do
			counts=$(signal_counts rstatic "$PID" USR1 a0)
			counts_ratio_ok "$counts" "$plan" >/dev/null && { ok=1; break; }
			sleep 1
		done
		[ -n "$ok" ] && pass rstatic-sampler-places ||
			fail rstatic-sampler-places "a0 after 15 s: $counts vs $plan"
		line=$(grep "task pid $PID: placed" /var/log/slurmd.log | head -n 1)
		echo "## $line"
		[ -n "$line" ] && pass rstatic-sampler-says-so ||
			fail rstatic-sampler-says-so "no 'task pid $PID: placed' in slurmd's log"
		small=$(page_counts /tmp/rstatic.out query small)
		echo "$small" | grep -Eqx "N$local0=[0-9]+" && pass rstatic-small-local ||
			fail rstatic-small-local "4 KiB objects: '$small', not all on node $local0"
		step_end "$PID"
	fi
	# Without min_region: the whole task interleaved, as before.
	timeout 60 srun -n1 --exclusive --cpu-bind=map_cpu:$(nth 0 $VM_NODE_CPUS | cut -d- -f1) \
		--mem-interleave=weighted page-touch 64 --small 8 >/tmp/noregion.out 2>&1
	for r in 0 small; do
		counts=$(page_counts /tmp/noregion.out query $r)
		cmp=$(counts_ratio_ok "$counts" "$(pair_weights "$s0" "$w0")") && pass "no-min-region-$r-interleaved" ||
			fail "no-min-region-$r-interleaved" "region $r: '$counts': $cmp $(tail -n 2 /tmp/noregion.out)"
	done
	# bench/regions -S on the same plugstack: every placement it compares is measured and
	# printed (pages, moves, times), memkind's or why it could not place; never how fast.
	t1=$(cut -d' ' -f1 /proc/uptime)
	sh /bench/regions -S -m 64 -r 2 -w 15 >/tmp/rbench.out 2>&1
	rc=$?
	cat /tmp/rbench.out
	echo "## bench/regions -S took $(awk -v a="$t1" '{ print $1 - a }' /proc/uptime)s"
	got=""
	for p in whole-task interposer sampler memkind; do
		grep -Eq "^$p +[a-z].* N[0-9]+=[0-9]+.* N[0-9]+=[0-9]+.* [0-9]+:[0-9]+(/[0-9]+:[0-9]+)* +[-0-9/,]+ +([0-9.]+ [0-9.]+|never \(.*\))\$" /tmp/rbench.out ||
			{ [ $p = memkind ] && grep -Eq "^$p +could not place: ." /tmp/rbench.out; } && got="$got $p"
	done
	expect_eq regions-bench-placements "0 whole-task interposer sampler memkind" "$rc$got" \
		"bench/regions -S's rows: $(tr '\n' '|' </tmp/rbench.out)"
	plugstack
fi
echo "## slurm check done after $(awk -v a="$t0" '{ print $1 - a }' /proc/uptime)s"
