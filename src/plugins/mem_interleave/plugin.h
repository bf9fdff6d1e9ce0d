/* plugin.h - the state of mem_interleave.so in one process, and its parts.
 *
 * SPANK callbacks carry no user pointer, so each process (srun, sbatch, slurmstepd)
 * holds one struct mi_ctx. Files are split by the process they run in:
 *   options.c  every context: the --mem-interleave option table and its callback
 *   release.c  every context: is this the Slurm release the plugin was built for
 *   local.c    srun/sbatch/salloc (the user): help and rejection of bad values
 *   step.c     slurmstepd (root): site config, topology, plans, weights lease
 *   task.c     each task (the user, after task/affinity): apply and export
 */
#ifndef MEM_INTERLEAVE_PLUGIN_H
#define MEM_INTERLEAVE_PLUGIN_H

#include <stdbool.h>
#include <slurm/spank.h>

#include "error.h"
#include "kernel.h"
#include "lease.h"
#include "plan.h"
#include "site_config.h"
#include "spec.h"
#include "topology.h"

#define MI_LOG "mem_interleave: "

struct mi_ctx {
	/* The user's option, as parsed in this process (any context). */
	bool opt_given;
	bool opt_from_env;             /* the job's value, which a step's command line overrides */
	struct mpol_spec opt_spec;
	char opt_text[512];            /* canonical form, to accept the same value twice */

	/* slurmstepd: what this step does. */
	struct mpol_site_config cfg;
	struct mpol_spec spec;         /* the option, else the site's default */
	bool active;                   /* tasks apply plans */
	char failure[2 * MPOL_ERRLEN]; /* asked for placement but cannot have it: tasks fail with this */
	struct mpol_topology topo;
	bool have_topo;
	struct mpol_kernel_caps caps;
	struct mpol_plan *plans;       /* one per initiator, weights as the kernel will use them */
	int nplans;
	bool lease_held;
	struct mpol_lease_owner owner;
	char node_name[256];           /* SLURMD_NODENAME, for the record */
	uint32_t job_nnodes;           /* S_JOB_NNODES, for the record */
	char note[2 * MPOL_ERRLEN];    /* why the step runs on other weights than planned, or "" */
};

/* The plugin's state in this process. */
struct mi_ctx *mi_ctx(void);

/* options.c */
int options_register(spank_t sp);

/* local.c */
void local_print_help(void);           /* prints the syntax on stdout and exits 0 */
int local_reject(const char *why);     /* one error line; returns -1 */
int local_init_post_opt(spank_t sp);

/* step.c */
int step_init_post_opt(spank_t sp, int ac, char **av);
int step_task_post_fork(spank_t sp);
int step_task_exit(spank_t sp);
int step_task_exit(spank_t sp);
int step_exit(spank_t sp);

/* task.c */
int task_init(spank_t sp);

#endif
