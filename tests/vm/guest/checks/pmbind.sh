#!/bin/sh
# vm-boot: shared
# vm-timeout: 480
# process_mbind (tests/vm/kernel/process_mbind.patch) at the system call level, with
# pmbind-test as the caller of its own target processes. On the pmbind kernel and its
# debug build (pmbind-debug: DEBUG_VM, PROVE_LOCKING, KASAN): the
# answers mpolctl's probe relies on (the identify call); a target's untouched region given weighted
# interleave from outside faults its pages in the ratio of the sysfs weights (within
# 1 %, counted with move_pages and in numa_maps) without the target doing anything but
# touch it; MPOL_MF_MOVE moves a touched region's pages onto the new nodes in their
# ratio; the nodes are taken within the target's cpuset (plain, relative, static);
# a caller in a narrower cpuset cannot move pages onto nodes it lacks (EPERM, every page
# stays in the target's cpuset); other users, the same user without CAP_SYS_NICE
# (EPERM), MPOL_MF_MOVE_ALL and local policies; pidfds of exited processes, reaped or
# not, and of a recycled pid answer ESRCH and touch nothing; a target that exits
# during a move (SIGKILL, exit) ends the call with ESRCH; bad vectors, ranges, masks,
# modes, flags and fds answer their errors and change nothing; mpolctl's probe accepts
# the number; the kernel logged no warning, BUG, KASAN or lockdep report. On every
# other kernel the same number answers ENOSYS. Leaves the weights and cgroups as it
# found them.
. /checks/lib.sh
NR=$(cat /checks/pmbind-nr 2>/dev/null)
[ -n "$NR" ] || { fail setup "/checks/pmbind-nr is empty: tests/vm/kernel/build-pmbind.sh --nr failed on the host"; exit 0; }
need_prog pmbind-test || { fail setup "pmbind-test is not in the guest (it did not build)"; exit 0; }

# run_test SCENARIO [ARG]: pmbind-test's PASS/FAIL/SKIP lines become results; its
# whole output stays in /tmp/SCENARIO.out for the counts and policies.
run_test() {
	pmbind-test "$NR" "$@" >/tmp/$1.out 2>&1
	rc=$?
	cat /tmp/$1.out
	while read -r kind name rest; do
		case $kind in
		PASS) pass "$name" ;;
		FAIL) fail "$name" "${rest#-- }" ;;
		SKIP) skip "$name" "${rest#-- }" ;;
		esac
	done </tmp/$1.out
	[ $rc = 0 ] || fail "$1-ran" "pmbind-test $* exited $rc: $(grep -Ev '^(PASS|FAIL|SKIP|pages|policy) ' /tmp/$1.out | tail -n 3)"
}
out_line() { sed -n "s/^$2 $3${4:+ $4} //p" /tmp/$1.out | tail -n 1; } # out_line SCENARIO pages|policy CASE [SOURCE]
ratio_case() { # ratio_case CASE COUNTS PAIRS
	if cmp=$(counts_ratio_ok "$2" "$3"); then pass "$1"; else fail "$1" "pages $2 vs weights $3: $cmp"; fi
}

case $VM_KERNEL in
pmbind | pmbind-debug) ;;
*) run_test enosys; exit 0 ;;
esac

run_test probe

# Weights 3:1:2 on the three nodes with memory: each node's share differs.
[ -d $WI ] || { fail weights "no $WI on the pmbind kernel"; exit 0; }
saved=""
for n in 0 1 2; do read -r v <$WI/node$n; saved="$saved $n:$v"; done
echo 3 >$WI/node0 && echo 1 >$WI/node1 && echo 2 >$WI/node2 || fail weights "cannot write $WI/node0-2"

run_test faults 0-2
for src in query numa_maps; do
	ratio_case "faults-follow-weights-$src" "$(out_line faults pages faults "$src")" "0:3 1:1 2:2"
done
expect_eq faults-policy "weighted interleave:0-2" "$(out_line faults policy faults)" "the target region's numa_maps policy"

