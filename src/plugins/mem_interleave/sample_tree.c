/* sample_tree.c - one sample of each task's process tree; children follow their CPUs
 * (see sample_tree.h and child_place.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_tree.h"
#include "apply.h"
#include "child_place.h"
#include "numa_maps.h"
#include "mi_log.h"

/* A process a task started, between samples. */
struct child {
	struct smpol_task_ref ref;      /* pinned while it lives */
	bool seen;                      /* found in this sample */
	bool outside;                   /* not the job's (another parent or user): never touched */
	bool quiet;                     /* an error or a policy of its own was logged */
	int plan;                       /* placed on plans[plan], -1 = not placed */
	struct smpol_region_memory m;
};

/* What one sample reads (a task's process tree, each process's memory): held only while
 * the sample is taken, so that a step keeps none of it (20 KB) between samples. */
struct sample_scratch {
	struct smpol_proc_member members[TREE_MAX];
	bool ours[TREE_MAX];             /* members[i] is the job's (checked once pinned) */
	struct smpol_numa_usage u;
};

struct sample_tree {
	struct sample_tree_in in;
	char step[16];
	struct smpol_plan *plans;       /* in use: the placement's, then what tasks and children took */
	int nplans;
	struct child *children;
	int nchildren;
	struct sample_scratch *x;       /* during sample_tree_sample only */
};

#define LOG_TREE(fn, t, fmt, ...) fn(MI_LOG "job %u step %s: " fmt, (t)->in.job_id, (t)->step, __VA_ARGS__)

struct sample_tree *sample_tree_new(const struct sample_tree_in *in)
{
	struct sample_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->in = *in;
	snprintf(t->step, sizeof(t->step), "%s", in->step);
	t->in.step = t->step;
	t->plans = calloc((size_t)(in->pl->nplans ? in->pl->nplans : 1), sizeof(*t->plans));
	if (!t->plans) {
		free(t);
		return NULL;
	}
	for (; t->nplans < in->pl->nplans; t->nplans++)
		if (smpol_plan_copy(&t->plans[t->nplans], &in->pl->plans[t->nplans]) < 0) {
			sample_tree_free(t);
			return NULL;
		}
	return t;
}

const struct smpol_plan *sample_tree_plans(const struct sample_tree *t, int *nplans)
{
	*nplans = t->nplans;
	return t->plans;
}

static void forget(struct child *c)
{
	smpol_task_unpin(&c->ref);
	smpol_region_memory_free(&c->m);
}

void sample_tree_free(struct sample_tree *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nchildren; i++)
		forget(&t->children[i]);
	free(t->children);
	smpol_plans_free(t->plans, t->nplans);
	free(t);
}

/* The plan for a process's CPUs now, kept among the plans in use: its index, or -1. */
static int plan_of_cpus(struct sample_tree *t, const struct smpol_cpus *cpus)
{
	struct smpol_plan p;
	int idx;

	if (smpol_placement_pick(t->in.pl, t->in.topo, cpus, &p, NULL, 0) < 0)
		return -1;
	idx = smpol_plan_keep(&t->plans, &t->nplans, &p);
	smpol_plan_free(&p);
	return idx;
}

/* Read one process's memory into t->x->u; its policy (of most anonymous pages) into policy. */
static int read_usage(struct sample_tree *t, pid_t pid, char *policy, size_t len)
{
	smpol_numa_usage_init(&t->x->u);
	if (smpol_numa_maps_read(NULL, pid, &t->x->u, NULL, 0) < 0)
		return -1;
	snprintf(policy, len, "%s", t->x->u.npolicies ? t->x->u.policies[0].policy : "");
	return 0;
}

/* The child found as pid under parent: known already (the same process), or pinned now. */
static struct child *child_of(struct sample_tree *t, pid_t pid, pid_t parent)
{
	struct child *c, *more;
	char err[SMPOL_ERRLEN];
	int rc;

	for (int i = 0; i < t->nchildren; i++) {
		c = &t->children[i];
		if (c->ref.pid != pid)
			continue;
		if (smpol_task_check(&c->ref, NULL, 0) == 0)
			return c;
		/* exited, and the pid names another process now: a new child */
		forget(c);
		*c = t->children[--t->nchildren];
		break;
	}
	more = realloc(t->children, sizeof(*more) * (size_t)(t->nchildren + 1));
	if (!more)
		return NULL;
	t->children = more;
	c = &t->children[t->nchildren];
	memset(c, 0, sizeof(*c));
	c->plan = -1;
	rc = smpol_child_pin(pid, parent, t->in.uid, &c->ref, err, sizeof(err));
	/* not the job's: pinned only to be known again, told once and never looked at */
	if (rc == -EPERM && smpol_task_pin(pid, 0, &c->ref, NULL, 0) == 0) {
		LOG_TREE(slurm_info, t, "%s", err);
		c->outside = true;
	} else if (rc < 0) {
		return NULL;    /* it exited meanwhile */
	}
	t->nchildren++;
	return c;
}

