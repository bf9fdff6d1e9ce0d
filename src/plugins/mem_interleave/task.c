/* task.c - each task, as the user, after task/affinity bound it: pick the plan of the
 * task's CPUs, set the policy, tell the task what it got. A region-aware step's task
 * stays local; the interposer (preload.c) gives its large allocations the plan as they
 * are made, and slurmstepd's sampler places what it misses (sample_regions.c). */
#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "plugin.h"
#include "units.h"

/* The weights in force, in node order ("7:2"); "" when they are not known. Plain
 * interleave gives every node the same share. */
static void applied_weights(const struct mi_step *s, const struct smpol_plan *p,
			    const struct smpol_apply_result *res, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (res->path == SMPOL_PATH_WEIGHTED) {
		if (s->pl.weights_known)
			smpol_plan_format_weights(p, buf, len);
		return;
	}
	for (int i = 0; i < p->nnodes && off + 3 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, i ? ":1" : "1");
}

/* SLURM_MEM_INTERLEAVE_*: what the task really got, for which CPU nodes (served, ""
 * when inactive or for every CPU), and why it is less than asked. */
static void export_env(spank_t sp, const char *mode, const char *nodes, const char *weights, const char *served,
		       const char *note)
{
	spank_setenv(sp, "SLURM_MEM_INTERLEAVE_MODE", mode, 1);
	spank_setenv(sp, "SLURM_MEM_INTERLEAVE_NODES", nodes, 1);
	spank_setenv(sp, "SLURM_MEM_INTERLEAVE_WEIGHTS", weights, 1);
	spank_setenv(sp, "SLURM_MEM_INTERLEAVE_CPU_NODES", served, 1);
	if (note[0])
		spank_setenv(sp, "SLURM_MEM_INTERLEAVE_NOTE", note, 1);
}

/* The plan's own notes (a spanning plan's split, guesses made) after the step's. */
static void task_note(const struct mi_step *s, const struct smpol_plan *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", s->pl.note ? s->pl.note : "", s->pl.note && p->nserved > 1 && p->notes ? "; " : "",
		 p->nserved > 1 && p->notes ? p->notes : "");
}

/* One line like --mem-bind=verbose: what this task got, and why when it is less. */
static void say_verbose(uint32_t taskid, const struct smpol_cpus *cpus, const struct smpol_plan *p,
			const struct smpol_apply_result *res, const char *nodes, const char *weights, const char *note)
{
	char list[256] = "", served[256] = "";

	smpol_cpus_format_list(cpus, list, sizeof(list));
	smpol_plan_format_served(p, false, served, sizeof(served));
	if (res->path == SMPOL_PATH_WEIGHTED)
		fprintf(stderr, MI_LOG "task %u (cpus %s, CPU node%s %s): weighted interleave nodes %s weights %s "
			"(eff %.3f)%s%s\n", taskid, list, p->nserved > 1 ? "s" : "", served[0] ? served : "any", nodes,
			weights[0] ? weights : "unknown", p->efficiency, note[0] ? "; " : "", note);
	else
		fprintf(stderr, MI_LOG "task %u (cpus %s, CPU node%s %s): interleave nodes %s%s%s%s%s%s\n", taskid,
			list, p->nserved > 1 ? "s" : "", served[0] ? served : "any", nodes, res->fell_back ? " (" : "",
			res->fell_back ? res->reason : "", res->fell_back ? ")" : "", note[0] ? "; " : "", note);
}

/* How a region-aware step's large mappings get the plan, in the verbose line's words. */
static const char *regions_by_words(const struct mi_step *s)
{
	switch (s->pl.regions_by) {
	case SMPOL_REGIONS_POLICY:
		return "set by process_mbind as they appear";
	case SMPOL_REGIONS_MOVE:
		return "pages moved at each sample";
	default:
		return "not placed";
	}
}

