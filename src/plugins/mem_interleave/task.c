/* task.c - each task, as the user, after task/affinity bound it: pick the plan of the
 * task's CPUs, set the policy, tell the task what it got. */
#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "plugin.h"

/* "7:2" for weighted interleave; plain interleave gives every node the same share. */
static void applied_weights(const struct smpol_plan *p, const struct smpol_apply_result *res, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (res->path == SMPOL_PATH_WEIGHTED) {
		smpol_plan_format_weights(p, buf, len);
		return;
	}
	for (int i = 0; i < p->nnodes && off + 3 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, i ? ":1" : "1");
}

static void export_env(spank_t sp, const char *mode, const char *nodes, const char *weights)
{
	spank_setenv(sp, "SLURM_MEM_INTERLEAVE_MODE", mode, 1);
	spank_setenv(sp, "SLURM_MEM_INTERLEAVE_NODES", nodes, 1);
	spank_setenv(sp, "SLURM_MEM_INTERLEAVE_WEIGHTS", weights, 1);
}

/* One line like --mem-bind=verbose: what this task got, and why when it is less. */
static void say_verbose(uint32_t taskid, const struct smpol_bitmap *cpus, const struct smpol_plan *p,
			const struct smpol_apply_result *res, const char *nodes, const char *weights, const char *note)
{
	char list[256] = "";

	smpol_bitmap_format_list(cpus, list, sizeof(list));
	if (res->path == SMPOL_PATH_WEIGHTED)
		fprintf(stderr, MI_LOG "task %u (cpus %s): weighted interleave nodes %s weights %s (eff %.3f)%s%s\n",
			taskid, list, nodes, weights, p->efficiency, note[0] ? "; " : "", note);
	else
		fprintf(stderr, MI_LOG "task %u (cpus %s): interleave nodes %s%s%s%s\n", taskid, list, nodes,
			res->fell_back ? " (" : "", res->fell_back ? res->reason : "", res->fell_back ? ")" : "");
}

int task_init(spank_t sp)
{
	struct mi_ctx *c = mi_ctx();
	const struct smpol_plan *chosen;
	struct smpol_apply_result res;
	struct smpol_bitmap cpus;
	char err[SMPOL_ERRLEN], nodes[1024] = "", weights[1024] = "";
	uint32_t taskid = 0;

	if (c->failure[0]) {
		fprintf(stderr, MI_LOG "%s\n", c->failure);
		return -1;
	}
	if (!c->active) {
		/* Asked for none: say so, as --mem-bind=none would be visible too. */
		if (c->opt_given && c->spec.mode == SMPOL_MODE_NONE)
			spank_setenv(sp, "SLURM_MEM_INTERLEAVE_MODE", "none", 1);
		return 0;
	}
	spank_get_item(sp, S_TASK_GLOBAL_ID, &taskid);
	if (smpol_task_cpus(0, &cpus, err, sizeof(err)) < 0 ||
	    smpol_task_apply(&c->topo, c->plans, c->nplans, &cpus, c->spec.mode, c->spec.strict, &c->caps,
			    &chosen, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, MI_LOG "%s\n", err);
		return -1;
	}
	if (chosen) {
		smpol_plan_format_nodes(chosen, nodes, sizeof(nodes));
		applied_weights(chosen, &res, weights, sizeof(weights));
	}
	export_env(sp, smpol_applied_mode_name(c->spec.mode, res.path), nodes, weights);
	if (c->spec.verbose && chosen)
		say_verbose(taskid, &cpus, chosen, &res, nodes, weights, c->note);
	return 0;
}
