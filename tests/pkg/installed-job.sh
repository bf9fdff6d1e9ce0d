#!/bin/bash
# tests/pkg/installed-job.sh - run by tests/pkg/run inside a throw-away overlay of a
# clean Debian root (scripts/in-root.sh): apt installs the slurm-mempolicy package,
# which brings Slurm from the archive; its files must be where they belong; munged,
# slurmctld and slurmd (a minimal slurm.conf, no accounting; Debian's plugstack.conf
# and plugin directory, so the job loads the installed plugin) run a real job with
# --mem-interleave; then the package is reinstalled over an edited conffile, the other
# release's package is refused, and removing the package leaves no plugin behind.
# Counts its cases with tests/lib.sh and ends with the summary line.
#
#   tests/pkg/installed-job.sh DEB RELEASE PORT [OTHER_DEB]
#     DEB        the package (a path in the source tree, which the overlay shares)
#     RELEASE    the Slurm release it was built for (22.05): apt must bring that one
#     PORT       the first of two free TCP ports (slurmctld, slurmd): the root shares
#                the host's network, so the caller picks them
#     OTHER_DEB  the package built for another release, which apt must refuse here
# MPOL_APT_CACHE: a directory in the source tree where apt keeps the packages and lists
# it downloads, so later runs fetch only what changed (the root itself stays clean).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/slurm
T_TIER=${T_TIER:-pkg}
. "$top/tests/lib.sh"
. "$top/tests/pkg/lib.sh"
MPOL_CLUSTER_DIR=/var/tmp/pkg-cluster
# Where Debian's Slurm looks for its configuration (the overlay's /etc is thrown away).
export SLURM_CONF=/etc/slurm/slurm.conf
. "$here/helpers.sh"

deb=${1:?usage: installed-job.sh DEB RELEASE PORT [OTHER_DEB]}
release=${2:?release}
port=${3:?port}
other=${4:-}
pkg=slurm-mempolicy
conffile=/etc/slurm/plugstack.conf.d/mem_interleave.conf
apt_opts=(-q -y --no-install-recommends -o APT::Sandbox::User=root)
if [ -n "${MPOL_APT_CACHE:-}" ]; then
	mkdir -p "$MPOL_APT_CACHE/archives/partial" "$MPOL_APT_CACHE/lists/partial"
	apt_opts+=(-o "Dir::Cache::Archives=$MPOL_APT_CACHE/archives" -o "Dir::State::Lists=$MPOL_APT_CACHE/lists")
fi
export DEBIAN_FRONTEND=noninteractive

# --- install: apt resolves the package's Slurm dependency from the archive
out=$(apt-get "${apt_opts[@]}" update 2>&1 &&
	apt-get "${apt_opts[@]}" install "$deb" slurmd slurmctld slurm-client 2>&1)
if [ $? -ne 0 ]; then
	t_fail "apt installs $(basename "$deb") with Slurm $release" "$(tail -n 5 <<<"$out")"
	t_summary
	exit 1
fi
got=$(dpkg-query -W -f '${Version}' slurm-wlm-basic-plugins)
# Slurm's plugin directory is the one its own plugin package ships.
plugindir=$(dpkg -L slurm-wlm-basic-plugins | grep -m 1 '/slurm-wlm$')
t_expect_match "apt installs $(basename "$deb") with Slurm $release from the archive (got $got)" \
	"^${release//./\\.}\\." "$got"
t_expect_match "the package's version names Slurm $release" "\\+slurm${release//./\\.}\$" \
	"$(dpkg-query -W -f '${Version}' "$pkg")"

# --- files
want=$(grep -v '^#' "$top/tests/pkg/files.txt" | sort)
got=$(dpkg -L "$pkg" | while read -r f; do [ -d "$f" ] || echo "$f"; done | payload "$plugindir")
if [ "$got" = "$want" ]; then
	t_pass "dpkg -L: plugin in $plugindir, mpolctl, man pages, snippet, unit, udev rule, tmpfiles.d"
