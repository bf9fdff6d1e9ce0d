/* sample_regions.c - place the large mappings of a region-aware step's tasks at each
 * sample (see sample_regions.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "array.h"
#include "mi_log.h"
#include "region_place.h"
#include "sample_regions.h"

/* What is kept of one task between samples. */
struct region_task {
	bool placed;                    /* its mappings were placed on `plan` */
	struct smpol_plan plan;
	bool quiet;                     /* an error was logged: the next ones are not */
	struct smpol_region_opts o;
	struct smpol_region_memory m;
};

/* process_mbind failing this many samples in a row (the probe passed, the calls do
 * not: a kernel that changed its mind, a security module) hands the step to page moves. */
#define PMBIND_MAX_REFUSALS 3

struct sample_regions {
	const struct smpol_placement *pl;
	int pmbind_refusals;            /* samples in a row whose process_mbind failed */
	bool pmbind_off;                /* page moves from now on */
	const struct smpol_topology *topo;
	long pmbind_nr;
	uint32_t job_id;
	char step[16];
	struct region_task *tasks;
	int ntasks;                     /* tasks seen so far */
	size_t cap;                     /* room in tasks */
};

struct sample_regions *sample_regions_new(const struct smpol_placement *pl, const struct smpol_topology *topo,
				      long pmbind_nr, uint32_t job_id, const char *step_key)
{
	struct sample_regions *ar;

	if (!pl->min_region_kb || pl->regions_by == SMPOL_REGIONS_NONE || !topo)
		return NULL;
	ar = calloc(1, sizeof(*ar));
	if (!ar) {
		slurm_error(MI_LOG "job %u step %s: out of memory: large mappings stay on the local node", job_id,
			    step_key);
		return NULL;
	}
	*ar = (struct sample_regions){ .pl = pl, .topo = topo, .pmbind_nr = pmbind_nr, .job_id = job_id };
	snprintf(ar->step, sizeof(ar->step), "%s", step_key);
	return ar;
}

/*
 * The task's plan by the CPUs it runs on now, as task_init picked it at launch. A task
 * moved to another socket's CPUs (mpolctl watch's case) gets that socket's plan: its
 * large mappings are all placed again. Cheap: one sched_getaffinity per sample.
 */
static int task_opts(struct sample_regions *ar, const struct smpol_task_ref *t, struct region_task *rt,
		     char *err, size_t errlen)
{
	struct smpol_plan p;
	struct smpol_cpus cpus = { 0 };
	char served[128] = "";
	int rc;

	rc = smpol_task_cpus(t->pid, &cpus, err, errlen);
	if (rc == 0)
		rc = smpol_placement_pick(ar->pl, ar->topo, &cpus, &p, err, errlen);
	smpol_cpus_free(&cpus);
	if (rc < 0)
		return rc;
	if (rt->placed && smpol_plan_same(&p, &rt->plan)) {
		smpol_plan_free(&p);
		return 0;
	}
	rc = smpol_region_opts_for(ar->pl, &p, ar->pmbind_nr, &rt->o, err, errlen);
	if (rc < 0) {
		smpol_plan_free(&p);
		return rc;
	}
	if (ar->pmbind_off)
		rt->o.by = SMPOL_REGIONS_MOVE;
	smpol_plan_format_served(&p, false, served, sizeof(served));
	if (rt->placed)
		slurm_info(MI_LOG "job %u step %s: task pid %d runs on CPU node(s) %s now: its large mappings "
			   "follow their plan", ar->job_id, ar->step, (int)t->pid, served);
	smpol_region_memory_free(&rt->m);
	smpol_plan_free(&rt->plan);
	rt->plan = p;   /* rt's now */
	rt->placed = true;
	return 0;
}

/* One more sample whose process_mbind failed: after PMBIND_MAX_REFUSALS in a row the
 * step's tasks get page moves instead (where the weights in force are known), said once. */
static void refused(struct sample_regions *ar, const char *why)
{
	if (ar->pmbind_off || ++ar->pmbind_refusals < PMBIND_MAX_REFUSALS || !ar->pl->weights_known)
		return;
	ar->pmbind_off = true;
	for (int i = 0; i < ar->ntasks; i++)
		ar->tasks[i].placed = false;    /* their options again, with page moves */
	slurm_error(MI_LOG "job %u step %s: process_mbind failed %d samples in a row (last: %s): large mappings "
		    "are placed by page moves from now on", ar->job_id, ar->step, PMBIND_MAX_REFUSALS, why);
}

void sample_regions_sample(struct sample_regions *ar, int index, const struct smpol_task_ref *t,
			   struct smpol_sampling *sampling)
{
	struct smpol_region_sample s;
	struct region_task *rt;
	char err[SMPOL_ERRLEN];
	int rc;

	if (!ar || index < 0)
		return;
	if (index >= ar->ntasks) {
		struct region_task *more = smpol_array_room(ar->tasks, &ar->cap, (size_t)index, sizeof(*more), 16);

		if (!more)
			return;         /* tried again at the next sample */
		memset(more + ar->ntasks, 0, sizeof(*more) * (size_t)(index + 1 - ar->ntasks));
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

void sample_regions_free(struct sample_regions *ar)
{
	if (!ar)
		return;
	for (int i = 0; i < ar->ntasks; i++) {
		smpol_region_memory_free(&ar->tasks[i].m);
		smpol_plan_free(&ar->tasks[i].plan);
	}
	free(ar->tasks);
	free(ar);
}
