/* record_step.h - the placement record of a step (slurmstepd side, root).
 *
 * The step side calls these in order with the context begin returned: begin after
 * planning, task_begin per task, task_end per task, end at step exit. A thread samples
 * the tasks' /proc/PID/numa_maps (and their descendants') about 1 s after the first
 * task starts, then every sample_interval seconds, after placing a region-aware step's
 * large mappings (sample_regions.h) and the processes the tasks started by their own
 * CPUs (sample_tree.h; sampling.h holds the sums; with
 * prometheus_dir each sample is also written for node_exporter, prom_textfile.h). By
 * slurm_spank_exit the tasks have been reaped, so the record holds the last sample
 * taken while they lived. When the last task on the node ends, the record goes to the
 * job's accounting field (record.h) through the Slurm API slurmstepd already runs on
 * (record_slurm.c): in a step of several nodes every node hands its entry to the step's
 * first node, which writes them all at once (record_gather.h, record_collector.c). The
 * writer hands the record to slurmd's courier where one listens (record_courier.h), so
 * the step's end waits for no write.
 */
#ifndef MEM_INTERLEAVE_RECORD_STEP_H
#define MEM_INTERLEAVE_RECORD_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "placement.h"
#include "site_config.h"
#include "spec.h"
#include "step_state.h"
#include "topology.h"

/* What the record needs of a step. Everything pointed to must live until
 * record_step_end (the step's context in plugin.c does), but node_name and
 * step_nodelist: they are read during record_step_begin only. */
struct record_step_in {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t run;                          /* the job's run: its restart count (a label) */
	int64_t started;                       /* Unix time the step started here: the run's row in
	                                        * accounting is the one running then */
	uid_t uid;                             /* the job's user: the only one whose processes are placed */
	const struct smpol_spec *spec;          /* as requested */
	const struct smpol_placement *pl;       /* the decision: plans, path, note */
	bool pmbind;                           /* process_mbind configured and probed: children's
	                                        * mappings take their plan's policy too */
	bool sysfs_written;                    /* the step held the weights lease */
	const struct smpol_site_config *site;   /* sample_interval, record=, prometheus_dir=, host */
	const struct smpol_topology *topo;      /* node kinds in the record; NULL = unknown */
	const char *node_name;                 /* this node as slurmd names it; NULL = the host name */
	uint32_t step_nnodes;                  /* nodes of the step (S_JOB_NNODES); 0 = unknown */
	uint32_t node_id;                      /* this node's index in the step (S_JOB_NODEID) */
	const char *step_nodelist;             /* the step's nodes as the job was told (a routing
	                                        * hint only, until slurmctld's layout of the step
	                                        * is known: the job can change it); NULL = unknown */
};

struct record_step;

/* slurmstepd (root), slurm_spank_init_post_opt, after planning: *rec is the step's
 * record, or NULL on error (the sentence says what is lost). */
int record_step_begin(const struct record_step_in *sp, struct record_step **rec, char *err, size_t errlen);
/* slurmstepd (root), slurm_spank_task_post_fork. */
void record_step_task_begin(struct record_step *rec, pid_t pid);
/* slurmstepd (root), slurm_spank_task_post_fork of the node's last task: the sampler
 * thread takes the kept placement (step_state.h; malloc'ed, its own from now on), adds
 * the tasks that still live, with their start times, and writes it with the step's
 * first sample (about a second after the first task's start), off the tasks' launch
 * (slurmstepd holds them until every post-fork callback has returned); tasks that all
 * ended first leave nothing to keep. false: no sampler thread (rec NULL), the caller
 * keeps it. */
bool record_step_keep(struct record_step *rec, struct smpol_step_state *kept);
/* slurmstepd (root), slurm_spank_task_exit; killed: the task ended by a signal. When
 * the last task of the step on this node has ended, the record is handed to the
 * courier or written here: slurmstepd reports the exits to srun only after this
 * callback, so the job is still running and slurmctld still accepts the update (the
 * courier's write may come after the job's end: it goes through slurmdbd then). */
void record_step_task_end(struct record_step *rec, pid_t pid, bool killed);
/* slurmstepd (root), slurm_spank_exit: write the record if task_end did not, remove
 * the metrics file, free all; *rec becomes NULL. */
void record_step_end(struct record_step **rec);

#endif
