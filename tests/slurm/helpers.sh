# helpers.sh - shared by the slurm tier's t_*.sh files (sourced by tests/slurm/run,
# after tests/lib.sh; SLURM_CONF points at the running test cluster).

CLUSTER=$here/cluster.sh
SHOW=$here/show_task.sh
STATEDIR=$MPOL_CLUSTER_DIR/statedir
OUTDIR=$MPOL_CLUSTER_DIR/out
HOST=$(hostname -s)
SLURMD_LOG=$MPOL_CLUSTER_DIR/log/slurmd-$HOST.log
TEST_USER=mpoluser
WI_DIR=/sys/kernel/mm/mempolicy/weighted_interleave
# A captured Linux 6.1 sysfs (no weighted interleave), under either name it has had.
FIXTURE_OLD=$top/tests/fixtures/linux-6.1-boot
[ -d "$FIXTURE_OLD" ] || FIXTURE_OLD=$top/tests/fixtures/6.1.0-57-cloud-amd64/boot
# Every job command is bounded, so a hung step fails its case instead of the tier.
JOB_TIMEOUT=${JOB_TIMEOUT:-60}

# plugstack ARG...: the plugin arguments for the steps started from now on (the tier's
# own statedir unless ARGs name one, so no test touches /run).
plugstack() {
	case " $* " in
	*" statedir="*) "$CLUSTER" plugstack "$@" >/dev/null ;;
	*) "$CLUSTER" plugstack "statedir=$STATEDIR" "$@" >/dev/null ;;
	esac
}

# restart_cluster [VAR=VALUE...]: the tier's two-node cluster started again with these
# variables in the daemons' environment (cluster.sh's settings, LD_PRELOAD...): Slurm's
# daemons read their plugins, plugstack.conf and environment when they start. Without
# VARs, as the tier started it. Prints cluster.sh's output.
restart_cluster() {
	local pid
	read -r pid <"$MPOL_CLUSTER_DIR/run/slurmd-$HOST.pid" && kill -TERM "$pid" 2>/dev/null
	wait_until 15 sh -c "! '$CLUSTER' status" || true
	env MPOL_PLUGSTACK_ARGS="statedir=$STATEDIR" "$@" "$CLUSTER" start --nodes 2 2>&1 9>&-
}

# "${AS_USER[@]}" CMD...: CMD as the unprivileged test user, in a directory it may use.
AS_USER=(runuser -u "$TEST_USER" -- env -C /tmp SLURM_CONF="$SLURM_CONF")

# run_job CMD...: run with a timeout; sets OUT (stdout+stderr) and RC.
run_job() {
	OUT=$(timeout "$JOB_TIMEOUT" "$@" 2>&1)
	RC=$?
}

# field LINE KEY: KEY's value in a show_task.sh line; policy_of LINE: its policy.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1" | head -n 1; }
policy_of() { sed -n 's/.* policy=//p' <<<"$1" | head -n 1; }

# no_job_named NAME: no job of that name is queued or in accounting.
no_job_named() {
	local q a
	sleep 1
	q=$(squeue -h -a -n "$1" -o %i 2>&1)
	a=$(sacct -n -X -a -S now-2hours --name="$1" -o JobID 2>&1 | tr -d ' ')
	[ -z "$q" ] && [ -z "$a" ]
}

