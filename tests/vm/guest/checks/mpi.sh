#!/bin/sh
# vm-boot: own
# vm-initramfs: mpi
# vm-timeout: 600
# vm-kernels: 6.12 newest
# MPI launchers under real Slurm on the guest's two sockets (Debian's Open MPI, MPICH
# and PMIx; tests/vm/mpi-root.sh): every rank's buffer must follow the plan of its own
# CPUs, the weights `mpolctl plan --cpus <the rank's CPUs>` prints, within 1 %, read
# from the rank's /proc/PID/numa_maps. Four ranks, one per core, so two per socket:
#   pmix    srun --mpi=pmix direct launch: the ranks are Slurm's tasks;
#   ompi    Open MPI's mpirun inside sbatch: the ranks are mpirun's children, started
#           after the plugin ran, under the batch task's plan for all four CPUs;
#   orted   the same with ras_base_launch_orted_on_hn: the ranks are children of an
#           orted, a task of a step srun started;
#   hydra   MPICH's mpiexec with the Slurm bootstrap inside sbatch: the ranks are
#           children of hydra_pmi_proxy, a task of a step srun started.
# In the last three, slurmstepd's sampler (sample_interval=1) must give each rank its
# own socket's plan (children follow their CPUs); the ranks touch their memory at
# once, so the pages are moved there. Then a hybrid one-task step on all CPUs gets the
# combined plan (the weights a step owning the node writes); the hydra job without
# --mem-interleave, and a process of the job's user outside any job, on socket 1's
# CPUs, are never touched.
. /checks/lib.sh
export PATH=/bin:/usr/sbin:/usr/bin
RANK_MIB=32

slurm_start || exit 0
plugstack sample_interval=1

# plan_for CPUS [PATH]: NODES ("0 2") and W ("7:2") of `mpolctl plan --cpus CPUS`
# (PATH: which weights, default the plan's own); equal shares without weighted
# interleave (the tasks fall back to interleave there).
plan_for() {
	NODES= W=
	mpolctl plan --json --cpus "$1" >/tmp/plan.json 2>/tmp/plan.err || return 1
	NODES=$(jq-get '.plans[0].nodes' </tmp/plan.json | tr -d '[]' | tr ',' ' ')
	W=$(jq-get "${2:-.plans[0].weights}" </tmp/plan.json | tr -d '[]' | tr ',' ':')
	[ -d $WI ] || W=$(echo $NODES | sed 's/[0-9][0-9]*/1/g; s/ /:/g')
	[ -n "$NODES" ] && [ -n "$W" ]
}

# buffer_pages PID ADDR: "N0=.. N2=.." of the mapping at ADDR in PID's numa_maps.
buffer_pages() {
	grep "^$2 " /proc/$1/numa_maps | tr ' ' '\n' | grep '^N[0-9]*=' | tr '\n' ' ' | sed 's/ $//'
}

# cpu_ids LIST: "0-1,3" -> "0 1 3"
cpu_ids() {
	echo "$1" | tr ',' '\n' | awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) printf "%d ", i }'
}

# socket_of CPUS: the CPU node holding CPUS ("" when they span several).
socket_of() {
	s=""
	for n in $VM_NODES; do
		l=$(nth "$n" $VM_NODE_CPUS)
		[ "$l" = - ] && continue
		inside=1
		for c in $(cpu_ids "$1"); do
			in_list "$c" "$l" || inside=0
		done
		[ $inside = 1 ] && s=$n
	done
	echo "$s"
}

