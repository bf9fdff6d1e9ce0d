#!/bin/bash
# cluster.sh - a private Slurm cluster on this host, for the tests, the demo and the
# benchmarks: munged, MariaDB, slurmdbd, slurmctld and one slurmd per node, with every
# config file, state directory, log and pid file under one directory. Nothing under
# /etc is touched; clients find the cluster through SLURM_CONF (see `env`).
#
#   tests/slurm/cluster.sh start [--nodes N]     start N nodes, 1-MAX_NODES (no-op when
#                                                already up with N; another N restarts)
#   tests/slurm/cluster.sh stop                  stop what was started, even after a crash
#   tests/slurm/cluster.sh status                daemons and nodes; exit 0 when all up
#   tests/slurm/cluster.sh env                   `export SLURM_CONF=...` for eval
#   tests/slurm/cluster.sh plugstack [--none | ARG...]
#                                                rewrite plugstack.conf: load the build
#                                                tree's plugin with ARGs, or no plugin
#
# Environment:
#   MPOL_CLUSTER_DIR      where everything lives (default /var/tmp/mpol-cluster)
#   MPOL_BUILD            build tree whose plugin is loaded (default _build/main)
#   MPOL_PLUGSTACK_ARGS   plugin arguments written at start (default: statedir under
#                         the cluster directory, so tests never touch /run)
#   MPOL_CLUSTER_PORT     first of the TCP ports to try (default 17810): three for
#                         slurmctld, slurmdbd and MariaDB, one per node; the first free
#                         block at or above it is used and remembered
#   MPOL_JOBCOMP_TYPE, MPOL_JOBCOMP_LOC
#                         slurm.conf's JobCompType and JobCompLoc, written at start
#                         (default jobcomp/none, no location)
#   MPOL_JOBACCT_TYPE, MPOL_JOBACCT_PARAMS, MPOL_JOBACCT_FREQ
#                         slurm.conf's JobAcctGatherType, JobAcctGatherParams and
#                         JobAcctGatherFrequency (default jobacct_gather/none, none set)
#
# What works here (Slurm 22.05.8 from Debian 12, 24.11.5 from Debian 13, 25.11.7 and
# 26.05.3 built from source, the last three in the root of tests/slurm/run-release; none
# built with --enable-multiple-slurmd), measured:
# - Own munged on a private socket (AuthInfo=socket=...), so a system munged or a
#   second cluster directory cannot interfere; runs as the munge user.
# - MariaDB with --no-defaults, its own datadir, 127.0.0.1 on a spare port; slurmdbd
#   connects over TCP as a user created at first start.
# - PrivateData=jobs in slurm.conf and slurmdbd.conf, as at most sites; sacct then shows
#   a user their own jobs only if accounting knows the user, so the test user mpoluser
#   is added (account "tests") before slurmctld starts.
# - Several nodes: every slurmd but the first runs in its own UTS namespace (`unshare
#   -u`, hostname node2, node3, ...) in the same network namespace, with its own Port=
#   on its NodeName line and its own spool, log and pid file (%n in the paths). Stock
#   slurmd accepts this: it finds its NodeName from the hostname, listens on that
#   node's port, and an N-node step runs one task on each. No veth pair is needed.
#   Each also has a mount namespace where node-state/NAME is bound over the statedir,
#   so no two nodes share the plugin's locks, journal or record collector, and
#   node-munge/NAME (its own munged, same key) over munge/: from Slurm 25.11 on, a
#   slurmd refuses a launch credential that another slurmd of the same munged has
#   already decoded (a replay), so with one munged every 2-node step failed
#   ("Header lengths are longer than data received").
#   Each node claims the whole machine (CPUs, memory): 16 nodes on 2 cores and 24 GiB
#   run steps of short tasks, not 16 nodes' worth of work. An idle slurmd takes about
#   6 MiB; a node's step adds a slurmstepd (about 8 MiB) and its tasks.
# - PID 1 on these machines reaps late: an exited daemon can stay a zombie for a
#   while, so a zombie counts as stopped.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
DIR=${MPOL_CLUSTER_DIR:-/var/tmp/mpol-cluster}
BUILD=${MPOL_BUILD:-$top/_build/main}
case $BUILD in /*) ;; *) BUILD=$top/$BUILD ;; esac
PLUGIN=$BUILD/src/plugins/mem_interleave/.libs/mem_interleave.so
DBD_CLIENT=$BUILD/src/plugins/mem_interleave/mem_interleave_dbd
HOST=$(hostname -s)
TEST_USER=mpoluser
export SLURM_CONF=$DIR/etc/slurm.conf

say() { printf 'cluster: %s\n' "$*"; }
die() { printf 'cluster: %s\n' "$*" >&2; exit 1; }

# pid_alive PIDFILE NAME: the pid in PIDFILE runs a process called NAME (not a zombie)
# of this cluster: a recycled pid, even another cluster's daemon, is not ours.
pid_alive() {
	local pid state comm
	[ -s "$1" ] || return 1
	read -r pid <"$1" 2>/dev/null || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
	# comm is cut at 15 characters (slurmd-wlm etc. are exec'd as slurmd).
	[[ $comm == "${2:0:15}"* ]] || return 1
	# Ours name the cluster directory on their command line or in SLURM_CONF.
	grep -qF "$DIR/" <<<"$(cat "/proc/$pid/cmdline" "/proc/$pid/environ" 2>/dev/null | tr '\0' '\n')" || return 1
	state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# stop_pid PIDFILE NAME: SIGTERM, wait up to 10 s, then SIGKILL.
stop_pid() {
	local pid i
	if ! pid_alive "$1" "$2"; then rm -f "$1"; return 0; fi
	read -r pid <"$1"
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		pid_alive "$1" "$2" || { rm -f "$1"; return 0; }
		sleep 0.1
	done
	say "$2 (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL"
	kill -KILL "$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		pid_alive "$1" "$2" || { rm -f "$1"; return 0; }
		sleep 0.1
	done
	say "$2 (pid $pid) is still running"
	return 1
}

# pidfile NAME: where NAME's daemon keeps its pid (munged and MariaDB write theirs as
# their own users, into directories they own).
pidfile() {
	case $1 in
	munged) echo "$DIR/munge/munged.pid" ;;
	mariadbd) echo "$DIR/mysql/mariadbd.pid" ;;
	*) echo "$DIR/run/$1.pid" ;;
	esac
}

# wait_for SECONDS WHAT CMD...: poll CMD every 0.2 s.
wait_for() {
	local secs=$1 what=$2 i
	shift 2
	for ((i = 0; i < secs * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	say "timed out after ${secs}s waiting for $what"
	return 1
}

port_free() { [ -z "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

# Nodes a cluster may have: each is a slurmd with its own port.
MAX_NODES=64

# choose_ports NODES: reuse the remembered block when free, else the first free block
# of 3 + NODES ports (slurmctld, slurmdbd, MariaDB, one per slurmd).
choose_ports() {
	local base p ok n=$((3 + $1))
	if [ -s "$DIR/ports" ]; then
		read -r base <"$DIR/ports"
		ok=1
		for ((p = base; p < base + n; p++)); do port_free "$p" || ok=0; done
		[ $ok = 1 ] && { PORT_BASE=$base; return 0; }
	fi
	for ((base = ${MPOL_CLUSTER_PORT:-17810}; base < 65000; base += 10)); do
		ok=1
		for ((p = base; p < base + n; p++)); do port_free "$p" || { ok=0; break; }; done
		if [ $ok = 1 ]; then
			PORT_BASE=$base
			echo "$base" >"$DIR/ports"
			return 0
		fi
	done
	die "no $n free TCP ports in a row found above ${MPOL_CLUSTER_PORT:-17810}"
}

node_names() { # the NodeNames of an N-node cluster: this host, node2, node3, ...
	local i
	echo "$HOST"
	for ((i = 2; i <= $1; i++)); do echo "node$i"; done
}

# write_plugstack [--none | ARG...]: atomically, so a starting step never reads half a file.
write_plugstack() {
	local tmp=$DIR/etc/.plugstack.conf.$$
	{
		echo "# Written by tests/slurm/cluster.sh; rewrite with: cluster.sh plugstack ARGS"
		# slurmd refuses to start when a required plugin is missing.
		if [ "${1:-}" = --none ]; then
			:
		elif [ -f "$PLUGIN" ]; then
			# the build's own mem_interleave_dbd, which `make install` puts where the
			# plugin looks by default
			case " $* " in
			*" dbd_client="*) echo "required $PLUGIN $*" ;;
			*) echo "required $PLUGIN $* dbd_client=$DBD_CLIENT" ;;
			esac
		else
			echo "# not loaded: $PLUGIN is missing (build first)"
		fi
	} >"$tmp" && chmod 0644 "$tmp" && mv -f "$tmp" "$DIR/etc/plugstack.conf"
}

# slurm_at_least MAJOR MINOR: the installed slurmctld is that release or later.
slurm_at_least() {
	local v
	v=$(slurmctld -V 2>/dev/null | sed -n 's/^slurm[^0-9]*\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	[ -n "$v" ] && set -- "$1" "$2" $v && { [ "$3" -gt "$1" ] || { [ "$3" -eq "$1" ] && [ "$4" -ge "$2" ]; }; }
}

write_config() {
	local nodes=$1 cpus sockets cores threads mem real defmem i name
	read -r cpus sockets cores threads mem < <(slurmd -C | sed -n \
		's/.*CPUs=\([0-9]*\).*SocketsPerBoard=\([0-9]*\).*CoresPerSocket=\([0-9]*\).*ThreadsPerCore=\([0-9]*\).*RealMemory=\([0-9]*\).*/\1 \2 \3 \4 \5/p')
	[ -n "${mem:-}" ] || die "cannot read this machine's CPUs and memory from 'slurmd -C'"
	real=$((mem * 9 / 10))
	# Per-CPU default small enough that several jobs share the node.
	defmem=$((real / cpus / 4))
	[ $defmem -le 1024 ] || defmem=1024
	cat >"$DIR/etc/slurm.conf" <<EOF