# wait_job JOBID [SECONDS]: until the job has left the queue.
wait_job() {
	local i
	for ((i = 0; i < ${2:-$JOB_TIMEOUT} * 5; i++)); do
		[ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	return 1
}

# wait_until SECONDS CMD...: poll CMD every 0.2 s.
wait_until() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

# log_mark FILE: its size now; log_since FILE MARK: what was appended since.
log_mark() { stat -c %s "$1" 2>/dev/null || echo 0; }
log_since() { tail -c +$(($2 + 1)) "$1" 2>/dev/null; }

# stepd_pid JOBID STEPID: the slurmstepd running that step (empty when none).
stepd_pid() {
	local p
	for p in /proc/[0-9]*; do
		# slurmstepd rewrites its argv as "slurmstepd: [JOB.STEP]", NUL-padded.
		if [ "$(tr -d '\0' 2>/dev/null <"$p/cmdline")" = "slurmstepd: [$1.$2]" ]; then
			echo "${p#/proc/}"
			return 0
		fi
	done
}

# wi_node0: the host's global weight for node 0 (empty when the kernel has none).
wi_node0() { cat "$WI_DIR/node0" 2>/dev/null; }

# check_task NAME LINE MODE POLICY_REGEX: one task line has the mode and policy.
check_task() {
	local mode policy
	mode=$(field "$2" mode)
	policy=$(policy_of "$2")
	if [ -z "$2" ]; then
		t_fail "$1" "the task printed nothing"
	elif [ "$mode" != "$3" ]; then
		t_fail "$1" "SLURM_MEM_INTERLEAVE_MODE is '$mode', expected '$3' in: $2"
	elif ! grep -Eq -- "$4" <<<"$policy"; then
		# numa_maps names MPOL_PREFERRED (1) "prefer"; MPOL_INTERLEAVE is 3, even for one node.
		[[ $policy == prefer* ]] && policy="$policy (MPOL_PREFERRED, not MPOL_INTERLEAVE=3)"
		t_fail "$1" "numa_maps policy is '$policy', expected /$4/ in: $2"
	else
		t_pass "$1"
	fi
}

# plugin_release SO: the Slurm release (major.minor) a mem_interleave.so was built for,
# read from the file: plugin_version's initial value is SLURM_VERSION_NUMBER at build
# time (0x160508 for 22.05.8), stored little-endian in .data.
plugin_release() {
	local addr bytes
	addr=$(nm -D --defined-only "$1" 2>/dev/null | awk '$3 == "plugin_version" { print $1; exit }')
	[ -n "$addr" ] || return 1
	bytes=$(objdump -s -j .data --start-address="0x$addr" --stop-address="$((0x$addr + 4))" "$1" 2>/dev/null |
		awk '/^ [0-9a-f]+ [0-9a-f]{8}/ { print $2; exit }')
	[[ $bytes =~ ^[0-9a-f]{8}$ ]] || return 1
	printf '%d.%02d\n' "0x${bytes:4:2}" "0x${bytes:2:2}"
}

# slurm_release [--full]: the release of this machine's slurmd (22.05, or 22.05.8 with --full).
slurm_release() {
	local v
	v=$(slurmd -V 2>/dev/null | awk '{ print $2 }')
	[ "${1:-}" = --full ] && { echo "$v"; return; }
	echo "${v%.*}"
}

# ---- the placement record in accounting (t_acct_*) ----
PY=/usr/bin/python3
# A task that touches MB MiB and lives past the first sample (about 1 s after start).
toucher() { echo "import time; b = bytearray($1 << 20); time.sleep($2)"; }

# first_node: the node a two-node step starts on (SLURM_NODEID 0: its record collector).
first_node() {
	timeout "$JOB_TIMEOUT" srun -N 2 -n 2 bash -c '[ "$SLURM_NODEID" = 0 ] && echo "$SLURMD_NODENAME"; exit 0' 2>/dev/null
}

# acct_job OUT: the job id a task printed as JOB=N.
acct_job() { sed -n 's/.*JOB=\([0-9][0-9]*\).*/\1/p' <<<"$1" | head -n 1; }

# spool_settled JOBID: wait, up to 20 s, until no node's spool holds a record of JOBID
# (slurmd's courier writes a step's record after the step; a job's last ones up to a
# second after it, for the job's pace, and then through slurmdbd, as the job has ended).
spool_settled() {
	local i
	for ((i = 0; i < 100; i++)); do
		! compgen -G "$STATEDIR/spool/$1.*.json" >/dev/null &&
			! compgen -G "$MPOL_CLUSTER_DIR/node-state/*/spool/$1.*.json" >/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# acct_comment JOBID [FIELD]: AdminComment (or FIELD) from accounting once the nodes'
# couriers have written what they hold of the job, polled until it holds a record
# (slurmdbd gets it from slurmctld shortly after the job ends).
acct_comment() {
	local i c
	spool_settled "$1"
	for ((i = 0; i < 75; i++)); do
		c=$(sacct -n -P -X -o "JobID,${2:-AdminComment}" -j "$1" 2>/dev/null | sed -n "s/^$1|//p")
		if grep -q 'mempolicy=\|"mempolicy"' <<<"$c"; then
			printf '%s' "$c"
			return 0
		fi
		sleep 0.2
	done
	printf '%s' "$c"
	return 1
}

# acct_py JSON EXPR: evaluate a Python expression on the record r (the "mempolicy"
# object of the comment, found as mpolctl does: whole JSON object or after the marker).
# EXPR may call: ids(TEXT), the steps a folded part lists ("0-9:3,batch" -> a set);
# step_nodes(r, STEP), the node names the record holds STEP's entries under, in detail
# or folded, sorted ("n=N" for a summary that lost its names); counted(r), how many
# steps the record counts.
acct_py() {
	"$PY" -c '
import functools, json, sys
@functools.lru_cache(maxsize=None)  # a 10,000-step record asks about the same few lists 10,000 times
def ids(text):
    out = set()
    for item in text.split(","):
        if item[0].isalpha():
            out.add(item); continue
        rng, _, stride = item.partition(":")
        a, _, b = rng.partition("-")
        out.update(str(i) for i in range(int(a), int(b or a) + 1, int(stride or 1)))
    return out
def parts(r):
    f = r.get("folded", {})
    return f.get("same", []) + [p for p in (f.get("by_node"), f.get("job")) if p]
def names(entries):
    got = [n for n in entries if n != "*"]
    if "*" in entries:
        got += entries["*"].get("hosts", ["n=%d" % entries["*"].get("n", 0)])
    return got
def step_nodes(r, s):
    got = names(r["steps"].get(s, {}))
    for p in parts(r):
        if "ids" in p and s not in ids(p["ids"]):
            continue
        got += names(p["nodes"]) if "nodes" in p else p.get("hosts", ["n=%d" % p.get("nsteps", 0)])
    return sorted(set(got))
def counted(r):
    listed = set(r["steps"])
    for p in parts(r):
        listed |= ids(p["ids"]) if "ids" in p else set()
    return len(listed) + sum(p["nsteps"] for p in parts(r) if "ids" not in p)
c = sys.argv[1]
try:
    r = json.loads(c)["mempolicy"]
except Exception:
    i = c.rindex("mempolicy=") + len("mempolicy=")
    r, _ = json.JSONDecoder().raw_decode(c[i:])
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}