# check_ranks CASE OUT [local]: each "rank R of N pid P cpus L addr A" line of OUT
# against the plan of its CPUs (polled for up to 30 s: the sampler moves a child's
# pages after it touched them), and both sockets had ranks. With "local" (a job that
# did not ask) every page must be on the rank's own socket's DRAM, as the kernel puts
# them, and slurmd's log must not name the rank.
check_ranks() {
	c=$1
	grep '^rank ' "$2" >/tmp/$c.ranks
	sockets=""
	while read -r _ r _ _ _ pid _ cpus _ addr; do
		s=$(socket_of "$cpus")
		sockets="$sockets $s"
		if [ "$3" = local ]; then
			NODES=$s W=1
			grep -q "process $pid " /var/log/slurmd.log &&
				fail "$c-rank$r-unnamed" "slurmd named it: $(grep "process $pid " /var/log/slurmd.log)"
		elif ! plan_for "$cpus"; then
			fail "$c-rank$r" "mpolctl plan --cpus $cpus failed: $(cat /tmp/plan.err)"
			continue
		fi
		i=0
		while :; do
			counts=$(buffer_pages "$pid" "$addr")
			cmp=$(counts_ratio_ok "$counts" "$(pair_weights "$NODES" "$W")") && break
			i=$((i + 1))
			[ $i -le 30 ] || break
			sleep 1
		done
		if [ $i -le 30 ]; then
			echo "## $c rank $r pid $pid CPUs $cpus: $counts (plan $NODES at $W) after ${i}s"
			pass "$c-rank$r"
		else
			fail "$c-rank$r" "pid $pid CPUs $cpus (socket '$s'): $(grep "^$addr " /proc/$pid/numa_maps | cut -d' ' -f2) $cmp vs plan $NODES at $W after 30 s; slurmd: $(grep "process $pid " /var/log/slurmd.log | tail -n 2)"
		fi
	done </tmp/$c.ranks
	case " $sockets " in
	*" 0 "*" 1 "* | *" 1 "*" 0 "*) pass "$c-both-sockets" ;;
	*) fail "$c-both-sockets" "ranks on sockets '$sockets': $(cat /tmp/$c.ranks)" ;;
	esac
}

# as_user CMD: CMD as the ordinary user (Open MPI refuses root), in /tmp.
as_user() { su user -s /bin/sh -c "cd /tmp && $1"; }

# wait_ranks CASE OUT: until OUT has 4 rank lines (180 s); fails CASE-start otherwise.
wait_ranks() {
	t=0
	while n=$(grep -c '^rank ' "$2" 2>/dev/null); [ "${n:-0}" -lt 4 ]; do
		t=$((t + 1))
		[ $t -le 180 ] || { fail "$1-start" "no 4 ranks after 180 s: $(tail -n 8 "$2"; tail -n 3 /var/log/slurmd.log)"; return 1; }
		sleep 1
	done
	echo "## $1: 4 ranks up after ${t}s"
}

# job_done CASE: release the ranks, wait until no job is left (60 s; then cancel them,
# so that the next case gets the node).
job_done() {
	touch /tmp/$1.release
	t=0
	while [ -n "$(squeue -h -o %i)" ] && [ $t -lt 60 ]; do sleep 1; t=$((t + 1)); done
	[ $t -lt 60 ] || { fail "$1-end" "the job did not end: $(squeue)"; scancel -u user; return 1; }
}

# A process of the job's user that did not ask, on socket 1's CPUs, started before
# the jobs: its pages stay where they are and nothing names it.
c1=$(nth 1 $VM_NODE_CPUS | cut -d- -f1)
as_user "taskset -c $c1 page-touch 32 --hold >/tmp/plain.out 2>&1" &
plain=
wait_for /tmp/plain.out '^ready' && plain=$(sed -n 's/^ready //p' /tmp/plain.out)
before=""
[ -n "$plain" ] && before=$(signal_counts plain "$plain" USR1 0)

# ranks_case CASE [local]: the ranks of the launch writing /tmp/CASE.out against their
# plans (check_ranks), then the job's end.
ranks_case() {
	wait_ranks "$1" /tmp/$1.out && check_ranks "$1" /tmp/$1.out "$2"
	job_done "$1" && pass "$1-end"
}

# sbatch_case CASE LINES [OPTION]: a four-task batch job whose script is LINES, with
# OPTION (default --mem-interleave=weighted; empty: the job does not ask, its ranks
# must be local).
sbatch_case() {
	printf '#!/bin/sh\n%s\n' "$2" >/tmp/$1.sh
	chmod 755 /tmp/$1.sh
	as_user "sbatch -n4 -o /tmp/$1.out ${3---mem-interleave=weighted} /tmp/$1.sh" >/tmp/$1.sbatch 2>&1 ||
		fail "$1-sbatch" "$(cat /tmp/$1.sbatch)"
	ranks_case "$1" "$([ -n "${3---mem-interleave=weighted}" ] || echo local)"
}

# pmix: srun direct launch.
if srun --mpi=list 2>&1 | grep -qw pmix; then
	as_user "timeout 300 srun -n4 --mpi=pmix --cpu-bind=cores --mem-interleave=weighted mpi-touch-openmpi $RANK_MIB /tmp/pmix.release" \
		>/tmp/pmix.out 2>&1 &
	ranks_case pmix
