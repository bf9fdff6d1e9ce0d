#!/bin/sh
# vm-boot: shared
# vm-timeout: 180
# The plugin's apply path for real: mpol-launch sets the policy as
# slurm_spank_task_init does and execs page-touch, which touches 64 MiB; its pages
# must land on the plan's nodes in the ratio of the weights (within 1%), counted
# both with move_pages(2) and in /proc/self/numa_maps. Weights come from the HMAT
# numbers (lib.sh's own algorithms). On a kernel without weighted interleave (6.1)
# the placement decides MPOL_INTERLEAVE and says so, and `strict` refuses.
. /checks/lib.sh
MIB=64
STATEDIR=/run/mpol-lease

need_prog mpol-launch || { fail launch "mpol-launch is not in the guest (it did not build)"; exit 0; }

# launch_check CASE WANT_PATH WANT_NODES WANT_WEIGHTS RATIO MPOL-LAUNCH-ARGS...
# RATIO is "node:weight ..." the pages must follow.
launch_check() {
	c=$1 want_path=$2 want_nodes=$3 want_weights=$4 ratio=$5
	shift 5
	if ! mpol-launch "$@" -- page-touch $MIB >/tmp/launch.out 2>&1; then
		fail "$c" "mpol-launch $* failed: $(cat /tmp/launch.out)"
		return
	fi
	line=$(grep '^launch:' /tmp/launch.out)
	got="$(echo "$line" | sed -n 's/.* path=\([^ ]*\).*/\1/p') $(echo "$line" | sed -n 's/.* nodes=\([^ ]*\).*/\1/p')"
	[ -z "$want_weights" ] || got="$got $(echo "$line" | sed -n 's/.* weights=\([^ ]*\).*/\1/p')"
	expect_eq "$c-applied" "$want_path $want_nodes${want_weights:+ $want_weights}" "$got" "$line"
	for src in query numa_maps; do
		counts=$(page_counts /tmp/launch.out $src)
		if cmp=$(counts_ratio_ok "$counts" "$ratio"); then
			pass "$c-pages-$src"
		else
			fail "$c-pages-$src" "pages $counts vs weights $ratio: $cmp"
		fi
	done
	sed -n 's/^policy region=0 //p' /tmp/launch.out >/tmp/launch.policy
}

has_wi=$([ -d $WI ] && echo yes || echo no)
for i in $VM_NODES; do
	cpus=$(nth "$i" $VM_NODE_CPUS)
	[ "$cpus" != - ] || continue
	nodes=$(socket_nodes "$i")
	list=$(echo $nodes | tr ' ' ',')
	if [ $has_wi = yes ]; then
		# The step's lease writes the plan's weights, so the pages follow them.
		for algo in optimal kernel; do
			w=$(algo_weights $algo $nodes)
			launch_check "node$i-$algo" weighted-interleave "$list" "$w" "$(pair_weights "$nodes" "$w")" \
				--cpus "$cpus" --algorithm $algo --lease $STATEDIR
		done
		expect_eq "node$i-policy" "weighted interleave:$list" "$(cat /tmp/launch.policy)" "numa_maps policy"
		# Without the lease the task runs on the kernel's current weights (shared node).
		sys=""
		for n in $nodes; do read -r v <$WI/node$n; sys="$sys $n:$v"; done
		launch_check "node$i-system-weights" weighted-interleave "$list" "" "${sys# }" --cpus "$cpus"
		# Mode auto: the kernel's weights, our node set, never a lease.
		launch_check "node$i-auto-mode" weighted-interleave "$list" "" "${sys# }" --cpus "$cpus" --spec auto --lease $STATEDIR
		expect_eq "node$i-auto-mode-reported" auto "$(sed -n 's/^launch:.* mode=\([^ ]*\).*/\1/p' /tmp/launch.out)" \
			"the mode the task is told (SLURM_MEM_INTERLEAVE_MODE)"
	else
		# 6.1: MPOL_INTERLEAVE over the plan's nodes, one page each, said in the launch line.
		eq=""
		for n in $nodes; do eq="$eq $n:1"; done
		launch_check "node$i-fallback" interleave "$list" "$(echo $nodes | sed "s/[0-9][0-9]*/1/g; s/ /:/g")" "${eq# }" --cpus "$cpus"
		line=$(grep '^launch:' /tmp/launch.out)
		case $line in
		*note=this\ kernel\ has\ no\ weighted\ interleave*) pass "node$i-fallback-reported" ;;
		*) fail "node$i-fallback-reported" "the launch line does not report the fallback: $line" ;;
		esac
		expect_eq "node$i-policy" "interleave:$list" "$(cat /tmp/launch.policy)" "numa_maps policy"
		# strict: the task must not start, and the message says why.
		mpol-launch --cpus "$cpus" --spec weighted,strict -- page-touch 1 >/tmp/strict.out 2>&1
		rc=$?
		if [ $rc = 1 ] && grep -q 'strict: .*no weighted interleave.*not falling back to interleave' /tmp/strict.out &&
			! grep -q '^pages' /tmp/strict.out; then
			pass "node$i-strict-refuses"
		else
			fail "node$i-strict-refuses" "exit $rc: $(cat /tmp/strict.out)"
		fi
	fi
done

# Plain interleave asked for: one page per node whatever the kernel.
list=$(socket_nodes 0 | tr ' ' ',')
launch_check interleave-mode interleave "$list" "" \
	"$(for n in $(socket_nodes 0); do printf '%s:1 ' $n; done)" --cpus "$(nth 0 $VM_NODE_CPUS)" --spec interleave
expect_eq interleave-mode-policy "interleave:$list" "$(cat /tmp/launch.policy)" "numa_maps policy"

# Bad requests on the real topology: the empty node, a node that does not exist, a
# bad spec. Each must end in a sentence naming the problem, the program never run.
refused() { # refused CASE WANT_RC REGEX SPEC
	mpol-launch --cpus "$(nth 0 $VM_NODE_CPUS)" --spec "$4" -- page-touch 1 >/tmp/bad.out 2>&1
	rc=$?
	if [ $rc = "$2" ] && grep -Eq "$3" /tmp/bad.out && ! grep -q '^pages' /tmp/bad.out; then
		pass "$1"
	else
		fail "$1" "--spec $4: exit $rc (want $2, a message matching /$3/, no pages): $(cat /tmp/bad.out)"
	fi
}
refused empty-node-refused 1 "node $VM_HOTPLUG_NODE (has no memory|is not online); nodes with memory" "weighted,nodes=$VM_HOTPLUG_NODE"
refused absent-node-refused 1 'node 9' 'weighted,nodes=9'
refused bad-spec-refused 2 "bogus" 'weighted,bogus'