/* Region-aware: the task's own policy is local, its large allocations get the plan. */
static int apply_region_aware(spank_t sp, const struct mi_step *s, uint32_t taskid, const struct smpol_cpus *cpus,
			      const struct smpol_plan *p)
{
	struct smpol_apply_result res = { .path = s->pl.path };
	char err[SMPOL_ERRLEN], nodes[1024] = "", weights[1024] = "", size[32], list[256] = "", local[32];
	char served[256] = "", why[SMPOL_ERRLEN], plan_note[2 * SMPOL_ERRLEN], note[3 * SMPOL_ERRLEN + 64];
	bool interposer;
	int node;

	if (smpol_apply_local(p, &node, err, sizeof(err)) < 0) {
		fprintf(stderr, MI_LOG "%s\n", err);
		return -1;
	}
	interposer = preload_add(sp, s, p, why, sizeof(why));
	task_note(s, p, plan_note, sizeof(plan_note));
	snprintf(note, sizeof(note), "%s%s%s%s", plan_note, plan_note[0] && why[0] ? "; " : "", why,
		 why[0] ? ": large allocations are placed by the sampler" : "");
	smpol_plan_format_nodes(p, nodes, sizeof(nodes));
	smpol_plan_format_served(p, false, served, sizeof(served));
	applied_weights(s, p, &res, weights, sizeof(weights));
	smpol_format_size_exact(s->pl.min_region_kb, size, sizeof(size));
	export_env(sp, smpol_applied_mode_name(s->spec->mode, s->pl.path), nodes, weights, served, note);
	spank_setenv(sp, "SLURM_MEM_INTERLEAVE_MIN_REGION", size, 1);
	if (!s->spec->verbose)
		return 0;
	if (node >= 0)
		snprintf(local, sizeof(local), "local on node %d", node);
	else
		snprintf(local, sizeof(local), "local");
	smpol_cpus_format_list(cpus, list, sizeof(list));
	fprintf(stderr, MI_LOG "task %u (cpus %s, CPU node%s %s): %s; mappings >= %s: %s nodes %s weights %s, %s%s%s%s\n",
		taskid, list, p->nserved > 1 ? "s" : "", served[0] ? served : "any", local, size,
		s->pl.path == SMPOL_PATH_WEIGHTED ? "weighted interleave" : "interleave", nodes,
		weights[0] ? weights : "unknown", interposer ? "placed as they are allocated, else " : "",
		regions_by_words(s), note[0] ? "; " : "", note);
	return 0;
}

/* The whole task on its plan: the policy set, the environment saying which. */
static int apply_whole_task(spank_t sp, const struct mi_step *s, uint32_t taskid, const struct smpol_cpus *cpus,
			    const struct smpol_plan *chosen)
{
	struct smpol_apply_result res;
	char err[SMPOL_ERRLEN], nodes[1024] = "", weights[1024] = "", served[256] = "", note[2 * SMPOL_ERRLEN];

	if (smpol_apply_plan(chosen, s->pl.path, s->spec->strict, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, MI_LOG "%s\n", err);
		return -1;
	}
	smpol_plan_format_nodes(chosen, nodes, sizeof(nodes));
	smpol_plan_format_served(chosen, false, served, sizeof(served));
	applied_weights(s, chosen, &res, weights, sizeof(weights));
	task_note(s, chosen, note, sizeof(note));
	export_env(sp, smpol_applied_mode_name(s->spec->mode, res.path), nodes, weights, served,
		   res.fell_back ? res.reason : note);
	if (s->spec->verbose)
		say_verbose(taskid, cpus, chosen, &res, nodes, weights, note);
	return 0;
}

int task_init(spank_t sp, const struct mi_step *s, const struct mi_option *opt)
{
	struct smpol_plan chosen;
	struct smpol_cpus cpus = { 0 };
	char err[SMPOL_ERRLEN];
	uint32_t taskid = 0;
	int rc;

	if (s->failed) {
		fprintf(stderr, MI_LOG "%s\n", s->failure ? s->failure : "out of memory while deciding the placement");
		return -1;
	}
	if (!s->pl.active || !s->pl.min_region_kb)
		preload_remove(sp, s);
	if (!s->pl.active) {
		/* Asked for none, or the site's default cannot apply here: say so, as
		 * --mem-bind=none would be visible too. */
		if ((opt->given && opt->spec.mode == SMPOL_MODE_NONE) || s->pl.note)
			export_env(sp, "none", "", "", "", s->pl.note ? s->pl.note : "");
		return 0;
	}
	spank_get_item(sp, S_TASK_GLOBAL_ID, &taskid);
	if (smpol_task_cpus(0, &cpus, err, sizeof(err)) < 0 ||
	    smpol_placement_pick(&s->pl, &s->topo, &cpus, &chosen, err, sizeof(err)) < 0) {
		fprintf(stderr, MI_LOG "%s\n", err);
		smpol_cpus_free(&cpus);
		return -1;
	}
	if (s->pl.min_region_kb)
		rc = apply_region_aware(sp, s, taskid, &cpus, &chosen);
	else
		rc = apply_whole_task(sp, s, taskid, &cpus, &chosen);
	smpol_plan_free(&chosen);
	smpol_cpus_free(&cpus);
	return rc;
}
