#!/bin/sh
# vm-boot: own
# vm-timeout: 420
# mpolctl rebalance for real: a page toucher runs on socket 0's nodes (0 and 2), 1 GiB
# is hot-added to node 3, and `mpolctl rebalance --pid` brings the running process to
# the new plan over 0, 2 and 3: per-node pages within 1% of the new weights (counted
# by mpolctl and, independently, by the toucher itself), pages moved <= 1.02 x the
# minimum, a second run moves nothing, a dry run moves nothing; `mpolctl watch` does the
# same for a job on socket 1 by itself after the hot-add; a task in a cpuset with an
# explicit cpuset.mems is refused until --grow-cpuset widens it; pages shared with
# another process are counted as not moved. Then what happens to new allocations, a
# process exiting mid-rebalance (SIGKILL during a rate-limited run) whose pid a new
# process takes meanwhile, and a recycled pid (ns_last_pid) that a --job rebalance
# must leave alone.
# Every run names process_mbind's number (--backend auto --process-mbind-nr): on the
# pmbind kernel it is chosen, sets the policy of the task's mappings (its untouched
# --reserve region then faults by the new plan, without the task doing anything),
# and the pages already there move as with move_pages; on every other kernel the
# probe finds ENOSYS, move_pages is chosen, and the reserve region keeps following
# the launch policy. Permissions as the kernel has them: another user's process is
# refused to an ordinary user (by mpolctl, before any call) and done by root; an
# ordinary user's own process is done for that user, by move_pages (process_mbind on
# another process needs CAP_SYS_NICE, which auto checks before choosing it). The
# pmbind kernel's debug build (pmbind-debug) runs it as pmbind. On both the kernel log
# stays clean (on pmbind-debug: no KASAN, DEBUG_VM or lockdep report).
. /checks/lib.sh
hp=$VM_HOTPLUG_NODE
MIB=128
cpus=$(nth 0 $VM_NODE_CPUS)
spec="weighted,nodes=0,2,$hp,scope=all"
NR=$(cat /checks/pmbind-nr 2>/dev/null)
PMB="--backend auto --process-mbind-nr $NR"
case $VM_KERNEL in
pmbind | pmbind-debug) want_backend=process_mbind ;;
*) want_backend=move_pages ;;
esac

for p in mpolctl mpol-launch page-touch jq-get; do
	need_prog $p || { fail setup "$p is not in the guest (it did not build)"; exit 0; }
done

# touch_start NAME ARGS...: a held page-touch on socket 0's CPUs interleaving over nodes
# 0 and 2 (named: a kernel without HMAT data may plan socket 0 differently); sets PID.
touch_start() {
	n=$1
	shift
	mpol-launch --cpus "$cpus" --spec weighted,nodes=0,2 "$@" -- page-touch $MIB --reserve 64 --hold >/tmp/$n.out 2>&1 &
	if wait_for /tmp/$n.out '^ready'; then
		PID=$(sed -n 's/^ready //p' /tmp/$n.out)
	else
		PID=
	fi
}

# json_counts FILE KEY: {"0":12,"2":5} of task 0 as "N0=12 N2=5".
json_counts() {
	jq-get ".tasks[0].$2" <"$1" | tr -d '{}"' | tr ',' '\n' | sed -n 's/^\([0-9]*\):\([0-9]*\)$/N\1=\2/p' | tr '\n' ' '
}

touch_start main
[ -n "$PID" ] || { fail toucher "page-touch did not start: $(cat /tmp/main.out)"; exit 0; }
start=$(page_counts /tmp/main.out query 0)
# exactly nodes 0 and 2 (a glob's * would accept other nodes between them)
if echo "$start" | grep -Eqx 'N0=[0-9]+ N2=[0-9]+'; then pass toucher-on-0-and-2; else fail toucher-on-0-and-2 "pages of the toucher: $start under policy '$(sed -n 's/^policy region=0 //p' /tmp/main.out)' ($(grep '^launch:' /tmp/main.out); has_memory $(cat $NODES/has_memory), the toucher's Mems_allowed $(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/$PID/status))"; fi

