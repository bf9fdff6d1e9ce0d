# lib.sh - what every guest check sources (busybox ash). See tests/vm/README.md for
# the contract: pass/fail/skip write one result line each to the result port
# ($VM_RESULTS, the guest's second serial port), which the host turns into
# t_pass/t_fail/t_skip named "KERNEL: CHECK/CASE".
. /checks/topology.sh

WI=/sys/kernel/mm/mempolicy/weighted_interleave
NODES=/sys/devices/system/node
: "${VM_RESULTS:=/dev/stdout}" "${VM_CHECK:=$(basename "$0" .sh)}" "${VM_KERNEL:=unknown}"

_result() { # _result KIND CASE [REASON]
	r=$(printf '%s' "$3" | tr '\n\r' '||' | cut -c1-700)
	echo "@@RESULT $1 $VM_CHECK/$2${r:+ -- $r}" >>"$VM_RESULTS"
	echo "## $1 $VM_CHECK/$2${r:+ -- $r}"
}
pass() { _result PASS "$1"; }
fail() { _result FAIL "$1" "$2"; }
skip() { _result SKIP "$1" "${2:?a skip needs a reason}"; }
# expect_eq CASE WANT GOT [WHAT]: pass when equal, else fail saying both.
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "${4:+$4: }expected '$2', got '$3'"; fi
}

# kernel_log_clean: one case, kernel-log-clean, failing with the first lines of any
# complaint in the kernel log (oops=panic ends the guest on an oops; a WARN or a BUG
# report would only be in the log). On pmbind-debug, KASAN and DEBUG_VM report as
# "BUG:", lockdep as "WARNING:" (a lock order) or "INFO:" ("INFO: lockdep is turned
# off"); there it first checks, as debug-checkers-on, that KASAN and lockdep are in
# the running kernel, so that a clean log means something.
kernel_log_clean() {
	if [ "$VM_KERNEL" = pmbind-debug ]; then
		if dmesg | grep -q 'KernelAddressSanitizer initialized' && [ -r /proc/lockdep ]; then
			pass debug-checkers-on
		else
			fail debug-checkers-on "$(uname -r): no 'KernelAddressSanitizer initialized' in dmesg or no /proc/lockdep"
		fi
	fi
	if dmesg | grep -E 'WARNING:|BUG:|INFO: |Oops|general protection|Call Trace|UBSAN' >/tmp/dmesg.bad; then
		fail kernel-log-clean "$(head -n 5 /tmp/dmesg.bad)"
	else
		pass kernel-log-clean
	fi
}

# in_list N LIST: N is in the kernel's list syntax LIST ("0-1,3").
in_list() {
	echo "$2" | tr ',' '\n' | awk -F- -v n="$1" '($2 == "" && $1 == n) || ($2 != "" && n >= $1 && n <= $2) { f = 1 } END { exit !f }'
}

# A program the host failed to build is listed in /checks/missing.txt.
need_prog() {
	if grep -qx "$1" /checks/missing.txt 2>/dev/null || ! command -v "$1" >/dev/null; then
		echo "## $1 is not in the guest: it did not build (see guest-build.log on the host)"
		return 1
	fi
}

# wi_snapshot: the whole weighted-interleave table, "auto=true node0=7 ..." (sorted).
wi_snapshot() {
	[ -d $WI ] || { echo absent; return; }
	out=""
	for f in $WI/*; do
		[ -f "$f" ] || continue
		read -r v <"$f"
		out="$out ${f##*/}=$v"
	done
	echo "${out# }"
}

# wi_auto_file: the name of the auto file ("auto" or "__auto_type"), empty if none.
wi_auto_file() {
	for f in auto __auto_type; do [ -f $WI/$f ] && { echo $f; return; }; done
}

# node_bw NODE: the bandwidth a node's best initiator gets (what the kernel's access
# classes report, and what auto weights use).
node_bw() {
	echo "$VM_HMAT" | awk -v t="$1" '$2 == t && $4 > best { best = $4 } END { print best }'
}

# kernel_weights BW...: Linux 6.16 auto mode: floor(32 * bw / sum), at least 1, / GCD.
kernel_weights() {
	echo "$@" | awk '{
		for (i = 1; i <= NF; i++) sum += $i
		for (i = 1; i <= NF; i++) { w[i] = int(32 * $i / sum); if (w[i] < 1) w[i] = 1 }
		g = w[1]
		for (i = 2; i <= NF; i++) { a = g; b = w[i]; while (b) { t = a % b; a = b; b = t }; g = a }
		for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? ":" : ""), w[i] / g
		print "" }'
}