/* Place the child on plans[idx] (one sample); the pages it holds are read again after. */
static void place(struct sample_tree *t, struct child *c, int idx, const struct smpol_cpus *cpus,
		  const char *inherited)
{
	const struct smpol_plan *p = &t->plans[idx];
	struct smpol_region_opts o;
	struct smpol_region_sample rs;
	char err[SMPOL_ERRLEN], list[128] = "", served[128] = "", nodes[128] = "", policy[64];
	bool first = c->plan != idx;
	int rc;

	if (first) {
		smpol_region_memory_free(&c->m);
		c->plan = idx;
		c->quiet = false;
	}
	rc = smpol_child_opts(t->in.pl, p, t->in.pmbind, t->in.pmbind_nr, &o, err, sizeof(err));
	if (rc == 0)
		rc = smpol_region_place_task(&c->ref, &o, &c->m, &rs, err, sizeof(err));
	if (rc < 0) {
		if (!c->quiet && smpol_task_check(&c->ref, NULL, 0) == 0)
			LOG_TREE(slurm_error, t, "process %d (%s): not placed on its CPUs' plan: %s", (int)c->ref.pid,
				 c->ref.comm, err);
		c->quiet = true;
		return;
	}
	if (first && !rs.exited) {
		smpol_cpus_format_list(cpus, list, sizeof(list));
		smpol_plan_format_served(p, false, served, sizeof(served));
		smpol_plan_format_nodes(p, nodes, sizeof(nodes));
		LOG_TREE(slurm_info, t, "process %d (%s) runs on CPUs %s, the plan of CPU node(s) %s, unlike the policy "
			 "it inherited (%s): its memory follows nodes %s now (%d mapping(s) placed, %d on it already, %d "
			 "by process_mbind; %llu pages, %llu moved, %llu did not move)", (int)c->ref.pid, c->ref.comm, list,
			 served, inherited, nodes, rs.placed, rs.kept + rs.at_allocation, rs.policies, (unsigned long long)rs.pages, (unsigned long long)rs.moved,
			 (unsigned long long)rs.not_moved);
	}
	if (rs.moved || rs.policies)
		read_usage(t, c->ref.pid, policy, sizeof(policy));
}

/* One process the task started: placed by its own CPUs when they call for another
 * plan than the policy it inherited, then sampled. False when it is not the job's. */
static bool sample_child(struct sample_tree *t, const struct smpol_proc_member *m, const char *task_policy,
			 struct smpol_sampling *s)
{
	bool region_aware = t->in.pl->min_region_kb > 0;
	struct child *c = child_of(t, m->pid, m->parent);
	struct smpol_cpus cpus = { 0 };
	char policy[64];
	int idx;

	if (!c)
		return false;
	c->seen = true;
	if (c->outside)
		return false;
	if (smpol_task_cpus(m->pid, &cpus, NULL, 0) < 0 || read_usage(t, m->pid, policy, sizeof(policy)) < 0) {
		smpol_cpus_free(&cpus);
		return true;
	}
	idx = plan_of_cpus(t, &cpus);
	if (idx >= 0 && c->plan < 0) {
		switch (smpol_child_check(policy, task_policy, &t->plans[idx], region_aware)) {
		case SMPOL_CHILD_REPLACE:
			break;
		case SMPOL_CHILD_NOT_OURS:
			if (!c->quiet)
				LOG_TREE(slurm_info, t, "process %d (%s) has policy '%s', not its task's '%s': left alone",
					 (int)m->pid, c->ref.comm, policy, task_policy);
			c->quiet = true;
			/* fall through */
		case SMPOL_CHILD_FOLLOWS:
			idx = -1;
			break;
		}
	}
	if (idx >= 0)
		place(t, c, idx, &cpus, policy);
	smpol_cpus_free(&cpus);
	if (idx >= 0 && !region_aware)
		smpol_sampling_add_on(s, &t->x->u, &t->plans[idx], t->in.pl->path);
	else
		smpol_sampling_add(s, &t->x->u, t->plans, t->nplans, t->in.pl->path);
	return true;
}

/* Is member i's parent the task or a member found to be the job's? */
static bool under_job(const struct smpol_proc_member *members, const bool *ours, int i)
{
	for (int j = 0; j < i; j++)
		if (members[j].pid == members[i].parent)
			return ours[j];
	return false;
}

/* One task's tree: the task (its plan kept for the record and the targets), then the
 * processes it started. */
static void sample_task(struct sample_tree *t, pid_t task, struct smpol_sampling *s)
{
	struct sample_scratch *x = t->x;
	struct smpol_cpus cpus = { 0 };
	char task_policy[64];
	int n;

	if (smpol_proc_tree(NULL, task, TREE_MAX, x->members, &n, NULL, 0) < 0 ||
	    read_usage(t, task, task_policy, sizeof(task_policy)) < 0)
		return;
	if (smpol_task_cpus(task, &cpus, NULL, 0) == 0)
		plan_of_cpus(t, &cpus);
	smpol_cpus_free(&cpus);
	smpol_sampling_add(s, &x->u, t->plans, t->nplans, t->in.pl->path);
	x->ours[0] = true;
	/* parents come first: a process under one that is not the job's is not looked at */
	for (int i = 1; i < n; i++)
		x->ours[i] = under_job(x->members, x->ours, i) && sample_child(t, &x->members[i], task_policy, s);
}

void sample_tree_sample(struct sample_tree *t, const pid_t *tasks, int ntasks, struct smpol_sampling *s)
{
	int kept = 0;

	t->x = malloc(sizeof(*t->x));
	if (!t->x)
		return;         /* out of memory: no sample this time, the next one tries again */
	for (int i = 0; i < t->nchildren; i++)
		t->children[i].seen = false;
	for (int i = 0; i < ntasks; i++)
		sample_task(t, tasks[i], s);
	free(t->x);
	t->x = NULL;
	for (int i = 0; i < t->nchildren; i++) {
		if (t->children[i].seen)
			t->children[kept++] = t->children[i];
		else
			forget(&t->children[i]);
	}
	t->nchildren = kept;
}