# mpolctl watch, started before the hot-add, rebalances a job on socket 1 (whose plan
# gains node 3) by itself once the burst of uevents has settled. A fake scontrol names
# the job's task, which carries SLURM_MEM_INTERLEAVE_MODE as the plugin's tasks do.
mkdir -p /tmp/bin
printf '#!/bin/sh\ncat /tmp/listpids\n' >/tmp/bin/scontrol
chmod +x /tmp/bin/scontrol
cpus1=$(nth 1 $VM_NODE_CPUS)
SLURM_JOB_ID=78 SLURM_MEM_INTERLEAVE_MODE=weighted mpol-launch --cpus "$cpus1" -- page-touch $MIB --hold >/tmp/job.out 2>&1 &
wait_for /tmp/job.out '^ready'
JPID=$(sed -n 's/^ready //p' /tmp/job.out)
printf 'PID JOBID STEPID LOCALID GLOBALID\n%s 78 0 0 0\n' "$JPID" >/tmp/listpids
# A task in a cgroup v2 cpuset with an explicit cpuset.mems (what Slurm writes with
# ConstrainCores=yes): the hot-added node stays outside it until --grow-cpuset.
CG=/sys/fs/cgroup
[ -f $CG/cgroup.controllers ] || mount -t cgroup2 none $CG 2>/dev/null
CPID=
if echo +cpuset >$CG/cgroup.subtree_control 2>/dev/null && mkdir -p $CG/job_79 &&
	echo "$(cat $NODES/has_memory)" >$CG/job_79/cpuset.mems; then
	MAIN=$PID
	touch_start cpuset
	CPID=$PID
	PID=$MAIN
	[ -n "$CPID" ] && echo "$CPID" >$CG/job_79/cgroup.procs
fi

# A task planned with scope=all names the possible node without memory (node $hp) with
# MPOL_F_STATIC_NODES, so its new allocations reach node $hp after the hot-add.
mpol-launch --cpus "$cpus" --spec weighted,scope=all -- page-touch $MIB --hold >/tmp/wide.out 2>&1 &
wait_for /tmp/wide.out '^ready'
WIDE=$(sed -n 's/^ready //p' /tmp/wide.out)

PATH=/tmp/bin:$PATH mpolctl watch --once --settle 2 >/tmp/watch.log 2>&1 &
WPID=$!
wait_for /tmp/watch.log 'listening for memory'

if ! hotplug "$hp" 1024; then
	fail qmp-hot-add "1 GiB hot-added to node$hp never came online"
	kill "$PID"
	exit 0
fi

t=0
while kill -0 $WPID 2>/dev/null && [ $t -lt 600 ]; do t=$((t + 1)); usleep 100000; done
if kill -0 $WPID 2>/dev/null; then
	kill $WPID
	fail watch-rebalances-the-job "mpolctl watch did not finish a round within 60 s: $(tail -n 5 /tmp/watch.log)"
elif [ -z "$JPID" ]; then
	fail watch-rebalances-the-job "the job's page-touch did not start: $(cat /tmp/job.out)"