run_test move 1-2
ratio_case move-before-on-node0 "$(out_line move pages move-before query)" "0:1"
for src in query numa_maps; do
	ratio_case "move-follows-weights-$src" "$(out_line move pages move-after "$src")" "1:1 2:2"
done
expect_eq move-policy "weighted interleave:1-2" "$(out_line move policy move-after)" "the target region's numa_maps policy"

# A target whose cpuset allows nodes 1-2 only (the caller's allows all).
CG=/sys/fs/cgroup
mounted=""
[ -f $CG/cgroup.controllers ] || { mount -t cgroup2 none $CG && mounted=yes; }
if echo +cpuset >$CG/cgroup.subtree_control && mkdir $CG/pmbind && echo 1-2 >$CG/pmbind/cpuset.mems; then
	run_test cpuset $CG/pmbind
	expect_eq cpuset-plain-policy "weighted interleave:1-2" "$(out_line cpuset policy cpuset-plain)" \
		"nodes 0-2 asked for a target whose cpuset has 1-2"
	ratio_case cpuset-faults-follow-weights "$(out_line cpuset pages cpuset-faults query)" "1:1 2:2"
	expect_eq cpuset-relative-policy "weighted interleave=relative:1-2" "$(out_line cpuset policy cpuset-relative)" \
		"relative nodes 0-1 of the cpuset's 1-2"
	expect_eq cpuset-static-policy "weighted interleave=static:1-2" "$(out_line cpuset policy cpuset-static)" \
		"static nodes 0-3 within the cpuset's 1-2"
	rmdir $CG/pmbind
else
	fail cpuset "cannot make a cgroup v2 cpuset with mems 1-2 under $CG"
fi
# Callers in narrower cpusets than their target's (nodes 1-2): nodes 0 and 0-1.
N=$CG/pmbind-narrow
if mkdir $N && echo +cpuset >$N/cgroup.subtree_control && mkdir $N/target $N/caller-0 $N/caller-01 &&
	echo 1-2 >$N/target/cpuset.mems && echo 0 >$N/caller-0/cpuset.mems && echo 0-1 >$N/caller-01/cpuset.mems; then
	run_test narrow $N
else
	fail narrow "cannot make the cgroup v2 cpusets target (mems 1-2), caller-0 (0) and caller-01 (0-1) under $N"
fi
rmdir $N/target $N/caller-0 $N/caller-01 $N 2>/dev/null
[ -z "$mounted" ] || umount $CG

run_test perms
run_test exited
run_test exit-mid-call
run_test input

for p in $saved; do echo "${p#*:}" >$WI/node${p%%:*}; done
expect_eq weights-restored "${saved# }" "$(for n in 0 1 2; do read -r v <$WI/node$n; printf '%s:%s ' $n "$v"; done | sed 's/ $//')"

# mpolctl's own probe (src/libsmpol/pages/pmbind.c) accepts the number on this kernel.
if need_prog mpolctl && need_prog jq-get; then
	page-touch 4 --hold >/tmp/pt.out 2>&1 &
	t=0
	while ! grep -q '^ready' /tmp/pt.out && [ $t -lt 100 ]; do t=$((t + 1)); usleep 100000; done
	pid=$(sed -n 's/^ready //p' /tmp/pt.out)
	mpolctl rebalance --pid "$pid" --spec weighted,nodes=0,2 --backend process_mbind --process-mbind-nr "$NR" \
		--dry-run --json >/tmp/probe.json 2>/tmp/probe.err
	expect_eq mpolctl-probe-accepts process_mbind "$(jq-get .backend </tmp/probe.json 2>&1)" \
		"mpolctl rebalance --backend process_mbind --process-mbind-nr $NR --dry-run ($(tail -n 2 /tmp/probe.err | tr '\n' ' '))"
	kill "$pid"
	wait
else
	fail mpolctl-probe-accepts "mpolctl or jq-get is not in the guest"
fi

# Whatever the calls did, the kernel must not have complained.
kernel_log_clean
exit 0