else
	fail pmix-plugin "srun --mpi=list has no pmix: $(srun --mpi=list 2>&1 | tr '\n' ' ')"
fi

# ompi: mpirun inside sbatch; the ranks are mpirun's children. The guest has no ssh,
# whose absence Open MPI 4 takes as fatal even where it launches through srun, and
# only a loopback interface, which its out-of-band channel skips unless named.
ompi_env="export OMPI_MCA_plm=slurm OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
export OMPI_MCA_btl_vader_single_copy_mechanism=none"
ompi_run="mpirun.openmpi -n 4 --bind-to core --map-by core mpi-touch-openmpi $RANK_MIB"
sbatch_case ompi "$ompi_env
$ompi_run /tmp/ompi.release"
# orted: the same with the head node left to an orted that srun starts (how Open MPI
# runs where mpirun may not fork ranks itself): the ranks are the orted's children.
sbatch_case orted "$ompi_env
export OMPI_MCA_ras_base_launch_orted_on_hn=1
$ompi_run /tmp/orted.release"

# hydra: mpiexec with the Slurm bootstrap inside sbatch; the ranks are children of
# hydra_pmi_proxy, which srun started as a step's task. MPICH is built with ch4:ucx:
# shared memory only.
hydra_env="export UCX_TLS=self,sm UCX_WARN_UNUSED_ENV_VARS=n"
hydra_run="mpiexec.hydra -launcher slurm -bind-to core -n 4 mpi-touch-mpich $RANK_MIB"
sbatch_case hydra "$hydra_env
$hydra_run /tmp/hydra.release"
# noopt: the same job without --mem-interleave: its ranks (policy "default", as above)
# are not the plugin's, and keep their pages on their own socket's DRAM.
sbatch_case noopt "$hydra_env
$hydra_run /tmp/noopt.release" ""

# hybrid: one task on every CPU gets the combined plan, with the weights a step that
# owns the node writes (owner_weights), in its environment and its pages.
all=$(kernel_list "$(cpu_ids "$(echo $VM_NODE_CPUS | tr ' ' '\n' | grep -v '^-$' | tr '\n' ',' | sed 's/,$//')")")
as_user "timeout 120 srun -n1 -c4 --mem-interleave=weighted sh -c 'echo \"cpus \$(sed -n \"s/^Cpus_allowed_list:[[:space:]]*//p\" /proc/self/status)\";
	echo \"env \$SLURM_MEM_INTERLEAVE_NODES \$SLURM_MEM_INTERLEAVE_WEIGHTS\"; page-touch 64'" >/tmp/hybrid.out 2>&1
cat /tmp/hybrid.out
cpus=$(sed -n 's/^cpus //p' /tmp/hybrid.out)
expect_eq hybrid-cpus "$all" "$cpus" "the hybrid task's CPUs"
if ! plan_for "$all" .plans[0].owner_weights.weights; then
	fail hybrid-plan "mpolctl plan --cpus $all gave no owner weights: $(cat /tmp/plan.err; head -c 300 /tmp/plan.json)"
else
	[ -d $WI ] && expect_eq hybrid-env "$(echo $NODES | tr ' ' ',') $W" "$(sed -n 's/^env //p' /tmp/hybrid.out)" \
		"SLURM_MEM_INTERLEAVE_{NODES,WEIGHTS} of the one task on CPUs $all"
	for src in query numa_maps; do
		counts=$(page_counts /tmp/hybrid.out $src)
		cmp=$(counts_ratio_ok "$counts" "$(pair_weights "$NODES" "$W")") && pass "hybrid-pages-$src" ||
			fail "hybrid-pages-$src" "pages $counts vs the combined plan $NODES at $W: $cmp"
	done
fi

if [ -z "$plain" ]; then
	fail untouched "the process without the option did not start: $(cat /tmp/plain.out)"
else
	expect_eq untouched-pages "$before" "$(signal_counts plain "$plain" USR1 0)" "pages of the process that did not ask"
	grep -q "process $plain \|pid $plain" /var/log/slurmd.log &&
		fail untouched-unnamed "slurmd named it: $(grep "process $plain \|pid $plain" /var/log/slurmd.log)" ||
		pass untouched-unnamed
	kill "$plain"
fi
echo "## slurmd's lines about the jobs' processes:"
grep 'mem_interleave' /var/log/slurmd.log | grep -v 'sample\b' | tail -n 30
echo "## mpi check done after $(awk -v a="$SLURM_T0" '{ print $1 - a }' /proc/uptime)s"