else
	cat /tmp/watch.log
	plan=$(sed -n 's/.*(page-touch): spec [a-z]* -> nodes \([0-9,]*\) weights \([0-9:]*\).*/\1 \2/p' /tmp/watch.log | head -n 1)
	jnodes=$(echo "${plan% *}" | tr ',' ' ')
	jcounts=$(signal_counts job "$JPID" USR1 0)
	case " $jnodes " in
	*" $hp "*)
		cmp=$(counts_ratio_ok "$jcounts" "$(pair_weights "$jnodes" "${plan#* }")") &&
			pass watch-rebalances-the-job ||
			fail watch-rebalances-the-job "after the watch's round: $jcounts vs plan $plan: $cmp" ;;
	*) fail watch-rebalances-the-job "the watch's rebalance did not plan node $hp: '$plan' ($(tail -n 8 /tmp/watch.log | tr '\n' ' '))" ;;
	esac
	grep -q "memory hotplug burst: .* memory blocks online" /tmp/watch.log && pass watch-once-per-burst ||
		fail watch-once-per-burst "$(cat /tmp/watch.log)"
fi
kill "$JPID" 2>/dev/null

# A dry run plans the minimum and moves nothing.
if mpolctl rebalance --pid "$PID" --spec "$spec" --dry-run --json >/tmp/dry.json 2>/tmp/dry.err; then
	min=$(jq-get .tasks[0].minimum </tmp/dry.json)
	planned=$(jq-get .tasks[0].planned </tmp/dry.json)
	now=$(signal_counts main "$PID" USR1 0)
	if [ "$min" -gt 0 ] 2>/dev/null && [ "$planned" = "$min" ] && [ "$now" = "$start" ]; then
		pass dry-run-moves-nothing
	else
		fail dry-run-moves-nothing "minimum $min planned $planned; pages before $start, after $now"
	fi
else
	fail dry-run-moves-nothing "mpolctl rebalance --dry-run failed: $(cat /tmp/dry.err)"
fi

# Weights that differ per node, so that the plan's ratio is seen in the pages (the
# rebalance runs on the node's table: no lease). On 6.1 there is no table.
if [ -d $WI ]; then
	echo 5 >$WI/node0 && echo 2 >$WI/node2 && echo 3 >$WI/node$hp ||
		fail weights "cannot write $WI/node0, node2, node$hp"
fi

# The real run.
[ -n "$NR" ] || fail setup "/checks/pmbind-nr is empty: tests/vm/kernel/build-pmbind.sh --nr failed on the host"
if ! mpolctl rebalance --pid "$PID" --spec "$spec" $PMB --json >/tmp/rb.json 2>/tmp/rb.err; then
	fail rebalance "mpolctl rebalance failed: $(cat /tmp/rb.json /tmp/rb.err)"
	kill "$PID"
	exit 0
fi
cat /tmp/rb.err
expect_eq rebalance-done done "$(jq-get .tasks[0].status </tmp/rb.json)" "task status"
nodes=$(jq-get .tasks[0].nodes </tmp/rb.json | tr -d '[]' | tr ',' ' ')
weights=$(jq-get .tasks[0].weights </tmp/rb.json | tr -d '[]' | tr ',' ':')
expect_eq plan-has-node$hp "0 2 $hp" "$nodes" "the new plan's nodes"
ratio=$(pair_weights "$nodes" "$weights")
after=$(json_counts /tmp/rb.json after)
cmp=$(counts_ratio_ok "$after" "$ratio") && pass pages-match-weights ||
	fail pages-match-weights "mpolctl counted $after vs weights $ratio: $cmp"
mine=$(signal_counts main "$PID" USR1 0)
cmp=$(counts_ratio_ok "$mine" "$ratio") && pass pages-match-weights-toucher ||
	fail pages-match-weights-toucher "the toucher counted $mine vs weights $ratio: $cmp"
moved=$(jq-get .tasks[0].moved </tmp/rb.json)
min=$(jq-get .tasks[0].minimum </tmp/rb.json)
if [ "$min" -gt 0 ] 2>/dev/null && [ $((moved * 100)) -le $((min * 102)) ] && [ "$moved" -ge "$min" ]; then
	pass moved-is-minimum
else
	fail moved-is-minimum "moved $moved, minimum $min (before $(json_counts /tmp/rb.json before))"
fi
expect_eq backend-reported "$want_backend" "$(jq-get .backend </tmp/rb.json)" "backend ($(jq-get .why </tmp/rb.json))"
pol=$(jq-get .tasks[0].policies </tmp/rb.json)
if [ "$want_backend" = process_mbind ]; then
	[ "$pol" -gt 0 ] 2>/dev/null && pass policies-set || fail policies-set "process_mbind set the policy of '$pol' mappings"
else
	expect_eq no-policies-set 0 "$pol" "mappings given a policy by move_pages"
fi

# Resumable and idempotent: a second run at once finds nothing to move (before the
# reserve below faults: under move_pages it faults by the launch policy, a new surplus).
mpolctl rebalance --pid "$PID" --spec "$spec" $PMB --json >/tmp/rb2.json 2>/tmp/rb2.err
expect_eq rerun-moves-nothing "0 0" "$(jq-get .tasks[0].minimum </tmp/rb2.json) $(jq-get .tasks[0].moved </tmp/rb2.json)" \
	"minimum and moved of a second run"

# The untouched reserve region: its first pages fault now, the task doing nothing else.
# With process_mbind it has the new plan's policy; elsewhere the launch policy (nodes
# 0 and 2, by the table's weights, or plain interleave on 6.1) still decides.
res=$(signal_counts main "$PID" HUP reserve)
rpol=$(sed -n 's/^policy region=reserve //p' /tmp/main.out | tail -n 1)
echo "## reserve region touched after the rebalance: $res, policy $rpol"
if [ "$want_backend" = process_mbind ]; then
	rw=$ratio
	expect_eq reserve-policy "weighted interleave:$(kernel_list "$nodes")" "$rpol" \
		"the reserve region's numa_maps policy"
elif [ -d $WI ]; then
	rw="0:$(cat $WI/node0) 2:$(cat $WI/node2)"
else
	rw="0:1 2:1"
fi
cmp=$(counts_ratio_ok "$res" "$rw") && pass reserve-follows-$want_backend ||
	fail reserve-follows-$want_backend "the reserve region faulted $res vs $rw under '$rpol': $cmp"

# New allocations: the task's own policy decides them. A policy over named nodes keeps
# them (the plugin sets nodes=0,2 without standby nodes); a scope=all plan names the
# possible node $hp with MPOL_F_STATIC_NODES and the cpuset rebind at hotplug lets new
# pages reach it (doc/admin-guide.md, hotplug).
new=$(signal_counts main "$PID" USR2 1)
if echo "$new" | grep -Eqx 'N0=[0-9]+ N2=[0-9]+'; then
	pass explicit-nodes-stay-named
else
	fail explicit-nodes-stay-named "a region touched after the hot-add by a task launched with nodes=0,2 landed on '$new', not on nodes 0 and 2 only"
fi
if [ -z "$WIDE" ]; then
	fail new-allocations-reach-node$hp "the scope=all page-touch did not start: $(cat /tmp/wide.out)"
else
	wnew=$(signal_counts wide "$WIDE" USR2 1)
	wpol=$(sed -n 's/^policy region=1 //p' /tmp/wide.out | tail -n 1)
	echo "## scope=all task, region touched after the hot-add: $wnew, policy $wpol"
	case " $wnew " in
	*" N$hp="*) pass new-allocations-reach-node$hp ;;
	*) fail new-allocations-reach-node$hp "a region touched after the hot-add by a scope=all task landed on $wnew under policy '$wpol' ($(grep '^launch:' /tmp/wide.out))" ;;
	esac
	kill "$WIDE"
