/* step.c - slurmstepd (root): site config, topology, one plan per initiator, the
 * weights lease, and its release at step end. Tasks inherit the plans when forked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>

#include "accounting.h"
#include "plugin.h"
#include "release.h"
#include "sysfs.h"
#include "wi.h"

/* Remember why the step cannot have the placement it asked for; its tasks fail with it. */
static int step_fail(struct mi_ctx *c, const char *what, const char *err)
{
	snprintf(c->failure, sizeof(c->failure), "%s%s", what, err);
	slurm_error(MI_LOG "job %u step %u: %s", c->owner.job_id, c->owner.step_id, c->failure);
	return 0;
}

/* Memory for this step on this node in kB: the step's own limit, else the job's. */
static uint64_t step_mem_kb(spank_t sp)
{
	uint64_t mb = 0;

	if (spank_get_item(sp, S_STEP_ALLOC_MEM, &mb) != ESPANK_SUCCESS || mb == 0)
		if (spank_get_item(sp, S_JOB_ALLOC_MEM, &mb) != ESPANK_SUCCESS)
			mb = 0;
	return mb * 1024;
}

/*
 * Does the job own every CPU of this node? Slurm gives its cores here as a list;
 * a core holds as many CPUs as cpu0 has thread siblings.
 */
static bool job_owns_node(spank_t sp, const struct mi_ctx *c)
{
	struct mpol_bitmap cores, all, sib;
	char *list = NULL, path[4200], text[256];
	int threads = 1;

	if (spank_get_item(sp, S_JOB_ALLOC_CORES, &list) != ESPANK_SUCCESS || !list ||
	    bitmap_parse_list(list, MPOL_MAX_CPUS, &cores, NULL, 0) < 0)
		return false;
	bitmap_clear(&all);
	for (int i = 0; i < c->topo.nnodes; i++)
		bitmap_or(&all, &c->topo.nodes[i].cpus);
	if (mpol_fs_path(c->cfg.fsroot, path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 bitmap_next(&all, 0)) == 0 &&
	    mpol_read_text(path, text, sizeof(text)) == 0 &&
	    bitmap_parse_list(text, MPOL_MAX_CPUS, &sib, NULL, 0) == 0 && bitmap_count(&sib) > 0)
		threads = bitmap_count(&sib);
	return bitmap_count(&cores) * threads >= bitmap_count(&all);
}

static bool table_holds(const struct mpol_wi_table *now, const struct mpol_wi_table *want,
			const struct mpol_bitmap *which)
{
	for (int n = bitmap_next(which, 0); n >= 0; n = bitmap_next(which, n + 1))
		if (!bitmap_test(&now->has_file, n) || now->weight[n] != want->weight[n])
			return false;
	return true;
}

/*
 * A step killed while holding the lease left its weights behind: put the journaled
 * table back before this step reads or compares it (whatever its mode wants).
 */
static void recover_dead_lease(struct mi_ctx *c)
{
	struct mpol_lease_state found;
	char err[MPOL_ERRLEN];

	if (mpol_lease_recover(c->cfg.statedir, c->cfg.fsroot, false, &found, err, sizeof(err)) < 0) {
		if (!found.holder_alive)
			slurm_error(MI_LOG "job %u step %u: %s", c->owner.job_id, c->owner.step_id, err);
		return;
	}
	if (found.restored)
		slurm_info(MI_LOG "job %u step %u: restored the weights left by job %u step %u (pid %d, dead)%s%s",
			   c->owner.job_id, c->owner.step_id, found.owner.job_id, found.owner.step_id,
			   (int)found.owner.pid, found.auto_failed ? "; " : "", found.auto_failed ? err : "");
}

/* Take the weights lease when the site allows it and the node's table differs. */
static void take_lease(spank_t sp, struct mi_ctx *c)
{
	struct mpol_wi_table want, now;
	struct mpol_bitmap which;
	char err[MPOL_ERRLEN];

	if (!c->caps.weighted_interleave)
		return;
	recover_dead_lease(c);
	if (c->spec.mode != MPOL_MODE_WEIGHTED)
		return;
	if (mpol_wi_from_plans(c->plans, c->nplans, &want, &which, err, sizeof(err)) < 0) {
		snprintf(c->note, sizeof(c->note), "%s; running on the node's current weights", err);
		return;
	}
	if (mpol_wi_read(c->cfg.fsroot, &now, err, sizeof(err)) < 0) {
		snprintf(c->note, sizeof(c->note), "%s", err);
		return;
	}
	if (table_holds(&now, &want, &which))
		return;        /* the system weights already are this step's */
	if (c->cfg.sysfs == MPOL_SYSFS_NEVER) {
		snprintf(c->note, sizeof(c->note), "the site does not let jobs write weights (sysfs=never); "
			 "running on the node's system weights");
		return;
	}
	if (c->cfg.sysfs == MPOL_SYSFS_EXCLUSIVE && !job_owns_node(sp, c)) {
		snprintf(c->note, sizeof(c->note), "the job shares the node (sysfs=exclusive); "
			 "running on the node's system weights");
		return;
	}
	if (mpol_lease_owner_self(&c->owner, err, sizeof(err)) < 0 ||
	    mpol_lease_acquire(c->cfg.statedir, c->cfg.fsroot, &c->owner, &want, &which, err, sizeof(err)) < 0) {
		snprintf(c->note, sizeof(c->note), "%s", err);
		slurm_info(MI_LOG "job %u step %u: weights not written: %s", c->owner.job_id, c->owner.step_id, err);
		return;
	}
	c->lease_held = true;
}