# Generated by tests/slurm/cluster.sh for a private test cluster; do not edit.
ClusterName=mpol
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT_BASE
SlurmdPort=$((PORT_BASE + 3))
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$defmem
SchedulerParameters=batch_sched_delay=0
MailProg=/bin/true
# As at most sites: users see only their own jobs (mpolctl report relies on it).
PrivateData=jobs
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=60
SlurmdTimeout=60
KillWait=5
InactiveLimit=0
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$HOST
AccountingStoragePort=$((PORT_BASE + 1))
# Connections to slurmdbd take their munge socket from here, not from AuthInfo.
AccountingStoragePass=$DIR/munge/munge.socket
JobAcctGatherType=${MPOL_JOBACCT_TYPE:-jobacct_gather/none}
${MPOL_JOBACCT_PARAMS:+JobAcctGatherParams=$MPOL_JOBACCT_PARAMS}
${MPOL_JOBACCT_FREQ:+JobAcctGatherFrequency=$MPOL_JOBACCT_FREQ}
JobCompType=${MPOL_JOBCOMP_TYPE:-jobcomp/none}
${MPOL_JOBCOMP_LOC:+JobCompLoc=$MPOL_JOBCOMP_LOC}
PlugStackConfig=$DIR/etc/plugstack.conf
# Runs every executable in etc/slurmctld-epilog.d (tests put one there, as jobstats does).
EpilogSlurmctld=$DIR/etc/slurmctld-epilog.sh
EOF
	# Extra reaches accounting only with this flag (Slurm 23.02 on).
	slurm_at_least 23 2 && echo "AccountingStoreFlags=job_extra" >>"$DIR/etc/slurm.conf"
	mkdir -p "$DIR/etc/slurmctld-epilog.d"
	cat >"$DIR/etc/slurmctld-epilog.sh" <<EOF