else
	t_fail "dpkg -L lists tests/pkg/files.txt" "$(payload_diff "$want" "$got")"
fi
t_expect_match "the plugstack snippet is a conffile" "^ $conffile [0-9a-f]{32}\$" \
	"$(dpkg-query -W -f '${Conffiles}\n' "$pkg")"
t_expect_match "the tmpfiles.d entry makes /run/slurm-mempolicy root-only" \
	'^d /run/slurm-mempolicy 0700 root root -$' "$(grep -v '^#' /usr/lib/tmpfiles.d/slurm-mempolicy.conf)"
upstream=$(dpkg-query -W -f '${Version}' "$pkg" | sed 's/-[^-]*$//')
t_expect_match "mpolctl --version says $upstream" "^mpolctl ${upstream//./\\.}\$" "$(mpolctl --version 2>&1)"

# --- a cluster of the root's own daemons, configured as a site would
start_cluster() {
	local host cpus mem
	host=$(hostname -s)
	read -r cpus mem < <(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*RealMemory=\([0-9]*\).*/\1 \2/p')
	[ -n "${mem:-}" ] || { echo "slurmd -C says no CPUs and memory"; return 1; }
	mkdir -p "$MPOL_CLUSTER_DIR"/{ctld,spool,log} /run/munge
	chown slurm:slurm "$MPOL_CLUSTER_DIR/ctld" "$MPOL_CLUSTER_DIR/log"
	chown munge:munge /run/munge
	cat >/etc/slurm/slurm.conf <<-EOF
		# Written by tests/pkg/installed-job.sh: one node, no accounting.
		ClusterName=pkgtest
		SlurmctldHost=$host(127.0.0.1)
		SlurmctldPort=$port
		SlurmdPort=$((port + 1))
		SlurmUser=slurm
		AuthType=auth/munge
		StateSaveLocation=$MPOL_CLUSTER_DIR/ctld
		SlurmdSpoolDir=$MPOL_CLUSTER_DIR/spool
		SlurmctldPidFile=$MPOL_CLUSTER_DIR/slurmctld.pid
		SlurmdPidFile=$MPOL_CLUSTER_DIR/slurmd.pid
		SlurmctldLogFile=$MPOL_CLUSTER_DIR/log/slurmctld.log
		SlurmdLogFile=$MPOL_CLUSTER_DIR/log/slurmd.log
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/affinity
		SelectType=select/cons_tres
		SelectTypeParameters=CR_Core_Memory
		DefMemPerCPU=$((mem * 9 / 10 / cpus / 4))
		MpiDefault=none
		ReturnToService=2
		MailProg=/bin/true
		NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$((mem * 9 / 10)) State=UNKNOWN
		PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
	EOF
	runuser -u munge -- munged || { echo "munged did not start"; return 1; }
	slurmctld || { echo "slurmctld did not start: $(tail -n 3 "$MPOL_CLUSTER_DIR/log/slurmctld.log")"; return 1; }
	wait_until 30 scontrol ping || { echo "slurmctld does not answer: $(tail -n 3 "$MPOL_CLUSTER_DIR/log/slurmctld.log")"; return 1; }
	slurmd -N "$host" || { echo "slurmd did not start: $(tail -n 3 "$MPOL_CLUSTER_DIR/log/slurmd.log")"; return 1; }
	wait_until 30 sh -c "sinfo -h -N -n '$host' -o %T | grep -Eqx 'idle|mixed'" ||
		{ echo "the node is not idle: $(sinfo -h -N -o '%T %E' 2>&1; tail -n 3 "$MPOL_CLUSTER_DIR/log/slurmd.log")"; return 1; }
}

t_expect_match "Debian's plugstack.conf includes the snippet" '^include /etc/slurm/plugstack\.conf\.d/\*\.conf$' \
	"$(cat /etc/slurm/plugstack.conf 2>&1)"
if ! why=$(start_cluster 2>&1); then
	t_fail "munged, slurmctld and slurmd start in the root" "$why"
	t_summary
	exit 1
fi
t_pass "munged, slurmctld and slurmd start in the root (Slurm $(slurmd -V | awk '{ print $2 }'))"

# --- a job asks for the option: the installed plugin parses it in srun and applies it
run_job srun -n 1 --mem-interleave=verbose,weighted "$SHOW" pkg
line=$(grep '^pkg task=' <<<"$OUT")
if [ -d "$WI_DIR" ]; then
	check_task "srun --mem-interleave=verbose,weighted: the task runs with weighted interleave" \
		"$line" weighted '^weighted interleave:[0-9,-]+$'
else
	check_task "srun --mem-interleave=verbose,weighted: plain interleave (no weighted interleave in this kernel)" \
		"$line" interleave '^interleave:[0-9,-]+$'
fi
t_expect_match "the task's SLURM_MEM_INTERLEAVE_NODES and _WEIGHTS are set" \
	'^[0-9][0-9,-]* [0-9][0-9:,]*$' "$(field "$line" nodes) $(field "$line" weights)"
t_expect_match "verbose: the task's line on stderr" '^mem_interleave: task 0 .*interleave' "$OUT"
t_expect_match "the plugin's state directory is root-only" '^root:root 700$' \
	"$(stat -c '%U:%G %a' /run/slurm-mempolicy 2>&1)"
run_job srun -n 1 --mem-interleave=bogus true
if [ $RC -ne 0 ] && grep -q 'mem_interleave: .*bogus' <<<"$OUT"; then
	t_pass "a bad value is refused by srun, naming the plugin"
else
	t_fail "a bad value is refused by srun, naming the plugin" "exit $RC: $OUT"
fi

# --- the admin's edit of the conffile survives installing the package again
echo "# site edit by tests/pkg $$" >>"$conffile"
out=$(dpkg -i "$deb" 2>&1)
rc=$?
left=$(ls /etc/slurm/plugstack.conf.d/ | grep -v '^mem_interleave\.conf$')
if [ $rc -eq 0 ] && grep -qx "# site edit by tests/pkg $$" "$conffile" && [ -z "$left" ]; then
	t_pass "dpkg -i again keeps the edited conffile (no .dpkg-* copies)"
else
	t_fail "dpkg -i again keeps the edited conffile" "exit $rc, other files: '$left': $(tail -n 3 <<<"$out")"
fi

# --- the package built for another release cannot be installed over this Slurm
if [ -n "$other" ]; then
	sum=$(md5sum "$plugindir/mem_interleave.so")
	out=$(apt-get "${apt_opts[@]}" install "$other" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -q 'slurm-wlm-basic-plugins' <<<"$out" && [ "$(md5sum "$plugindir/mem_interleave.so")" = "$sum" ]; then
		t_pass "apt refuses $(basename "$other") on Slurm $release (the installed plugin is untouched)"
	else
		t_fail "apt refuses $(basename "$other") on Slurm $release" "exit $rc: $(tail -n 4 <<<"$out")"
	fi
else
	t_skip "apt refuses the other release's package" "no package built for the other release"
fi

# --- removal: no plugin left behind, and Slurm still runs jobs
out=$(dpkg -r "$pkg" 2>&1)
left=$(ls "$plugindir" | grep mem_interleave; command -v mpolctl)
if dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'config-files' && [ -z "$left" ]; then
	t_pass "dpkg -r removes the plugin and mpolctl (the conffile stays, as for every package)"
else
	t_fail "dpkg -r removes the plugin and mpolctl" "left: '$left': $(tail -n 3 <<<"$out")"
fi
run_job srun -n 1 true
t_expect_match "after dpkg -r jobs still run (the snippet's plugin is optional)" '^0$' "$RC"
dpkg -P "$pkg" >/dev/null 2>&1
t_expect_match "dpkg -P removes the conffile" '^gone$' "$([ -e "$conffile" ] && echo present || echo gone)"
t_summary
