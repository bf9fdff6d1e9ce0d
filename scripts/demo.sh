#!/bin/bash
# demo.sh - the README's main command: on a fresh Debian 12 machine, as root, install,
# build, start a private local Slurm cluster and run a real job with weighted
# interleave, showing its placement. Leaves the cluster running. Exits non-zero when
# any step fails. Its part without a cluster is scripts/demo-node.sh.
#   scripts/demo.sh
# Environment: MPOL_CLUSTER_DIR (default /var/tmp/mpol-cluster), as for
# tests/slurm/cluster.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'demo: %s\n' "$*" >&2; exit 1; }
# show CMD...: print the command, then run it; a failure ends the demo (non-zero).
show() { printf '$ %s\n' "$*"; "$@" || fail "'$*' failed"; }

[ "$(id -u)" -eq 0 ] || fail "run as root (it installs packages and starts Slurm daemons)"

step "Installing build and cluster dependencies"
scripts/install-deps.sh cluster

step "Building (scripts/build.sh)"
build=$(scripts/build.sh _build/main | tail -n 1) || fail "the build failed; see _build/main/make.out"
echo "built in $build"

step "Installing mpolctl and the plugin (make install)"
make -C "$build" install >"$build/install.out" 2>&1 || { tail -n 20 "$build/install.out"; fail "make install failed"; }
mpolctl=$(command -v mpolctl) || fail "mpolctl is not on PATH after make install"
plugindir=$(sed -n 's/^slurm_plugindir = //p' "$build/Makefile")
ls -l "$mpolctl" "$plugindir/mem_interleave.so" /etc/slurm/plugstack.conf.d/*.conf 2>&1 | sed 's/^/  /'

step "Starting a private local Slurm cluster (tests/slurm/cluster.sh start)"
MPOL_BUILD=$build tests/slurm/cluster.sh start
cluster_env=$(tests/slurm/cluster.sh env) || fail "tests/slurm/cluster.sh env failed"
eval "$cluster_env"
show sinfo

scripts/demo-node.sh "$mpolctl"

step "A real job: srun --mem-interleave=verbose,weighted"
# Each task prints its job id, the plugin's environment and the policy the kernel
# shows for it, then holds 64 MB for 2 s so the placement sample has pages to count;
# -l labels every line with the task number, so the tasks' lines sort.
task='echo "job $SLURM_JOB_ID on $SLURMD_NODENAME"; env | grep "^SLURM_MEM_INTERLEAVE_" | sort; printf "numa_maps: "; head -n 1 /proc/self/numa_maps; x=$(head -c 64000000 /dev/zero | tr "\0" x); sleep 2'
printf "\$ srun -l -n 2 --mem-interleave=verbose,weighted sh -c '%s'\n" "$task"
out=$(srun -l -n 2 --mem-interleave=verbose,weighted sh -c "$task" 2>&1) || { echo "$out"; fail "the job failed"; }
sort -s -t: -k1,1n <<<"$out"
job=$(sed -n 's/^[0-9]*: job \([0-9]*\) .*/\1/p; T; q' <<<"$out")
[ -n "$job" ] || fail "the job printed no job id"

step "What accounting recorded for job $job"
# Accounting has the comment once the job's end reached slurmdbd.
for _ in $(seq 20); do
	comment=$(sacct -n -X -j "$job" -o AdminComment%400 2>/dev/null | tr -d ' ') || true
	[ -n "$comment" ] && break
	sleep 0.5
done
show sacct -j "$job" -o JobID,AdminComment%200
if [ -n "${comment:-}" ]; then
	show "$mpolctl" report -j "$job"
else
	fail "job $job has no placement record in accounting after 10 s"
fi

dir_env=
[ -z "${MPOL_CLUSTER_DIR:-}" ] || dir_env="MPOL_CLUSTER_DIR=$MPOL_CLUSTER_DIR "
cat <<EOF

The cluster is still running. To use it from a shell:
    export SLURM_CONF=$SLURM_CONF
    srun --mem-interleave=help
To stop it:
    ${dir_env}tests/slurm/cluster.sh stop
EOF