fi
kill "$PID"

# The cpuset case: refused without --grow-cpuset, then the job's cpuset.mems widens.
if [ -z "$CPID" ]; then
	skip grow-cpuset "no cgroup v2 cpuset in this guest (mount or cpuset.mems failed)"
else
	before=$(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/$CPID/status)
	out=$(mpolctl rebalance --pid "$CPID" --spec "$spec" 2>&1)
	rc=$?
	case "$rc $out" in
	"1 "*"its cpuset allows nodes $before only, the plan also wants $hp: give --grow-cpuset"*) pass cpuset-refused-without-grow ;;
	*) fail cpuset-refused-without-grow "exit $rc: $out" ;;
	esac
	mpolctl rebalance --pid "$CPID" --spec "$spec" --grow-cpuset --json >/tmp/grow.json 2>/tmp/grow.err
	rc=$?
	after=$(sed -n 's/^Mems_allowed_list:[[:space:]]*//p' /proc/$CPID/status)
	expect_eq grow-cpuset "0 $CG/job_79/cpuset.mems $before $(cat $CG/job_79/cpuset.mems) done" \
		"$rc $(jq-get .tasks[0].cpuset[0].file </tmp/grow.json) $(jq-get .tasks[0].cpuset[0].before </tmp/grow.json) $(jq-get .tasks[0].cpuset[0].after </tmp/grow.json) $(jq-get .tasks[0].status </tmp/grow.json)" \
		"exit, file, before, after, status ($(tail -n 3 /tmp/grow.err | tr '\n' ' '))"
	case ",$after," in
	*"$hp"*) pass cpuset-task-allowed-node$hp ;;
	*) fail cpuset-task-allowed-node$hp "Mems_allowed_list of the task is '$after' after --grow-cpuset" ;;
	esac
	ratio=$(pair_weights "$(jq-get .tasks[0].nodes </tmp/grow.json | tr -d '[]' | tr ',' ' ')" \
		"$(jq-get .tasks[0].weights </tmp/grow.json | tr -d '[]' | tr ',' ':')")
	cmp=$(counts_ratio_ok "$(json_counts /tmp/grow.json after)" "$ratio") && pass cpuset-pages-match-weights ||
		fail cpuset-pages-match-weights "$(json_counts /tmp/grow.json after) vs $ratio: $cmp"
	kill "$CPID"
	wait "$CPID" 2>/dev/null
	rmdir $CG/job_79 2>/dev/null
fi

# Pages that cannot move are counted, not retried: a forked subshell still shares
# most of its pages with this shell (copy on write), and MPOL_MF_MOVE leaves pages
# that another process maps.
( while :; do sleep 1; done ) &
SUB=$!
sleep 1
mpolctl rebalance --pid "$SUB" --spec "weighted,nodes=$hp,scope=all" --json >/tmp/shared.json 2>/tmp/shared.err
rc=$?
shared=$(jq-get .tasks[0].not_moved.shared </tmp/shared.json)
if [ $rc -eq 0 ] && [ "$shared" -gt 0 ] 2>/dev/null && [ "$(jq-get .tasks[0].status </tmp/shared.json)" = done ]; then
	pass shared-pages-counted
