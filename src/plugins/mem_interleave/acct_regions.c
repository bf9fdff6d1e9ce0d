/* acct_regions.c - place the large mappings of a region-aware step's tasks at each
 * sample (see acct_regions.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>

#include "acct_regions.h"
#include "apply.h"
#include "plugin.h"
#include "region_place.h"

/* What is kept of one task between samples. */
struct region_task {
	int initiator;                  /* the plan its mappings were placed on; -2 = none yet */
	bool quiet;                     /* an error was logged: the next ones are not */
	struct smpol_region_opts o;
	struct smpol_region_memory m;
};

/* process_mbind failing this many samples in a row (the probe passed, the calls do
 * not: a kernel that changed its mind, a security module) hands the step to page moves. */
#define PMBIND_MAX_REFUSALS 3

struct acct_regions {
	const struct smpol_placement *pl;
	int pmbind_refusals;            /* samples in a row whose process_mbind failed */
	bool pmbind_off;                /* page moves from now on */
	const struct smpol_topology *topo;
	long pmbind_nr;
	uint32_t job_id;
	char step[16];
	struct region_task *tasks;
	int ntasks;
};

struct acct_regions *acct_regions_new(const struct smpol_placement *pl, const struct smpol_topology *topo,
				      long pmbind_nr, uint32_t job_id, const char *step_key)
{
	struct acct_regions *ar;

	if (!pl->min_region_kb || pl->regions_by == SMPOL_REGIONS_NONE || !topo)
		return NULL;
	ar = calloc(1, sizeof(*ar));
	if (!ar) {
		slurm_error(MI_LOG "job %u step %s: out of memory: large mappings stay on the local node", job_id,
			    step_key);
		return NULL;
	}
	*ar = (struct acct_regions){ .pl = pl, .topo = topo, .pmbind_nr = pmbind_nr, .job_id = job_id };
	snprintf(ar->step, sizeof(ar->step), "%s", step_key);
	return ar;
}

/*
 * The task's plan by the CPUs it runs on now, as task_init picked it at launch. A task
 * moved to another socket's CPUs (mpolctl watch's case) gets that socket's plan: its
 * large mappings are all placed again. Cheap: one sched_getaffinity per sample.
 */
static int task_opts(struct acct_regions *ar, const struct smpol_task_ref *t, struct region_task *rt,
		     char *err, size_t errlen)
{
	const struct smpol_plan *p;
	struct smpol_bitmap cpus;
	int rc;

	rc = smpol_task_cpus(t->pid, &cpus, err, errlen);
	if (rc == 0)
		rc = smpol_placement_pick(ar->pl, ar->topo, &cpus, &p, err, errlen);
	if (rc < 0 || p->initiator == rt->initiator)
		return rc;
	rc = smpol_region_opts_for(ar->pl, p, ar->pmbind_nr, &rt->o, err, errlen);
	if (rc < 0)
		return rc;
	if (ar->pmbind_off)
		rt->o.by = SMPOL_REGIONS_MOVE;
	if (rt->initiator != -2)
		slurm_info(MI_LOG "job %u step %s: task pid %d runs on node %d's CPUs now: its large mappings "
			   "follow that plan", ar->job_id, ar->step, (int)t->pid, p->initiator);
	smpol_region_memory_free(&rt->m);
	rt->initiator = p->initiator;
	return 0;
}

/* One more sample whose process_mbind failed: after PMBIND_MAX_REFUSALS in a row the
 * step's tasks get page moves instead (where the weights in force are known), said once. */
static void refused(struct acct_regions *ar, const char *why)
{
	if (ar->pmbind_off || ++ar->pmbind_refusals < PMBIND_MAX_REFUSALS || !ar->pl->weights_known)
		return;
	ar->pmbind_off = true;
	for (int i = 0; i < ar->ntasks; i++)
		ar->tasks[i].initiator = -2;    /* their options again, with page moves */
	slurm_error(MI_LOG "job %u step %s: process_mbind failed %d samples in a row (last: %s): large mappings "
		    "are placed by page moves from now on", ar->job_id, ar->step, PMBIND_MAX_REFUSALS, why);
}

void acct_regions_sample(struct acct_regions *ar, int index, const struct smpol_task_ref *t,
			 struct smpol_sampling *sampling)
{
	struct smpol_region_sample s;
	struct region_task *rt;
	char err[SMPOL_ERRLEN];
	int rc;

	if (!ar || index < 0)
		return;
	if (index >= ar->ntasks) {
		struct region_task *more = realloc(ar->tasks, sizeof(*more) * (size_t)(index + 1));

		if (!more)
			return;         /* tried again at the next sample */
		memset(more + ar->ntasks, 0, sizeof(*more) * (size_t)(index + 1 - ar->ntasks));
		for (int i = ar->ntasks; i <= index; i++)
			more[i].initiator = -2;
		ar->tasks = more;
		ar->ntasks = index + 1;
	}
	rt = &ar->tasks[index];
	rc = task_opts(ar, t, rt, err, sizeof(err));
	if (rc == 0)
		rc = smpol_region_place_task(t, &rt->o, &rt->m, &s, err, sizeof(err));
	if (rc == 0 && !s.exited) {
		struct smpol_region_ways w = {
			.allocation = s.at_allocation,
			.sampler = s.kept + s.placed - s.unmoved,
			.pending = s.large - s.at_allocation - s.kept - s.placed + s.unmoved,
		};

		smpol_sampling_add_regions(sampling, &w);
	}
	if (rc < 0 && s.policy_refused)
		refused(ar, err);
	else if (rc == 0 && s.policies)
		ar->pmbind_refusals = 0;
	if (rc < 0 && !rt->quiet && smpol_task_check(t, NULL, 0) == 0) {
		slurm_error(MI_LOG "job %u step %s: task pid %d: large mappings not placed: %s", ar->job_id, ar->step,
			    (int)t->pid, err);
		rt->quiet = true;
	} else if (rc == 0 && s.placed) {
		slurm_info(MI_LOG "job %u step %s: task pid %d: placed %d of %d large mapping(s) (%d by process_mbind): "
			   "%llu pages, minimum to move %llu, moved %llu, %llu did not move", ar->job_id, ar->step, (int)t->pid,
			   s.placed, s.large, s.policies, (unsigned long long)s.pages, (unsigned long long)s.minimum,
			   (unsigned long long)s.moved, (unsigned long long)s.not_moved);
	}
}

void acct_regions_free(struct acct_regions *ar)
{
	if (!ar)
		return;
	for (int i = 0; i < ar->ntasks; i++)
		smpol_region_memory_free(&ar->tasks[i].m);
	free(ar->tasks);
	free(ar);
}
