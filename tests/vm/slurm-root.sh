#!/bin/bash
# slurm-root.sh - add a one-node Slurm (munged, slurmctld, slurmd, srun) and the
# mem_interleave plugin to a guest staging directory, so that a check can run jobs
# under real Slurm on the guest's NUMA machine.
#
#   tests/vm/slurm-root.sh STAGE PLUGIN_SO INTERPOSER_SO
#
# The interposer goes to /usr/lib/slurm-mempolicy/ (checks name it with preload=);
# memkind's libraries (libmemkind0) come along where this host has them.
# Everything comes from this host's Debian packages (slurmd, slurmctld, munge) with
# the shared libraries ldd names; the guest's /etc gets users, hosts, the munge key and
# a slurm.conf for node "vm" on 127.0.0.1 with four CPUs in two sockets.
set -euo pipefail
stage=$1 plugin=$2 interposer=$3
[ -d "$stage" ] || { echo "slurm-root: no staging directory $stage" >&2; exit 1; }
[ -f "$plugin" ] || { echo "slurm-root: no plugin $plugin (build with Slurm: scripts/build.sh)" >&2; exit 1; }
[ -f "$interposer" ] || { echo "slurm-root: no interposer $interposer (build: scripts/build.sh)" >&2; exit 1; }
plugdir=/usr/lib/x86_64-linux-gnu/slurm-wlm
bins=(/usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmstepd
	/usr/bin/srun /usr/bin/sinfo /usr/bin/scontrol /usr/bin/squeue)
for b in "${bins[@]}"; do
	[ -x "$b" ] || { echo "slurm-root: $b is missing: scripts/install-deps.sh cluster" >&2; exit 1; }
done
# Libraries of other packages the guest's benchmarks load, where installed here
# (scripts/install-deps.sh vm), each on its own line:
optional_libs=(
	/usr/lib/x86_64-linux-gnu/libmemkind.so.0     # libmemkind0: bench/regions -S, memkind's placement
	/usr/lib/x86_64-linux-gnu/libautohbw.so.0     # memkind's autohbw (not in Debian 12's libmemkind0)
)
libs=()
for l in "${optional_libs[@]}"; do [ -f "$l" ] && libs+=("$l"); done

# Binaries, every plugin (the loader picks them by slurm.conf), and their libraries.
copy() { mkdir -p "$stage$(dirname "$1")" && cp -L "$1" "$stage$1"; }
for b in "${bins[@]}" "${libs[@]}"; do copy "$b"; done
mkdir -p "$stage$plugdir"
cp -a "$plugdir"/. "$stage$plugdir/"
cp "$plugin" "$stage$plugdir/mem_interleave.so"
mkdir -p "$stage/usr/lib/slurm-mempolicy"
cp "$interposer" "$stage/usr/lib/slurm-mempolicy/mem_interleave_regions.so"
{ ldd "${bins[@]}" "${libs[@]}" "$plugdir"/*.so "$plugin" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' |
	sort -u | while read -r lib; do copy "$lib"; done
# glibc loads NSS modules by name: files is built in since 2.34, but keep nsswitch simple.
mkdir -p "$stage/etc/slurm" "$stage/etc/munge" "$stage/var/spool/slurmd" "$stage/var/spool/slurmctld" \
	"$stage/var/log" "$stage/run/munge" "$stage/var/lib/munge" "$stage/var/log/munge"
cp /etc/munge/munge.key "$stage/etc/munge/munge.key"
chmod 400 "$stage/etc/munge/munge.key"
cat >"$stage/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
munge:x:101:101:munge:/run/munge:/bin/false
slurm:x:102:102:slurm:/var/spool/slurmctld:/bin/false
user:x:1000:1000:test user:/tmp:/bin/sh
EOF
cat >"$stage/etc/group" <<'EOF'
root:x:0:
munge:x:101:
slurm:x:102:
user:x:1000:
EOF
printf 'passwd: files\ngroup: files\nhosts: files\n' >"$stage/etc/nsswitch.conf"
printf '127.0.0.1 localhost vm\n' >"$stage/etc/hosts"
echo vm >"$stage/etc/hostname"
cat >"$stage/etc/slurm/slurm.conf" <<'EOF'
# One-node cluster inside the VM tier's guest (tests/vm/slurm-root.sh).
ClusterName=vm
SlurmctldHost=vm(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurmctld.log
SlurmdLogFile=/var/log/slurmd.log
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdTimeout=60
PlugStackConfig=/etc/slurm/plugstack.conf
NodeName=vm NodeAddr=127.0.0.1 CPUs=4 Sockets=2 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=vm Default=YES MaxTime=INFINITE State=UP
EOF
# No systemd in the guest: slurmd makes its own cgroup v2 tree.
printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$stage/etc/slurm/cgroup.conf"
printf 'required %s/mem_interleave.so\n' "$plugdir" >"$stage/etc/slurm/plugstack.conf"