/* What the tasks will really get: the kernel's table for each plan's nodes. */
static void use_kernel_weights(struct mi_ctx *c)
{
	struct mpol_wi_table now;
	char err[MPOL_ERRLEN];

	if (!c->caps.weighted_interleave || c->spec.mode == MPOL_MODE_INTERLEAVE ||
	    mpol_wi_read(c->cfg.fsroot, &now, err, sizeof(err)) < 0 || !now.present)
		return;
	mpol_wi_weigh_plans(&now, c->plans, c->nplans);
}

static void begin_accounting(struct mi_ctx *c)
{
	struct step_placement sp = {
		.job_id = c->owner.job_id,
		.step_id = c->owner.step_id,
		.spec = &c->spec,
		.plans = c->plans,
		.nplans = c->nplans,
		.caps = &c->caps,
		.path = c->spec.mode == MPOL_MODE_INTERLEAVE || !c->caps.weighted_interleave ?
			MPOL_PATH_INTERLEAVE : MPOL_PATH_WEIGHTED,
		.sysfs_written = c->lease_held,
		.note = c->note[0] ? c->note : NULL,
		.sample_interval = c->cfg.sample_interval,
		.topo = &c->topo,
		.node_name = c->node_name[0] ? c->node_name : NULL,
		.job_nnodes = c->job_nnodes,
		.statedir = c->cfg.statedir,
	};
	char err[MPOL_ERRLEN];

	if (accounting_step_begin(&sp, err, sizeof(err)) < 0)
		slurm_error(MI_LOG "job %u step %u: placement record: %s", c->owner.job_id, c->owner.step_id, err);
}

int step_init_post_opt(spank_t sp, int ac, char **av)
{
	struct mi_ctx *c = mi_ctx();
	struct mpol_plan_opts opts;
	char err[MPOL_ERRLEN];
	uid_t uid = 0;

	spank_get_item(sp, S_JOB_ID, &c->owner.job_id);
	spank_get_item(sp, S_JOB_STEPID, &c->owner.step_id);
	spank_get_item(sp, S_JOB_UID, &uid);
	c->owner.uid = uid;
	/* Another Slurm release: no Slurm call but SPANK; only jobs that asked fail. */
	if (release_mismatch())
		return c->opt_given ? step_fail(c, "", release_mismatch()) : 0;
	if (spank_get_item(sp, S_JOB_NNODES, &c->job_nnodes) != ESPANK_SUCCESS)
		c->job_nnodes = 0;
	if (spank_getenv(sp, "SLURMD_NODENAME", c->node_name, sizeof(c->node_name)) != ESPANK_SUCCESS)
		c->node_name[0] = '\0';
	mpol_config_default(&c->cfg);
	if (mpol_config_parse(ac, av, &c->cfg, err, sizeof(err)) < 0) {
		/* The admin's mistake must not take down jobs that did not ask for us. */
		slurm_error(MI_LOG "plugstack.conf arguments: %s", err);
		if (c->opt_given)
			step_fail(c, "the site's plugstack.conf arguments for mem_interleave are wrong; "
				  "ask the administrator (slurmd log): ", err);
		return 0;
	}
	c->spec = c->opt_given ? c->opt_spec : c->cfg.default_spec;
	/* The extern step runs no user tasks. */
	if (c->owner.step_id == SLURM_EXTERN_CONT || c->spec.mode == MPOL_MODE_NONE ||
	    c->spec.mode == MPOL_MODE_UNSET || c->spec.mode == MPOL_MODE_HELP)
		return 0;
	c->active = true;
	if (mpol_kernel_probe(c->cfg.fsroot, &c->caps, err, sizeof(err)) < 0)
		return step_fail(c, "", err);
	if (mpol_topology_read(c->cfg.fsroot, &c->topo, err, sizeof(err)) < 0)
		return step_fail(c, "", err);
	c->have_topo = true;
	mpol_plan_opts_from_spec(&c->spec, &c->cfg, step_mem_kb(sp), &opts);
	if (mpol_plan_all(&c->topo, &opts, &c->plans, &c->nplans, err, sizeof(err)) < 0)
		return step_fail(c, "", err);
	take_lease(sp, c);
	use_kernel_weights(c);
	begin_accounting(c);
	return 0;
}

int step_task_post_fork(spank_t sp)
{
	struct mi_ctx *c = mi_ctx();
	pid_t pid;

	if (!c->active || c->failure[0] || spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
		return 0;
	accounting_task_begin(pid);
	return 0;
}

int step_task_exit(spank_t sp)
{
	struct mi_ctx *c = mi_ctx();
	pid_t pid;

	if (!c->active || c->failure[0] || spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
		return 0;
	accounting_task_end(pid);
	return 0;
}

int step_exit(spank_t sp)
{
	struct mi_ctx *c = mi_ctx();
	char err[MPOL_ERRLEN];
	bool auto_failed = false;

	(void)sp;
	if (c->lease_held) {
		if (mpol_lease_release(c->cfg.statedir, c->cfg.fsroot, &c->owner, &auto_failed, err, sizeof(err)) < 0)
			slurm_error(MI_LOG "job %u step %u: restoring the weights: %s", c->owner.job_id,
				    c->owner.step_id, err);
		else if (auto_failed)
			slurm_info(MI_LOG "job %u step %u: %s", c->owner.job_id, c->owner.step_id, err);
		c->lease_held = false;
	}
	if (c->active && !c->failure[0])
		accounting_step_end();
	free(c->plans);
	c->plans = NULL;
	c->nplans = 0;
	if (c->have_topo)
		mpol_topology_free(&c->topo);
	c->have_topo = false;
	c->active = false;
	return 0;
}
