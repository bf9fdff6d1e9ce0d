# t_plan_fixtures.sh - the real mpolctl binary planning on the fixture trees (sourced by
# tests/host/run). Host-independent: every case reads a tree under tests/fixtures, so
# the numbers are the same on any machine. The expected weights are the ones the
# captured kernels set themselves (7:7:2, 4:4:1:1) or follow by hand from the HMAT
# bandwidths: e.g. 300000,300000,64000,64000 MB/s -> kernel floor(32*bw/sum) = 13:13:2:2.

TP_FIX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../fixtures" && pwd)

# tp_plan NAME WANT FIXTURE ARGS...: the plans of `mpolctl plan --json ARGS` on FIXTURE,
# one "initiator nodes weights" line each ("0 0,2 7:2"), must equal WANT (lines joined by "; ").
tp_plan() {
	local name=$1 want=$2 fix=$3 out rc got
	shift 3
	out=$("$MPOLCTL" plan --fsroot "$TP_FIX/$fix" --json "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		t_fail "$name" "exit $rc: $out"
		return
	fi
	got=$(jq -r '[.plans[] | "\(.initiator) \(.nodes | join(",")) \(.weights | join(":"))"] | join("; ")' \
		<<<"$out" 2>&1)
	if [ "$got" = "$want" ]; then t_pass "$name"; else t_fail "$name" "got '$got', want '$want'"; fi
}

if [ ! -x "$MPOLCTL" ]; then
	t_fail "plan fixtures: mpolctl" "$MPOLCTL is missing (build first)"
else
	# 7.3 at boot: node0 (CPUs 0-1) with its CXL node2; 224000 vs 64000 MB/s
	tp_plan "7.3 boot, CPUs of node0, socket: optimal 7:2" "0 0,2 7:2" \
		linux-7.3-boot --cpus 0-1
	tp_plan "7.3 boot, CPUs of node0, socket: kernel 24:7" "0 0,2 24:7" \
		linux-7.3-boot --cpus 0-1 --algorithm kernel
	tp_plan "7.3 boot, scope=all: kernel 7:7:2 (what the kernel set)" "0 0,1,2 7:7:2; 1 0,1,2 7:7:2" \
		linux-7.3-boot --scope all --algorithm kernel
	tp_plan "7.3 after hotplug, scope=all: kernel 4:4:1:1 (what the kernel set)" \
		"0 0,1,2,3 4:4:1:1; 1 0,1,2,3 4:4:1:1" \
		linux-7.3-after-hotplug --scope all --algorithm kernel
	tp_plan "two sockets with CXL, scope=all: optimal 5:5:1:1" "0 0,1,2,3 5:5:1:1; 1 0,1,2,3 5:5:1:1" \
		two-socket-cxl --scope all
	tp_plan "two sockets with CXL, scope=all: kernel 13:13:2:2" "0 0,1,2,3 13:13:2:2; 1 0,1,2,3 13:13:2:2" \
		two-socket-cxl --scope all --algorithm kernel
	# socket scope keeps each socket on its own memory: disjoint node sets
	tp_plan "two sockets with CXL, socket scope: each socket its own CXL node" \
		"0 0,2 5:1; 1 1,3 5:1" two-socket-cxl
	tp_plan "two sockets, CPUs 8-15 pick socket 1" "1 1,3 26:5" \
		two-socket-cxl --cpus 8-15 --algorithm kernel
	# CPUs on both sockets: one plan over both sockets' DRAM and CXL, half of the memory
	# spread by each socket's plan (plan_span.h); on one socket's CPUs, that socket's plan.
	tp_plan "two sockets, CPUs 0-15 span both: one plan 5:5:1:1" "0 0,1,2,3 5:5:1:1" two-socket-cxl --cpus 0-15
	tp_plan "two sockets, CPUs 0-7 on socket 0 alone: its own plan" "0 0,2 5:1" two-socket-cxl --cpus 0-7
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/two-socket-cxl" --cpus 0-15 2>&1)
	t_expect_match "plan --cpus 0-15 (text): the CPU nodes served and the CPUs on each" \
		'^CPU nodes 0,1 \(CPUs 0-15: 8 on node0 \(50%\), 8 on node1 \(50%\)\): nodes 0,1,2,3 weights 5:5:1:1 \(optimal, sum 12, modelled efficiency 98\.9%\)' \
		"$tp_out"
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/two-socket-cxl" --cpus 0-15 --json 2>&1)
	t_expect_match "plan --cpus 0-15 --json: serves node0 and node1, 8 CPUs each; targets 0.41/0.09 each" \
		'^0:8:0.5,1:8:0.5 0.412,0.412,0.088,0.088$' \
		"$(jq -r '"\(.plans[0].serves | map("\(.node):\(.cpus):\(.share)") | join(",")) \(.plans[0].shares | map(. * 1000 | round / 1000) | join(","))"' <<<"$tp_out" 2>&1)"
	# Two thirds of the CPUs on socket 0: the sockets' weights still split 50:50 (said);
	# a step owning the node scales socket 0's to 10:2 for this task.
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/two-socket-cxl" --cpus 0-11 2>&1)
	t_expect_match "plan --cpus 0-11: the split of the weights against the CPUs is said" \
		"note: the weights give CPU nodes 0,1 50%:50% of the memory, the task's CPUs are 67%:33% there" "$tp_out"
	t_expect_match "plan --cpus 0-11: what a step owning the node writes" \
		"a step that owns the node and writes its weights gives this task weights 10:5:2:1 .*modelled efficiency 98\.9%" \
		"$tp_out"
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/two-socket-cxl" --cpus 0-11 --json 2>&1)
	t_expect_match "plan --cpus 0-11 --json: owner_weights" '^10:5:2:1$' \
		"$(jq -r '.plans[0].owner_weights.weights | join(":")' <<<"$tp_out" 2>&1)"
	# The four-node guest: socket 1 has DRAM alone, so its own plan weighs it 1 and the
	# union splits 90:10; the owner's scaling gives 7:9:2.
	tp_plan "7.3 boot, CPUs 0-3 span both sockets: 7:1:2 by the sockets' own weights" "0 0,1,2 7:1:2" \
		linux-7.3-boot --cpus 0-3
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/linux-7.3-boot" --cpus 0-3 --json 2>&1)
	t_expect_match "7.3 boot, CPUs 0-3: a step owning the node writes 7:9:2" '^7:9:2 true$' \
		"$(jq -r '"\(.plans[0].owner_weights.weights | join(":")) \(.plans[0].owner_weights.efficiency > 0.99)"' <<<"$tp_out" 2>&1)"
	tp_plan "7.3 boot, CPUs 0-3, scope=all: the same nodes for both, 4:4:1" "0 0,1,2 4:4:1" \
		linux-7.3-boot --cpus 0-3 --scope all
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/two-socket-cxl" --cpus 100-101 2>&1)
	t_expect_match "plan --cpus on no node: a sentence naming them, exit 2" \
		"^mpolctl plan: the task's CPUs 100-101 belong to no NUMA node of this machine rc=2$" "$tp_out rc=$?"

	# HBM: 880000 vs 110000 MB/s is exactly 8:1
	tp_plan "HBM + DRAM: optimal 1:8" "0 0,1 1:8" hbm-dram

	# Read and write bandwidth differ: shares follow min(read, write) per node, 100000:40000
	# (read alone would give 5:1, write alone 2:1).
	tp_plan "read != write: min(read, write) per node gives 5:2" "0 0,1 5:2" asym-rw --cpus 0
	tp_plan "read != write, kernel algorithm on min(read, write): 22:9" "0 0,1 22:9" asym-rw --cpus 0 \
		--algorithm kernel
	# The capacity cap: node1 has 1 GiB free. 1 GiB of job memory fits its 2/7 share,
	# 4 GiB does not: node1 keeps 1 GiB (1/4), node0 the rest: 3:1.
	tp_plan "--mem 1G fits every share: 5:2" "0 0,1 5:2" asym-rw --cpus 0 --mem 1G
	tp_plan "--mem 4G caps the 1 GiB CXL node to a quarter: 3:1" "0 0,1 3:1" asym-rw --cpus 0 --mem 4G
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/asym-rw" --cpus 0 --mem 4G 2>&1)
	t_expect_match "--mem 4G: the text says the shares were capped by free memory" \
		"shares were capped by free memory \(--mem\)" "$tp_out"

	# The JSON a plan carries, checked once in full on 7.3 boot.
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/linux-7.3-boot" --cpus 0 --json 2>&1)
	t_expect_match "plan --json: every field of a plan" '^0 \[0,2\] \[7,2\] true true optimal true$' \
		"$(jq -c -r '.plans[0] | "\(.initiator) \(.nodes) \(.weights) \(.efficiency > 0.98) \(.weight_sum == 9) \(.algorithm) \(.left_out | type == "array")"' <<<"$tp_out" 2>&1)"
	# Standby nodes: node3 is possible without memory at boot. scope=all names it (the
	# policy then takes hot-added memory there), socket plans never do.
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/linux-7.3-boot" --json --scope all 2>&1)
	t_expect_match "plan --json, scope=all: standby node 3 in every plan" '^\[3\]\[3\]$' \
		"$(jq -c -j '.plans[].standby' <<<"$tp_out" 2>&1)"
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/linux-7.3-boot" --json 2>&1)
	t_expect_match "plan --json, socket scope: no standby nodes" '^\[\]\[\]$' \
		"$(jq -c -j '.plans[].standby' <<<"$tp_out" 2>&1)"
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/linux-7.3-after-hotplug" --json --scope all 2>&1)
	t_expect_match "plan --json, scope=all after the hot-add: node 3 planned, none on standby" '^\[\]\[\]$' \
		"$(jq -c -j '.plans[].standby' <<<"$tp_out" 2>&1)"
	# The text form says the same.
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/linux-7.3-boot" --cpus 0 2>&1)
	t_expect_match "plan (text): nodes, weights, efficiency" \
		'^initiator node0 \(CPUs 0-1\): nodes 0,2 weights 7:2 \(optimal, sum 9, modelled efficiency' "$tp_out"

	# Malformed trees plan with warnings, never crash.
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/malformed" --json 2>&1)
	tp_rc=$?
	t_expect_match "malformed tree: plan exits 0 ($tp_rc) and carries the warnings" '^0 [1-9][0-9]*$' \
		"$tp_rc $(jq '.warnings | length' <<<"$tp_out" 2>&1)"
	tp_out=$("$MPOLCTL" show --fsroot "$TP_FIX/malformed" 2>&1)
	t_expect_match "malformed tree: show names the vanished node" "node 3 is listed online but .* is missing" "$tp_out"
	# No HMAT: equal shares, said so.
	tp_out=$("$MPOLCTL" plan --fsroot "$TP_FIX/no-hmat" --cpus 0 --json 2>&1)
	t_expect_match "no HMAT: equal shares, bandwidth_known false" '^false$' \
		"$(jq '.plans[0].bandwidth_known' <<<"$tp_out" 2>&1)"
	# Kinds as show tells them.
	tp_out=$("$MPOLCTL" show --fsroot "$TP_FIX/hbm-dram" --json 2>&1)
	t_expect_match "show: HBM + DRAM kinds" '^DRAM HBM$' "$(jq -r '[.nodes[].kind] | join(" ")' <<<"$tp_out" 2>&1)"
	tp_out=$("$MPOLCTL" show --fsroot "$TP_FIX/linux-7.3-after-hotplug" --json 2>&1)
	t_expect_match "show: 7.3 after hotplug kinds and weights" '^DRAM:4 DRAM:4 CXL:1 CXL:1$' \
		"$(jq -r '[.nodes[] | "\(.kind):\(.weight)"] | join(" ")' <<<"$tp_out" 2>&1)"
	tp_out=$("$MPOLCTL" show --fsroot "$TP_FIX/linux-6.12-boot" 2>&1)
	t_expect_match "show: 6.12 layout (weights for every possible node)" "layout: 6.9-6.15" "$tp_out"
	tp_out=$("$MPOLCTL" show --fsroot "$TP_FIX/linux-6.1-boot" 2>&1)
	t_expect_match "show: 6.1 has no weighted interleave" "weighted interleave: no" "$tp_out"
	tp_out=$(MPOL_FSROOT=$TP_FIX/linux-6.18-auto-type "$MPOLCTL" show 2>&1)
	t_expect_match "show: MPOL_FSROOT picks the tree; __auto_type recognised" \
		"auto file: __auto_type = false" "$tp_out"
fi