#!/bin/sh
for f in "$DIR"/etc/slurmctld-epilog.d/*; do [ -x "\$f" ] && "\$f"; done
exit 0
EOF
	chmod 0755 "$DIR/etc/slurmctld-epilog.sh"
	i=0
	for name in $(node_names "$nodes"); do
		echo "NodeName=$name NodeHostname=$name NodeAddr=127.0.0.1 Port=$((PORT_BASE + 3 + i)) CPUs=$cpus Boards=1 SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$real State=UNKNOWN"
		i=$((i + 1))
	done >>"$DIR/etc/slurm.conf"
	echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$DIR/etc/slurm.conf"
	chmod 0644 "$DIR/etc/slurm.conf"

	[ -s "$DIR/db.pass" ] || { head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DIR/db.pass"; chmod 0600 "$DIR/db.pass"; }
	# slurmdbd reads slurmdbd.conf next to slurm.conf and insists on 0600, SlurmUser.
	cat >"$DIR/etc/slurmdbd.conf" <<EOF
# Generated by tests/slurm/cluster.sh; do not edit.
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket
DbdHost=$HOST
DbdPort=$((PORT_BASE + 1))
SlurmUser=slurm
LogFile=$DIR/log/slurmdbd.log
PidFile=$DIR/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$((PORT_BASE + 2))
StorageUser=slurm
StoragePass=$(cat "$DIR/db.pass")
StorageLoc=slurm_acct_db
# sacct asks slurmdbd, which hides other users' jobs only when told so here too.
PrivateData=jobs
EOF
	chown slurm:slurm "$DIR/etc/slurmdbd.conf"
	chmod 0600 "$DIR/etc/slurmdbd.conf"
	echo "$nodes" >"$DIR/nodes"
}

make_dirs() {
	mkdir -p "$DIR"/{etc,log,run,ctld,spool,statedir,out} || die "cannot create $DIR"
	chmod 0755 "$DIR" "$DIR/etc"
	chown slurm:slurm "$DIR/ctld" "$DIR/log"
	# Job output of any user (sbatch --output) goes here.
	chmod 1777 "$DIR/out"
}

ensure_user() {
	id "$TEST_USER" >/dev/null 2>&1 && return 0
	useradd -m -s /bin/bash -c "slurm-mempolicy test user" "$TEST_USER" ||
		die "cannot create the test user $TEST_USER"
}

# start_munge [MUNGE_DIR]: a munged with its socket, pid file, log and seed in MUNGE_DIR
# (default $DIR/munge, the cluster's; every node but the first has its own).
start_munge() {
	local d=${1:-$DIR/munge}
	pid_alive "$d/munged.pid" munged && return 0
	mkdir -p "$d" && chown munge:munge "$d" && chmod 0755 "$d" || die "cannot create $d"
	rm -f "$d/munge.socket" "$d/munge.socket.lock"
	runuser -u munge -- munged --socket="$d/munge.socket" --pid-file="$d/munged.pid" \
		--log-file="$d/munged.log" --seed-file="$d/munged.seed" ||
		die "munged did not start; see $d/munged.log"
	wait_for 10 munged pid_alive "$d/munged.pid" munged ||
		die "munged did not write its pid file; see $d/munged.log"
}

mysql_root() { mariadb --no-defaults -S "$DIR/mysql/mysql.sock" -u root "$@"; }

start_mariadb() {
	local fresh=0
	pid_alive "$(pidfile mariadbd)" mariadbd && return 0
	if [ ! -d "$DIR/mysql/mysql" ]; then
		rm -rf "$DIR/mysql"
		mkdir -p "$DIR/mysql" && chown mysql:mysql "$DIR/mysql"
		mariadb-install-db --no-defaults --datadir="$DIR/mysql" --user=mysql \
			--skip-test-db >"$DIR/log/mariadb-install.log" 2>&1 ||
			die "mariadb-install-db failed; see $DIR/log/mariadb-install.log"
		fresh=1
	fi
	# innodb_snapshot_isolation: on by default from MariaDB 11.6 (Debian 13 has 11.8),
	# and slurmdbd exits (fatal) when a write of its conflicts with another transaction
	# on the same row, as a job modify of the record does with slurmctld's update of a
	# job being requeued; Slurm requires it off. "loose": 10.11 builds without it start.
	setsid mariadbd --no-defaults --datadir="$DIR/mysql" --user=mysql \
		--bind-address=127.0.0.1 --port=$((PORT_BASE + 2)) --socket="$DIR/mysql/mysql.sock" \
		--pid-file="$(pidfile mariadbd)" --log-error="$DIR/mysql/mariadb.log" \
		--skip-name-resolve --loose-innodb-snapshot-isolation=OFF </dev/null >/dev/null 2>&1 &
	wait_for 30 "MariaDB on port $((PORT_BASE + 2))" mysql_root -e 'select 1' ||
		die "MariaDB did not start; see $DIR/mysql/mariadb.log"
	if [ $fresh = 1 ] || ! grep -q 1 <<<"$(mysql_root -e "select 1 from mysql.user where user='slurm'")"; then
		# The database is made here, not by slurmdbd: Slurm 24.11's slurmdbd reuses the
		# connection whose first connect failed for want of it, and with MariaDB 11.8's
		# client library its next query fails (error 5027) and slurmdbd exits.
		mysql_root -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
			CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$(cat "$DIR/db.pass")';
			GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
			GRANT ALL ON \`slurm_acct_db_%\`.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;" ||
			die "cannot create the database user for slurmdbd"
	fi
	# The password is per cluster directory; keep MariaDB's copy in step with the file.
	mysql_root -e "ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$(cat "$DIR/db.pass")'" ||
		die "cannot set the database password for slurmdbd"
}

start_slurmdbd() {
	pid_alive "$DIR/run/slurmdbd.pid" slurmdbd && return 0
	# In the foreground under a shell that logs how it ended: a slurmdbd that dies of a
	# signal writes nothing of it (seen on 26.05, the tier's only sign "Connection refused").
	setsid sh -c 'slurmdbd -D; echo "[$(date +%Y-%m-%dT%H:%M:%S)] slurmdbd ended: exit status $? (128+N: signal N)" >>"$0"' \
		"$DIR/log/slurmdbd.log" </dev/null >/dev/null 2>&1 &
	wait_for 30 "slurmdbd on port $((PORT_BASE + 1))" sh -c "ss -Hltn 'sport = :$((PORT_BASE + 1))' | grep -q ." ||
		die "slurmdbd is not listening; see $DIR/log/slurmdbd.log"
}

# accounting_users: with PrivateData=jobs slurmdbd shows users only their own jobs, and
# only when accounting knows them; done before slurmctld starts, so it loads them.
accounting_users() {
	local list
	list=$(sacctmgr -n -P list user format=user) || die "sacctmgr does not answer; see $DIR/log/slurmdbd.log"
	grep -qx "$TEST_USER" <<<"$list" && return 0
	grep -qx mpol <<<"$(sacctmgr -n -P list cluster format=cluster)" || sacctmgr -i add cluster mpol >/dev/null
	sacctmgr -i add account tests Description="slurm-mempolicy tests" Organization=tests >/dev/null
	sacctmgr -i add user "$TEST_USER" account=tests >/dev/null ||
		die "cannot add $TEST_USER to accounting; see $DIR/log/slurmdbd.log"
}

start_slurmctld() {
	pid_alive "$DIR/run/slurmctld.pid" slurmctld && return 0
	# -i: after a crash (a test kills it) the usage files it saves every few minutes may
	# be missing, which 25.11 and later refuse to start without ("No Assoc usage file").
	slurmctld -i || die "slurmctld did not start; see $DIR/log/slurmctld.log"
	wait_for 30 slurmctld scontrol ping ||
		die "slurmctld does not answer; see $DIR/log/slurmctld.log"
}

# last_error LOG OFFSET: the error lines a daemon logged after OFFSET, to say why it failed.
last_error() {
	tail -c +$(($2 + 1)) "$1" 2>/dev/null | grep 'error:' | grep -v 'initialization failed' |
		tail -n 2 | sed 's/^\[[^]]*\] error: //' | paste -sd '|' | sed 's/|/; /g'
}

start_slurmd() { # start_slurmd NODENAME
	local log=$DIR/log/slurmd-$1.log mark
	mkdir -p "$DIR/spool/$1"
	pid_alive "$DIR/run/slurmd-$1.pid" slurmd && return 0
	mark=$(stat -c %s "$log" 2>/dev/null || echo 0)
	# -c: a clean start (every start here follows cancelling the jobs): the sockets of
	# steps whose slurmstepd died (t_plugin_90_crash.sh) are removed; left behind, they
	# make `scontrol listpids` of every job fail, on 22.05 and 24.11 alike.
	if [ "$1" = "$HOST" ]; then
		slurmd -c -N "$1" || die "slurmd for $1 did not start ($(last_error "$log" "$mark")); see $log"
	else
		# Its own hostname, same network: slurmd takes the node's Port= from slurm.conf.
		# Its own state directory too, as every real node has its own /run: the
		# plugin's statedir is bound over from node-state/NAME in its mount namespace
		# (tests look at the first node's, which is the real one).
		# Its own munged too, bound over the cluster's munge directory.
		mkdir -p "$DIR/node-state/$1"
		start_munge "$DIR/node-munge/$1"
		unshare -u -m sh -c 'mount --bind "$2" "$3" && mount --bind "$4" "$5" && hostname "$1" &&
			exec slurmd -c -N "$1"' sh "$1" "$DIR/node-state/$1" "$DIR/statedir" "$DIR/node-munge/$1" "$DIR/munge" ||
			die "slurmd for $1 did not start ($(last_error "$log" "$mark")); see $log"
	fi
}

node_idle() { # node_idle NODENAME: up and taking jobs (a trailing * would mean not responding)
	local st
	st=$(sinfo -h -N -n "$1" -o %T 2>/dev/null) || return 1
	[[ $st =~ ^(idle|mixed|allocated|planned|completing)$ ]]
}

all_running() {
	local n name
	[ -s "$DIR/nodes" ] || return 1
	read -r n <"$DIR/nodes"
	pid_alive "$(pidfile munged)" munged && pid_alive "$(pidfile mariadbd)" mariadbd &&
		pid_alive "$DIR/run/slurmdbd.pid" slurmdbd && pid_alive "$DIR/run/slurmctld.pid" slurmctld || return 1
	for name in $(node_names "$n"); do
		pid_alive "$DIR/run/slurmd-$name.pid" slurmd || return 1
		[ "$name" = "$HOST" ] || pid_alive "$DIR/node-munge/$name/munged.pid" munged || return 1
	done
}

cmd_start() {
	local nodes=1 name jobs
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes) nodes=${2:-}; shift 2 || die "--nodes needs a number 1-$MAX_NODES" ;;
		--nodes=*) nodes=${1#--nodes=}; shift ;;
		*) die "unknown start argument '$1' (usage: start [--nodes N])" ;;
		esac
	done
	[[ $nodes =~ ^[1-9][0-9]*$ ]] && [ "$nodes" -le $MAX_NODES ] ||
		die "--nodes must be a number 1-$MAX_NODES, not '$nodes'"
	[ "$(id -u)" -eq 0 ] || die "run as root (it starts the Slurm daemons)"
	if all_running && [ "$(cat "$DIR/nodes")" = "$nodes" ]; then
		say "already running in $DIR ($nodes node(s))"
		return 0
	fi
	# Anything half-up (a crash, another node count) is stopped first.
	cmd_stop >/dev/null
	make_dirs
	ensure_user
	choose_ports "$nodes"
	write_config "$nodes"
	[ -f "$PLUGIN" ] || say "warning: $PLUGIN is missing (build first); starting without the plugin"
	write_plugstack ${MPOL_PLUGSTACK_ARGS-statedir=$DIR/statedir}
	start_munge
	start_mariadb
	start_slurmdbd
	accounting_users
	start_slurmctld
	for name in $(node_names "$nodes"); do start_slurmd "$name"; done
	# Daemons started afresh: any job still in slurmctld's saved state is a leftover of
	# an earlier run that could hold the nodes.
	jobs=$(squeue -h -o %i 2>/dev/null)
	if [ -n "$jobs" ]; then
		say "cancelling leftover jobs: $(echo $jobs)"
		# shellcheck disable=SC2086
		scancel $jobs
	fi
	for name in $(node_names "$nodes"); do
		wait_for 30 "node $name to become idle" node_idle "$name" ||
			die "node $name is not idle: $(sinfo -h -N -n "$name" -o '%T %E' 2>&1); see $DIR/log/slurmd-$name.log"
	done
	wait_for 30 "sacctmgr" sh -c 'sacctmgr -n -P list cluster format=cluster | grep -qx mpol' ||
		die "the cluster is not registered in accounting; see $DIR/log/slurmdbd.log"
	say "up in $DIR: $nodes node(s), ports $PORT_BASE-$((PORT_BASE + 2 + nodes)); export SLURM_CONF=$SLURM_CONF"
}

cmd_stop() {
	local f name jobs
	[ -d "$DIR/run" ] || { say "nothing to stop in $DIR"; return 0; }
	# Jobs first, so no slurmstepd outlives the daemons that launched it.
	if pid_alive "$DIR/run/slurmctld.pid" slurmctld; then
		jobs=$(squeue -h -o %i 2>/dev/null)
		if [ -n "$jobs" ]; then
			# shellcheck disable=SC2086
			scancel $jobs 2>/dev/null
			wait_for 15 "jobs to end" sh -c '[ -z "$(squeue -h -o %i)" ]'
		fi
	fi
	for f in "$DIR"/run/slurmd-*.pid; do
		[ -e "$f" ] || continue
		name=${f##*/slurmd-}
		stop_pid "$f" slurmd || say "could not stop slurmd for ${name%.pid}"
	done
	stop_pid "$DIR/run/slurmctld.pid" slurmctld
	stop_pid "$DIR/run/slurmdbd.pid" slurmdbd
	stop_pid "$(pidfile mariadbd)" mariadbd
	for f in "$DIR"/node-munge/*/munged.pid; do
		[ -e "$f" ] && stop_pid "$f" munged
	done
	stop_pid "$(pidfile munged)" munged
	say "stopped ($DIR)"
}

cmd_status() {
	local rc=0 n=1 name f
	[ -s "$DIR/nodes" ] && read -r n <"$DIR/nodes"
	for f in munged mariadbd slurmdbd slurmctld $(node_names "$n" | sed 's/^/slurmd-/'); do
		if pid_alive "$(pidfile "$f")" "${f%%-*}"; then
			printf '%-16s running (pid %s)\n' "$f" "$(cat "$(pidfile "$f")")"
		else
			printf '%-16s stopped\n' "$f"
			rc=1
		fi
	done
	if [ $rc = 0 ]; then
		sinfo -N -o '%N %T %c %m' 2>&1
		for name in $(node_names "$n"); do node_idle "$name" || rc=1; done
	fi
	echo "SLURM_CONF=$SLURM_CONF"
	return $rc
}

case ${1:-} in
start) shift; cmd_start "$@" ;;
stop) cmd_stop ;;
status) cmd_status ;;
env) echo "export SLURM_CONF=$SLURM_CONF" ;;
plugstack)
	shift
	[ -d "$DIR/etc" ] || die "no cluster in $DIR (run start first)"
	write_plugstack "$@" ;;
-h | --help | help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
*) die "usage: cluster.sh start [--nodes N] | stop | status | env | plugstack [--none | ARG...]" ;;
esac