# optimal_weights PRECISION MAXSUM BW...: D'Hondt apportionments of every weight sum
# S up to MAXSUM, rated by S * min(share_i / w_i); the smallest S reaching PRECISION,
# unless one at most half as large reaches PRECISION - 0.01; with none reaching
# PRECISION, the smallest reaching PRECISION - 0.02, else the best S. A node with no
# seat gets 0. Written independently of weights.c, from doc/design-notes.md.
optimal_weights() {
	echo "$@" | awk '
	function first(upto, target,   s) { for (s = 1; s <= upto; s++) if (eff[s] >= target - 1e-12) return s; return 0 }
	{
		p = $1; max = $2; n = NF - 2
		for (i = 1; i <= n; i++) { bw[i] = $(i + 2); sum += bw[i] }
		for (i = 1; i <= n; i++) { f[i] = bw[i] / sum; w[i] = 0 }
		best = 0
		for (s = 1; s <= max; s++) {
			k = 1
			for (i = 2; i <= n; i++) if (f[i] / (w[i] + 1) > f[k] / (w[k] + 1) + 1e-12) k = i
			w[k]++
			m = 2
			for (i = 1; i <= n; i++) if (w[i] > 0 && f[i] / w[i] < m) m = f[i] / w[i]
			eff[s] = s * m
			for (i = 1; i <= n; i++) at[s, i] = w[i]
			if (!best || eff[s] > eff[best] + 1e-12) best = s
		}
		pick = first(max, p)
		if (pick) { near = first(int(pick / 2), p - 0.01); if (near) pick = near }
		else { pick = first(max, p - 0.02); if (!pick) pick = best }
		for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? ":" : ""), at[pick, i]
		print "" }'
}

# json_list A:B:C -> [A,B,C] (how jq-get prints an array of numbers).
json_list() { echo "[$(echo "$1" | tr ':' ',')]"; }

# counts_ratio_ok "N0=.. N2=.." "0:7 2:2": every node's page count within 1% of the
# total of what the weights ask for (nodes without a weight must get nothing).
# Prints the comparison; returns 1 when off.
counts_ratio_ok() {
	echo "$1 | $2" | awk -F'|' '{
		n = split($1, c, " "); total = 0
		for (i = 1; i <= n; i++) { split(c[i], kv, "="); node = substr(kv[1], 2); got[node] = kv[2]; total += kv[2]; seen[node] = 1 }
		m = split($2, w, " "); wsum = 0
		for (i = 1; i <= m; i++) { split(w[i], nw, ":"); want[nw[1]] = nw[2]; wsum += nw[2]; seen[nw[1]] = 1 }
		if (total == 0 || wsum == 0) { print "no pages counted or no weights"; exit 1 }
		bad = 0
		for (node in seen) {
			x = total * want[node] / wsum
			d = got[node] - x; if (d < 0) d = -d
			printf "N%s=%d (want %.0f) ", node, got[node], x
			if (d > 0.01 * total) bad = 1
		}
		print ""
		exit bad }'
}

# page_counts FILE SOURCE [REGION]: "N0=.. N2=.." from page-touch output
# (SOURCE = query or numa_maps).
page_counts() {
	sed -n "s/^pages $2 region=${3:-0}\( total=[0-9]*\)\{0,1\} //p" "$1" | tail -n 1
}

# wait_for FILE REGEX [TENTHS]: until REGEX shows up in FILE (default 30 s).
wait_for() {
	t=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		t=$((t + 1))
		[ $t -le "${3:-300}" ] || return 1
		usleep 100000
	done
}

# signal_counts NAME PID SIG REGION: signal the page-touch writing /tmp/NAME.out, wait
# for its ack, print the region's counts from move_pages.
signal_counts() {
	before=$(grep -c '^ack' /tmp/$1.out)
	kill -"$3" "$2"
	t=0
	while [ "$(grep -c '^ack' /tmp/$1.out)" -le "$before" ]; do
		t=$((t + 1)); [ $t -le 300 ] || break; usleep 100000
	done
	page_counts /tmp/$1.out query "$4"
}

# blocks NODE [STATE]: how many memory blocks the node has (in STATE).
blocks() {
	c=0
	for b in $NODES/node$1/memory[0-9]*; do
		[ -e "$b/state" ] || continue
		if [ -n "$2" ]; then read -r s <"$b/state"; [ "$s" = "$2" ] || continue; fi
		c=$((c + 1))
	done
	echo $c
}

