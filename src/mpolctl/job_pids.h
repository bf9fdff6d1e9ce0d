/* job_pids.h - a job's processes on this node, from `scontrol listpids`.
 *
 * Asking slurmd through scontrol (rather than reading cgroup files) works with every
 * proctrack plugin; the caller pins each pid (task_ref.h) and checks that it still
 * belongs to the job before touching it.
 */
#ifndef MPOLCTL_JOB_PIDS_H
#define MPOLCTL_JOB_PIDS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct job_pid {
	pid_t pid;
	uint32_t job;
	char step[24];       /* "0", "batch", "extern", "interactive" */
	int local_id;        /* task rank on this node, -1 for a non-task process */
};

/* Check "ID" or "ID.STEP" (STEP a number, batch, extern or interactive). -EINVAL naming it. */
int job_id_parse(const char *text, uint32_t *job, char *step, size_t steplen, char *err, size_t errlen);

/*
 * job_step_number - Slurm's number for a step as listpids and job ids name it: "0",
 * "17", or batch/extern/interactive (the SLURM_BATCH_SCRIPT, SLURM_EXTERN_CONT and
 * SLURM_INTERACTIVE_STEP values slurm.h has had since 20.11). -EINVAL otherwise.
 */
int job_step_number(const char *step, uint32_t *id);

/*
 * job_pids_parse - the output of `scontrol listpids` ("PID JOBID STEPID LOCALID
 * GLOBALID" then one row per process). *pids is malloc'ed. -EBADMSG naming a bad row.
 */
int job_pids_parse(const char *text, struct job_pid **pids, int *npids, char *err, size_t errlen);

/*
 * job_pids_list - run `scontrol listpids [JOBSTEP]` (NULL: every job on this node).
 * -ECHILD with scontrol's own message when it fails (no slurmd here, unknown job),
 * -ENOENT when scontrol is not installed.
 */
int job_pids_list(const char *jobstep, struct job_pid **pids, int *npids, char *err, size_t errlen);

#endif
