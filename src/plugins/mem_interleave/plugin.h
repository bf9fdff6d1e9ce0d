/* plugin.h - the parts of mem_interleave.so and what they hand each other.
 *
 * SPANK callbacks carry no user pointer: plugin.c holds the one step context of this
 * process and passes it explicitly; no other file keeps plugin state except options.c
 * (the option's parsed value, which its callback must store somewhere). Files are
 * split by the process and user they run as, and call each other one way only:
 *   plugin.c   the SPANK entry points: dispatch by context (calls all below)
 *   options.c  every context: the --mem-interleave option table and its callback
 *              (calls local.c for help)
 *   local.c    srun/sbatch/salloc (the user): help, the verbose line
 *   step.c     slurmstepd (root): site config, topology, the placement decision, the
 *              weights lease, the kept placement (calls record_step.c)
 *   release.c  every context: is this the Slurm release the plugin was built for
 *   record_courier.c  slurmd (root): the thread delivering the node's spooled records
 *              (calls record_write.c)
 *   task.c     each task (the user, after task/affinity): apply and export (calls
 *              preload.c, the interposer in a region-aware task's LD_PRELOAD)
 *   record_step.c  slurmstepd (root): samples and the placement record (calls
 *              record_collector.c, the step's record collector; record_write.c, this
 *              node's writes and spool; record_slurm.c, the record's Slurm I/O;
 *              sample_regions.c, region-aware steps' large mappings at each sample;
 *              sample_tree.c, each task's process tree: children follow their CPUs)
 * This header is the dispatcher's and its callees' (options, local, step, task,
 * preload); files that only log include mi_log.h.
 */
#ifndef MEM_INTERLEAVE_PLUGIN_H
#define MEM_INTERLEAVE_PLUGIN_H

#include <stdbool.h>
#include <slurm/spank.h>

#include "bw_sources.h"
#include "error.h"
#include "lease.h"
#include "mi_log.h"
#include "placement.h"
#include "site_config.h"
#include "spec.h"
#include "step_state.h"
#include "topology.h"

/* The user's option, as parsed in this process (any context). */
struct mi_option {
	bool given;
	bool from_env;                 /* the job's value, which a step's command line overrides */
	struct smpol_spec spec;        /* its weights are options.c's until options_free */
};

/* slurmstepd: what this step keeps on this node from its decision to its end
 * (bench/step-state measures it). What only the decision reads (the bandwidth table,
 * the weights table, the job's cores) lives in step_init_post_opt; the kept placement
 * until every local task has started (its last write names them all). */
struct mi_step {
	struct smpol_site_config site;
	struct smpol_lease_owner owner;        /* job, step, uid; pid once the lease is tried */
	bool active;                           /* the tasks get a placement (or its failure) */
	bool failed;                           /* asked for placement but cannot have it: tasks fail */
	char *failure;                         /* failed: why (malloc'ed; NULL when memory ran out) */
	const struct smpol_spec *spec;         /* the option (options.c's), else the site's default */
	struct smpol_topology topo;
	bool have_topo;
	struct smpol_placement pl;
	bool pmbind;                           /* process_mbind named by the site and probed */
	bool lease_held;
	struct smpol_step_state *kept;         /* the kept placement (step_state.h) until it is
	                                        * written; malloc'ed */
	bool kept_written;                     /* its file is on the node: removed at step end */
	uint32_t forked;                       /* local tasks forked so far */
	uint32_t local_tasks;                  /* tasks of this step on this node */
	uint32_t job_nnodes;                   /* S_JOB_NNODES: the step's nodes, for the record */
	struct record_step *record;            /* the placement record (record_step.h) */
};

/* options.c */
int options_register(spank_t sp);
const struct mi_option *options_value(void);
void options_free(void);               /* the value's weights, once the plugin exits */

/* local.c */
void local_print_help(void);           /* prints the syntax on stdout and exits 0 */
int local_init_post_opt(const struct mi_option *opt);

/* step.c */
int step_init_post_opt(spank_t sp, struct mi_step *s, const struct mi_option *opt, int ac, char **av);
int step_task_post_fork(spank_t sp, struct mi_step *s);
int step_task_exit(spank_t sp, struct mi_step *s);
int step_exit(struct mi_step *s);

/* task.c */
int task_init(spank_t sp, const struct mi_step *s, const struct mi_option *opt);

/* preload.c */
/* The interposer and its policy out of the task's environment (any step not region-aware). */
void preload_remove(spank_t sp, const struct mi_step *s);
/* A region-aware task's plan p: the interposer appended to LD_PRELOAD with its policy.
 * false (and the environment without them) when it cannot be, with why in why[]. */
bool preload_add(spank_t sp, const struct mi_step *s, const struct smpol_plan *p, char *why, size_t whylen);

#endif