# hotplug NODE SIZE_MB: ask the host to hot-add a DIMM to NODE over QMP, wait until
# its memory blocks are there, and online any the kernel left offline (6.1 does;
# online_movable, as a udev rule would). 0 when the node has more online memory.
hotplug() {
	before=$(blocks "$1" online)
	seq=$(($(cat /run/vm-hotplug-seq 2>/dev/null || echo 0) + 1))
	echo $seq >/run/vm-hotplug-seq
	echo "@@HOTPLUG $seq $1 $2" >>"$VM_RESULTS"
	t=0
	while [ "$(blocks "$1")" -le "$before" ]; do
		t=$((t + 1))
		[ $t -le 600 ] || { echo "## hotplug: no new memory block on node$1 after 60 s"; return 1; }
		usleep 100000
	done
	# ACPI adds a DIMM's blocks one after the other: wait until the count settles.
	last=-1
	while [ "$(blocks "$1")" != "$last" ]; do last=$(blocks "$1"); usleep 300000; done
	for b in $NODES/node$1/memory[0-9]*; do
		read -r s <"$b/state"
		[ "$s" = offline ] && { echo online_movable >"$b/state" || echo "## hotplug: cannot online $b"; }
	done
	echo "## hotplug: node$1 blocks $(blocks "$1") online $(blocks "$1" online)"
	[ "$(blocks "$1" online)" -gt "$before" ]
}

# mem_nodes: the nodes that have memory now ("0 1 2"), from the kernel's has_memory.
mem_nodes() {
	read -r l <$NODES/has_memory
	echo "$l" | tr ',' '\n' | awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) printf "%d ", i }'
	echo
}

# socket_nodes I: CPU node I and the memory-only nodes local to it (topology.sh) that
# have memory now: the candidates of I's plan with scope=socket.
socket_nodes() {
	s=""
	for n in $(mem_nodes); do
		if [ "$n" = "$1" ] || { [ "$(nth "$n" $VM_NODE_CPUS)" = - ] && [ "$(nth "$n" $VM_NODE_INITIATOR)" = "$1" ]; }; then
			s="$s $n"
		fi
	done
	echo $s
}

# algo_weights ALGO NODE...: lib.sh's weights (W:W:..) for these nodes' bandwidths.
algo_weights() {
	a=$1
	shift
	bws=""
	for n in "$@"; do bws="$bws $(node_bw "$n")"; done
	if [ "$a" = kernel ]; then kernel_weights $bws; else optimal_weights 0.98 72 $bws; fi
}

# pair_algo_weights ALGO INITIATOR NODE...: the same with each node's bandwidth from
# INITIATOR (topology.sh's matrix: what the raw ACPI HMAT gives every pair).
pair_algo_weights() {
	a=$1 i=$2
	shift 2
	bws=""
	for n in "$@"; do bws="$bws $(hmat_bw "$i" "$n")"; done
	if [ "$a" = kernel ]; then kernel_weights $bws; else optimal_weights 0.98 72 $bws; fi
}

# kernel_list "0 2 3" -> "0,2-3" (ascending ids, as numa_maps prints a node list)
kernel_list() {
	echo "$1" | awk '{
		out = ""
		for (i = 1; i <= NF; i = j + 1) {
			for (j = i; j < NF && $(j + 1) == $j + 1; j++) ;
			out = out (out == "" ? "" : ",") $i (j > i ? "-" $j : "")
		}
		print out }'
}

# pair_weights "0 2" 7:2 -> "0:7 2:2"
pair_weights() {
	w=$2 out=""
	for n in $1; do out="$out $n:${w%%:*}"; w=${w#*:}; done
	echo ${out# }
}

# up: whole seconds since boot.
up() { cut -d. -f1 /proc/uptime; }

# slurm_start: munged, slurmctld and slurmd of the Slurm image (slurm-root.sh) on this
# node, until the node is idle; reports the case "daemons". SLURM_T0: the uptime they
# started at. Returns 1 (after a fail) when they do not come up.
slurm_start() {
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
	SLURM_T0=$(cut -d' ' -f1 /proc/uptime)
	munged --force --num-threads=2 2>/tmp/munged.err || { fail daemons "munged did not start: $(cat /tmp/munged.err)"; return 1; }
	slurmctld 2>/tmp/ctld.err ||
		{ fail daemons "slurmctld did not start: $(cat /tmp/ctld.err; tail -n 5 /var/log/slurmctld.log)"; return 1; }
	slurmd 2>/tmp/slurmd.err ||
		{ fail daemons "slurmd did not start: $(cat /tmp/slurmd.err; tail -n 5 /var/log/slurmd.log)"; return 1; }
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
		return 1
	fi
	echo "## slurm up after $(awk -v a="$SLURM_T0" '{ print $1 - a }' /proc/uptime)s"
	pass daemons
}

# plugstack ARGS...: the plugin's arguments for the steps started from now on.
plugstack() {
	printf 'required /usr/lib/x86_64-linux-gnu/slurm-wlm/mem_interleave.so %s\n' "$*" >/etc/slurm/plugstack.conf
}
