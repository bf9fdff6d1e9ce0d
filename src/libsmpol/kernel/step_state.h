/* step_state.h - a running step's decided placement, kept on the node.
 *
 * slurmstepd writes it when an active step has planned (STATEDIR/step.JOB.STEP.json,
 * root-only, replaced whole), again once every local task has started (with their
 * pids), and removes it at step end. A step whose slurmstepd died leaves its file
 * behind: the next step on the node and `mpolctl recover` remove it, and readers
 * ignore it (holder_alive false). `mpolctl rebalance` and `watch` re-decide from it:
 * the same request, site configuration, job memory, free memory per node at launch
 * and lease outcome, with today's topology, weights table and task CPUs; so their
 * targets are what the tasks run with, plus what changed since.
 *
 * JSON: {"v":1,"job":J,"step":S,"uid":U,"stepd":{"pid":P,"start":T},
 *   "spec":"weighted,scope=all","site_default":false,
 *   "site":{"algorithm":"optimal","precision":0.98,"max_weight_sum":64,"sysfs":"exclusive"},
 *   "mem_kb":0,"lease_held":true,"path":"weighted-interleave","note":"","regions_by":"none",
 *   "launch_free_kb":{"0":1234,"2":5678},
 *   "bandwidth":[[I,T,READ,WRITE,"acpi-hmat"],...],
 *   "span_cpus":"0-15",
 *   "tasks":[{"pid":P,"start":T,"cpu_nodes":"1"}]}
 * "bandwidth" is the table the step decided with (bandwidth.h), so a rebalance weighs
 * the nodes with the same numbers even when the table file changed since; a file
 * without it (written before there was one) decides on sysfs HMAT.
 * "span_cpus" (absent: none) are the CPUs the step's one task was known to span, so a
 * re-decision scales the weights as the launch did (placement.h). A task's
 * "cpu_nodes" are empty until `mpolctl watch` re-binds it to another plan: then the
 * CPU nodes among that plan's nodes (the sockets its memory follows; a file from
 * before spanning plans holds "initiator":I instead, -1 for none).
 */
#ifndef SMPOL_STEP_STATE_H
#define SMPOL_STEP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"
#include "kernel.h"
#include "placement.h"
#include "site_config.h"
#include "spec.h"
#include "topology.h"

#define SMPOL_STEP_STATE_VERSION 1

struct smpol_step_task {
	pid_t pid;
	uint64_t start;                /* /proc/PID/stat starttime: a recycled pid is not this task */
	struct smpol_bitmap rebound;   /* CPU nodes of the plan `watch` re-bound it to, empty = as launched */
};

struct smpol_launch_free {
	int node;
	uint64_t free_kb;
};

struct smpol_step_state {
	uint32_t job_id;
	uint32_t step_id;
	uid_t uid;
	pid_t stepd_pid;               /* the slurmstepd that keeps it */
	uint64_t stepd_start;
	bool holder_alive;             /* read: that slurmstepd still runs */
	struct smpol_spec spec;
	bool site_default;
	struct smpol_site_decision site; /* what placement read of the site's configuration */
	uint64_t mem_kb;
	bool lease_held;
	enum smpol_kernel_path path;
	enum smpol_regions_by regions_by;      /* region-aware (spec's min_region): how the step placed them */
	bool has_span;
	struct smpol_cpus span_cpus;           /* has_span: the CPUs one task was known to span */
	char note[SMPOL_ERRLEN];
	struct smpol_bw_table bandwidth;        /* the step's bandwidth table (entries malloc'ed) */
	struct smpol_launch_free *launch_free;  /* malloc'ed, nlaunch_free of them */
	int nlaunch_free;
	struct smpol_step_task *tasks;          /* malloc'ed, ntasks of them */
	int ntasks;
};

/*
 * smpol_step_state_from - the state of a step that just decided: its request, site,
 * memory, lease outcome, path and note, and the free memory of every node now.
 * The owner is the calling process. 0 or -errno with a sentence.
 */
int smpol_step_state_from(const struct smpol_place_in *in, const struct smpol_placement *pl,
			  uint32_t job_id, uint32_t step_id, uid_t uid, struct smpol_step_state *st,
			  char *err, size_t errlen);

/* Append a task (its start time read now). 0, -ESRCH when it already exited, -ENOMEM. */
int smpol_step_state_add_task(struct smpol_step_state *st, pid_t pid, char *err, size_t errlen);

/* Append a task whose start time (smpol_proc_stat's) the caller read. 0 or -ENOMEM. */
int smpol_step_state_add_started(struct smpol_step_state *st, pid_t pid, uint64_t start, char *err,
				 size_t errlen);

/* Write (replace) the step's file. 0 or -errno with a sentence. */
int smpol_step_state_write(const struct smpol_host *h, const struct smpol_step_state *st,
			   char *err, size_t errlen);

/*
 * Read one step's file. -ENOENT (no sentence) when the step keeps none; -EBADMSG with
 * a sentence when it does not parse. st->site's sample_interval, which the file does
 * not keep, is the default.
 */
int smpol_step_state_read(const struct smpol_host *h, uint32_t job_id, uint32_t step_id,
			  struct smpol_step_state *st, char *err, size_t errlen);

/* Every kept step (the malformed ones, and any that is not a regular file, skipped and
 * counted in *nbad). */
int smpol_step_state_list(const struct smpol_host *h, struct smpol_step_state **states, int *nstates,
			  int *nbad, char *err, size_t errlen);

/* Remove a step's file (a missing one is no error). */
int smpol_step_state_remove(const struct smpol_host *h, uint32_t job_id, uint32_t step_id,
			    char *err, size_t errlen);

/* Remove the files of steps whose slurmstepd died; *removed counts them. */
int smpol_step_state_reap(const struct smpol_host *h, int *removed, char *err, size_t errlen);

/*
 * smpol_step_state_set_rebound - record that a rebalance moved a task's memory to a
 * plan whose CPU nodes (among its nodes) are cpu_nodes: under the kept placements'
 * lock, read the step's file again, set that task's rebound set, write it. -ENOENT
 * when the step or task is no longer kept (nothing to record).
 */
int smpol_step_state_set_rebound(const struct smpol_host *h, uint32_t job_id, uint32_t step_id, pid_t pid,
				 uint64_t start, const struct smpol_bitmap *cpu_nodes, char *err, size_t errlen);

/* The task with this pid and start time, or NULL. */
struct smpol_step_task *smpol_step_state_task(const struct smpol_step_state *st, pid_t pid, uint64_t start);

/*
 * smpol_step_state_place_in - the decision's inputs as the step was launched, over
 * today's topology and table. topo is copied into *launch_topo with the launch's free
 * memory for the nodes that existed then (a node added since keeps today's), so a
 * capacity cap gives the launch's shares where nothing changed; free it with
 * smpol_topology_free. The lease: HELD when the step held it, else NOT_HELD with the
 * step's note.
 */
int smpol_step_state_place_in(const struct smpol_step_state *st, const struct smpol_topology *topo,
			      const struct smpol_wi_table *table, const char *table_error,
			      struct smpol_topology *launch_topo, struct smpol_place_in *in,
			      char *err, size_t errlen);

void smpol_step_state_free(struct smpol_step_state *st);
void smpol_step_states_free(struct smpol_step_state *states, int n);

#endif
