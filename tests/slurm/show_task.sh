#!/bin/sh
# show_task.sh [LABEL] - run as a job task by the slurm tier: one line with the task's
# rank and node, the plugin's environment and the memory policy the kernel shows for
# the task (first line of /proc/self/numa_maps; a policy is inherited across exec).
policy=$(sed -n '1{s/^[0-9a-f]* //;s/ \(file=\|anon=\|heap\|stack\|mapped=\|N[0-9]\|kernelpagesize_kB=\).*//;p;q}' /proc/self/numa_maps)
printf '%s task=%s node=%s mode=%s nodes=%s weights=%s policy=%s\n' "${1:-task}" \
	"${SLURM_PROCID:-?}" "${SLURMD_NODENAME:-?}" "${SLURM_MEM_INTERLEAVE_MODE-unset}" \
	"${SLURM_MEM_INTERLEAVE_NODES-unset}" "${SLURM_MEM_INTERLEAVE_WEIGHTS-unset}" "$policy"