else
	fail shared-pages-counted "exit $rc, shared '$shared': $(cat /tmp/shared.json /tmp/shared.err | tr '\n' ' ' | cut -c1-500)"
fi
kill "$SUB"

# Permissions. An ordinary user: refused on root's process by mpolctl itself; its own
# process is rebalanced by move_pages (the kernel lets a process's owner move its pages,
# but process_mbind on another process needs CAP_SYS_NICE, so auto does not choose it).
# Root: another user's process is done (CAP_SYS_NICE).
mkdir -p /etc
grep -q '^user:' /etc/passwd 2>/dev/null || {
	echo 'root:x:0:0:root:/root:/bin/sh' >>/etc/passwd
	echo 'user:x:1000:1000:test user:/tmp:/bin/sh' >>/etc/passwd
	printf 'root:x:0:\nuser:x:1000:\n' >>/etc/group
}
touch_start rootproc
if [ -n "$PID" ]; then
	out=$(su user -s /bin/sh -c "mpolctl rebalance --pid $PID --spec $spec $PMB --json" 2>&1)
	rc=$?
	case "$rc $out" in
	"1 "*"belongs to uid 0: only root may rebalance another user's process"*) pass user-refused-on-roots-process ;;
	*) fail user-refused-on-roots-process "exit $rc: $out" ;;
	esac
	kill "$PID"
else
	fail user-refused-on-roots-process "page-touch did not start: $(cat /tmp/rootproc.out)"
fi
su user -s /bin/sh -c "mpol-launch --cpus $cpus --spec weighted,nodes=0,2 -- page-touch 32 --reserve 16 --hold" >/tmp/userproc.out 2>&1 &
UPID=
wait_for /tmp/userproc.out '^ready' && UPID=$(sed -n 's/^ready //p' /tmp/userproc.out)
if [ -z "$UPID" ]; then
	fail user-own-process "page-touch as uid 1000 did not start: $(cat /tmp/userproc.out)"
else
	su user -s /bin/sh -c "mpolctl rebalance --pid $UPID --spec $spec $PMB --json" >/tmp/own.json 2>/tmp/own.err
	rc=$?
	expect_eq user-own-process "0 done move_pages" \
		"$rc $(jq-get .tasks[0].status </tmp/own.json) $(jq-get .backend </tmp/own.json)" \
		"exit, status, backend of uid 1000 on its own process ($(tail -n 2 /tmp/own.err | tr '\n' ' '))"
	if [ "$want_backend" = process_mbind ]; then
		expect_eq user-own-process-why \
			"move_pages: process_mbind on another process needs CAP_SYS_NICE, which this process lacks (run it as root); only the surplus pages move" \
			"$(jq-get .why </tmp/own.json)" "why auto did not choose process_mbind for uid 1000"
	fi
	mpolctl rebalance --pid "$UPID" --spec "$spec" $PMB --json >/tmp/other.json 2>/tmp/other.err
	rc=$?
	expect_eq root-on-users-process "0 done $want_backend" \
		"$rc $(jq-get .tasks[0].status </tmp/other.json) $(jq-get .backend </tmp/other.json)" \
		"exit, status, backend of root on uid 1000's process ($(tail -n 2 /tmp/other.err | tr '\n' ' '))"
	ucounts=$(signal_counts userproc "$UPID" HUP reserve)
	if [ "$want_backend" = process_mbind ]; then
		case " $ucounts " in
		*" N$hp="*) pass user-reserve-follows-new-plan ;;
		*) fail user-reserve-follows-new-plan "uid 1000's reserve region faulted $ucounts after process_mbind" ;;
		esac
	fi
	kill "$UPID"
fi

# A process that did not ask (no SLURM_MEM_INTERLEAVE_MODE) in a job is skipped; the
# one that did is done.
SLURM_JOB_ID=80 SLURM_MEM_INTERLEAVE_MODE=weighted page-touch 16 --hold >/tmp/asked.out 2>&1 &
SLURM_JOB_ID=80 page-touch 16 --hold >/tmp/notasked.out 2>&1 &
wait_for /tmp/asked.out '^ready' && wait_for /tmp/notasked.out '^ready'
A=$(sed -n 's/^ready //p' /tmp/asked.out)
B=$(sed -n 's/^ready //p' /tmp/notasked.out)
printf 'PID JOBID STEPID LOCALID GLOBALID\n%s 80 0 0 0\n%s 80 0 1 1\n' "$A" "$B" >/tmp/listpids
PATH=/tmp/bin:$PATH mpolctl rebalance --job 80 $PMB --json >/tmp/job80.json 2>/tmp/job80.err
expect_eq job-asked-done "done $want_backend" "$(jq-get .tasks[0].status </tmp/job80.json) $(jq-get .backend </tmp/job80.json)" \
	"the task that asked ($(tail -n 2 /tmp/job80.err | tr '\n' ' '))"
case "$(jq-get .tasks[1].status </tmp/job80.json) $(jq-get .tasks[1].reason </tmp/job80.json)" in
"skipped "*"did not ask for --mem-interleave"*) pass job-not-asked-skipped ;;
*) fail job-not-asked-skipped "$(cat /tmp/job80.json /tmp/job80.err | tr '\n' ' ' | cut -c1-500)" ;;
esac
kill "$A" "$B"

# A process exiting mid-rebalance: a slow run (1 MiB/s), the toucher killed meanwhile
# and reaped, and its pid taken by a new process before the run goes on: the pidfd
# says the old one is gone, and the newcomer is left as it was.
touch_start exiting
if [ -n "$PID" ]; then
	mpolctl rebalance --pid "$PID" --spec "$spec" $PMB --rate 1 --json >/tmp/exit.json 2>/tmp/exit.err &
	rpid=$!
	wait_for /tmp/exit.err "rebalancing pid $PID"
	sleep 1
	kill -9 "$PID"
	wait "$PID" 2>/dev/null
	echo $((PID - 1)) >/proc/sys/kernel/ns_last_pid
	page-touch 8 --hold >/tmp/newcomer.out 2>&1 &
	NEWC=$!
	wait_for /tmp/newcomer.out '^ready'
	before=$(page_counts /tmp/newcomer.out query 0)
	wait $rpid
	rc=$?
	expect_eq exit-mid-rebalance "0 exited" "$rc $(jq-get .tasks[0].status </tmp/exit.json)" \
		"exit status and task status ($(tail -n 2 /tmp/exit.err | tr '\n' ' '))"
	if [ "$NEWC" != "$PID" ]; then
		skip recycled-pid-mid-rebalance "pid $PID was not reused (got $NEWC): ns_last_pid did not take"
	else
		after=$(signal_counts newcomer "$NEWC" USR1 0)
		npol=$(sed -n 's/^policy region=0 //p' /tmp/newcomer.out | tail -n 1)
		expect_eq recycled-pid-mid-rebalance "$before default" "$after $npol" \
			"pages and policy of the process that took pid $PID"
	fi
	kill "$NEWC" 2>/dev/null
else
	fail exit-mid-rebalance "page-touch did not start: $(cat /tmp/exiting.out)"
fi

# A recycled pid: job 77's task exits and an unrelated process gets its pid; a --job
# rebalance (a fake scontrol names the old pid) must leave the newcomer alone.
SLURM_JOB_ID=77 SLURM_MEM_INTERLEAVE_MODE=weighted page-touch 8 --hold >/tmp/old.out 2>&1 &
old=$!
wait_for /tmp/old.out '^ready'
printf 'PID JOBID STEPID LOCALID GLOBALID\n%s 77 0 0 0\n' "$old" >/tmp/listpids
kill -9 $old
wait $old 2>/dev/null
echo $((old - 1)) >/proc/sys/kernel/ns_last_pid
page-touch 8 --hold >/tmp/new.out 2>&1 &
new=$!
wait_for /tmp/new.out '^ready'
if [ "$new" != "$old" ]; then
	skip recycled-pid-left-alone "pid $old was not reused (got $new): ns_last_pid did not take"
else
	PATH=/tmp/bin:$PATH mpolctl rebalance --job 77 --spec "$spec" --json >/tmp/recycle.json 2>/tmp/recycle.err
	expect_eq recycled-pid-left-alone skipped "$(jq-get .tasks[0].status </tmp/recycle.json)" \
		"$(jq-get .tasks[0].reason </tmp/recycle.json)"
fi
kill $new 2>/dev/null
# Leave no process behind for the next check (every one of them was killed above).
wait
# Whatever process_mbind (our patch) and the page moves did, the kernel must not have
# complained; the stock kernels' logs are not ours to judge here.
[ "$want_backend" != process_mbind ] || kernel_log_clean
exit 0
