/* record_step.c - slurmstepd (root): sample where the step's memory lands while its
 * tasks live, and hand the placement record to its writer at the end.
 *
 * One sampler thread per step: it sleeps until the first task starts, samples about
 * FIRST_SAMPLE_S later (so short jobs get a sample too), then every sample_interval
 * seconds until the step ends. The kept placement is written just before the first
 * sample, so a step shorter than that writes none (doc/design-notes.md). Tasks are
 * held by pidfd, so a task that exited is skipped and a recycled PID is never sampled.
 * The sums live in struct smpol_sampling, which only the sampler thread touches until
 * it is told to stop between samples, or joined (stop_sampler).
 *
 * On a node of several, the sampler also hands the node's entry up the fan-in tree
 * after each sample, while the tasks run: an entry changes only with a sample, so the
 * step's end then has nothing left to send and waits on no other node's slurmd.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "array.h"
#include "mi_log.h"
#include "numa_maps.h"
#include "proc_stat.h"
#include "prom_textfile.h"
#include "record.h"
#include "record_collector.h"
#include "record_gather.h"
#include "record_slurm.h"
#include "record_step.h"
#include "record_write.h"
#include "sample_regions.h"
#include "sample_tree.h"
#include "sampling.h"
#include "step_name.h"
#include "task_ref.h"

#define FIRST_SAMPLE_S 1
/* How long the step's first node waits, after its own tasks ended, for the other
 * nodes' entries; a node later than that writes its entry itself. A node d
 * deliveries below it waits GATHER_WAIT_MS / (d + 1), so it hands its subtree over
 * while its parent still listens. */
#define GATHER_WAIT_MS 5000
/* A node whose tasks ended this soon after they started may find no collector yet
 * (its parent's slurmstepd started later, as on a loaded node): it offers its
 * entries again every FORWARD_RETRY_MS for up to FORWARD_WAIT_MS after the first "no
 * collector here". Later, a node finds none only when the collector stopped waiting. */
#define FORWARD_YOUNG_S 10
#define FORWARD_RETRY_MS 100
#define FORWARD_WAIT_MS 2000

struct task {
	pid_t pid;
	int pidfd;              /* -1 when pidfd_open is not available */
	bool ended;             /* reported by record_step_task_end */
	struct smpol_task_ref ref;      /* region-aware steps: pinned at its start, else pidfd -1 */
};

struct record_step {
	struct record_step_in in;       /* pointers live until record_step_end */
	char node[256];
	char step[16];
	const char **kinds;             /* static strings per node below nkinds (the highest online
	                                 * + 1), NULL = unknown; malloc'ed */
	int nkinds;

	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stop;
	bool sampling;          /* the sampler thread is taking a sample: a->s and a->tree are its own */
	bool courier_listens;   /* the sampler found slurmd's courier listening at its start */
	struct task *tasks;
	int ntasks;
	size_t cap;
	int ended;              /* tasks of tasks[] that ended */
	bool killed;            /* one ended by a signal: the job may have lost a node */
	struct timespec first_task;     /* CLOCK_MONOTONIC */
	struct smpol_sampling s;        /* the sampler thread's until stopped (stop_sampler) */
	struct sample_tree *tree;         /* the tasks' process trees: the sampler thread's until stopped */

	struct record_collector *gather;     /* a node with children in the tree: their collector */
	bool deliveries_due;            /* the collector took entries the sampler may hand on */
	char parent[256];               /* nodes but the first: where entries go, "" = none */
	json_object *hosts;             /* the step's nodes in order, from slurmctld; NULL =
	                                 * unknown (the sampler thread's until joined) */
	json_object *handed;            /* this node's entry as its parent last took it */
	struct smpol_step_state *keep;  /* the kept placement for the sampler to write */
	struct record_write w;            /* this node's writes of the record */
	bool written;
	bool spooled;                   /* this step's record waits in the spool */
};

static bool task_exited(const struct task *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

	/* a pidfd turns readable when its process exits */
	return t->pidfd >= 0 && poll(&p, 1, 0) > 0;
}

/* One sample of every live task (outside the lock: reading numa_maps takes time); a
 * region-aware step's large mappings are placed first, and the processes the tasks
 * started by their own CPUs (sample_tree.h), so the sample shows them. */
static void take_sample(struct record_step *a, const struct task *tasks, int ntasks, pid_t *live,
			struct sample_regions *regions)
{
	char err[SMPOL_ERRLEN];
	int nlive = 0;

	smpol_sampling_begin(&a->s);
	for (int i = 0; i < ntasks; i++) {
		if (task_exited(&tasks[i]))
			continue;
		if (tasks[i].ref.pidfd >= 0)
			sample_regions_sample(regions, i, &tasks[i].ref, &a->s);
		live[nlive++] = tasks[i].pid;
	}
	sample_tree_sample(a->tree, live, nlive, &a->s);
	smpol_sampling_end(&a->s, (int64_t)time(NULL));
	if (a->s.n > 0 && a->in.site->prometheus_dir[0] &&
	    smpol_prom_write(a->in.site->prometheus_dir, a->in.job_id, a->step, &a->s, err, sizeof(err)) < 0)
		slurm_error(MI_LOG "job %u step %s: metrics: %s", a->in.job_id, a->step, err);
}

static void hand_over(struct record_step *a);

/* The kept placement with the tasks that still live once their start is read (a task
 * alive then was not reaped, so its PID was its own), written; none alive: nothing to
 * keep. Outside the lock; kept is freed. */
static void write_kept(struct record_step *a, struct smpol_step_state *kept, const struct task *tasks, int ntasks)
{
	char err[SMPOL_ERRLEN];

	for (int i = 0; i < ntasks; i++) {
		uint64_t start;

		if (smpol_proc_stat(tasks[i].pid, &start, NULL, NULL, 0) == 0 && !task_exited(&tasks[i]) &&
		    smpol_step_state_add_started(kept, tasks[i].pid, start, err, sizeof(err)) < 0)
			slurm_error(MI_LOG "job %u step %s: %s", a->in.job_id, a->step, err);
	}
	if (kept->ntasks > 0 && smpol_step_state_write(&a->in.site->host, kept, err, sizeof(err)) < 0)
		slurm_error(MI_LOG "job %u step %s: placement not kept (mpolctl rebalance will use defaults): %s",
			    a->in.job_id, a->step, err);
	smpol_step_state_free(kept);
	free(kept);
}

/* Under the lock: write the kept placement handed over (record_step_keep), outside it. */
static void keep_handed(struct record_step *a)
{
	struct smpol_step_state *kept = a->keep;
	int n = a->ntasks;
	struct task *copy = malloc(sizeof(*copy) * (size_t)n);

	a->keep = NULL;
	if (copy)
		memcpy(copy, a->tasks, sizeof(*copy) * (size_t)n);
	pthread_mutex_unlock(&a->lock);
	/* out of memory: no task known, nothing written */
	write_kept(a, kept, copy, copy ? n : 0);
	free(copy);
	pthread_mutex_lock(&a->lock);
}

/* Whether the step's nodes hand their entries up the fan-in tree (record_gather.h): a
 * step of several nodes with a record. */
static bool gathers(const struct record_step *a)
{
	return a->in.site->record != SMPOL_RECORD_NONE && a->in.step_nnodes > 1;
}

/* A step of several nodes: its nodes as slurmctld laid it out, which name those whose
 * entry never comes (record_missing.h) and route to the parent instead of the job's
 * copy. Asked once, in the sampler thread, off the step's launch. */
static void learn_hosts(struct record_step *a)
{
	uint32_t n = a->in.step_nnodes, id = a->in.node_id;
	char err[SMPOL_ERRLEN];
	json_object *parent;

	if (!gathers(a))
		return;
	if (record_slurm_step_hosts(a->in.job_id, a->in.step_id, &a->hosts, err, sizeof(err)) < 0 ||
	    json_object_array_length(a->hosts) != n) {
		slurm_info(MI_LOG "job %u step %s: %s; nodes whose entries do not come are not named in the "
			   "record", a->in.job_id, a->step, a->hosts ? "the step's layout does not match its node "
			   "count" : err);
		json_object_put(a->hosts);
		a->hosts = NULL;
		return;
	}
	parent = id > 0 ? json_object_array_get_idx(a->hosts, smpol_gather_parent(id, n)) : NULL;
	if (parent)
		snprintf(a->parent, sizeof(a->parent), "%s", json_object_get_string(parent));
}

static void *sampler(void *arg)
{
	struct record_step *a = arg;
	struct timespec next = { 0 };
	unsigned interval = a->in.site->decide.sample_interval;
	bool sampled = false, listens;
	struct sample_regions *regions = sample_regions_new(a->in.pl, a->in.topo, a->in.site->process_mbind_nr,
							a->in.job_id, a->step);

	learn_hosts(a);
	listens = record_write_deliver_others(&a->w);
	pthread_mutex_lock(&a->lock);
	a->courier_listens = listens;
	while (!a->stop) {
		struct task *copy;
		pid_t *live;
		int n, rc = 0;

		/* the kept placement waits for the first sample (below): a step that ends
		 * sooner writes none, nothing having had the time to rebalance it; one handed
		 * over after it (a slow launch) is written at once */
		if (a->keep && sampled) {
			keep_handed(a);
			continue;
		}
		if (a->ntasks == 0) {
			/* children's entries wait for this node's own sample */
			a->deliveries_due = false;
			pthread_cond_wait(&a->wake, &a->lock);
			continue;
		}
		if (next.tv_sec == 0) {
			next = a->first_task;
			next.tv_sec += FIRST_SAMPLE_S;
		}
		/* with sample_interval 0, after its one sample only the end or entries wake it */
		while (!a->stop && !a->deliveries_due && !(a->keep && sampled) && rc != ETIMEDOUT)
			rc = sampled && interval == 0 ? pthread_cond_wait(&a->wake, &a->lock)
						      : pthread_cond_timedwait(&a->wake, &a->lock, &next);
		if (a->stop)
			break;
		if (a->keep && sampled)
			continue;
		if (a->deliveries_due) {
			a->deliveries_due = false;
			pthread_mutex_unlock(&a->lock);
			hand_over(a);
			pthread_mutex_lock(&a->lock);
			continue;
		}
		if (a->keep)
			keep_handed(a);
		n = a->ntasks;
		copy = malloc(sizeof(*copy) * (size_t)n);
		live = malloc(sizeof(*live) * (size_t)n);
		if (copy)
			memcpy(copy, a->tasks, sizeof(*copy) * (size_t)n);
		a->sampling = true;
		pthread_mutex_unlock(&a->lock);
		if (copy && live)
			take_sample(a, copy, n, live, regions);
		free(copy);
		free(live);
		hand_over(a);
		pthread_mutex_lock(&a->lock);
		a->sampling = false;
		sampled = true;
		clock_gettime(CLOCK_MONOTONIC, &next);
		next.tv_sec += interval;
	}
	pthread_mutex_unlock(&a->lock);
	sample_regions_free(regions);
	return NULL;
}

static void record_free(struct record_step *a)
{
	for (int i = 0; i < a->ntasks; i++) {
		if (a->tasks[i].pidfd >= 0)
			close(a->tasks[i].pidfd);
		smpol_task_unpin(&a->tasks[i].ref);
	}
	free(a->tasks);
	free(a->kinds);
	if (a->keep)
		smpol_step_state_free(a->keep);
	free(a->keep);
	record_collector_free(a->gather);
	json_object_put(a->handed);
	json_object_put(a->hosts);
	smpol_sampling_free(&a->s);
	sample_tree_free(a->tree);
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

/* The node name as slurmd knows it, else the short host name. */
static void node_name(const struct record_step_in *sp, char *buf, size_t len)
{
	if (sp->node_name && *sp->node_name)
		snprintf(buf, len, "%s", sp->node_name);
	else if (gethostname(buf, len) == 0)
		buf[strcspn(buf, ".")] = '\0';
	else
		snprintf(buf, len, "unknown");
}

/* The collector took children's entries: wake the sampler to hand them on. */
static void entries_arrived(void *arg)
{
	struct record_step *a = arg;

	pthread_mutex_lock(&a->lock);
	a->deliveries_due = true;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
}

/* Who writes: the first node of several, for all; the others hand their entries up
 * the tree (record_gather.h), collecting their children's first; alone: itself. */
static void choose_writer(struct record_step *a)
{
	uint32_t n = a->in.step_nnodes, id = a->in.node_id, subtree;
	char err[SMPOL_ERRLEN];

	if (!gathers(a))
		return;
	subtree = smpol_gather_subtree(id, n);
	if (subtree > 1 && record_collector_start(&a->in.site->host, a->in.job_id, a->step, subtree,
					     id > 0 ? entries_arrived : NULL, a, &a->gather, err, sizeof(err)) < 0)
		slurm_error(MI_LOG "job %u step %s: %s", a->in.job_id, a->step, err);
	if (id > 0 && record_slurm_nth_host(a->in.step_nodelist, smpol_gather_parent(id, n), a->parent,
					  sizeof(a->parent)) < 0)
		a->parent[0] = '\0';
}

int record_step_begin(const struct record_step_in *sp, struct record_step **acctp, char *err, size_t errlen)
{
	struct record_step *a = calloc(1, sizeof(*a));
	pthread_condattr_t attr;
	int span = 1, rc;

	*acctp = NULL;
	if (!a)
		return smpol_fail(err, errlen, ENOMEM, "out of memory starting the placement record");
	a->in = *sp;
	node_name(sp, a->node, sizeof(a->node));
	smpol_step_name(sp->step_id, a->step, sizeof(a->step));
	a->w = (struct record_write){ sp->site, { sp->job_id, sp->run, sp->started }, a->step, sp->step_nnodes };
	for (int i = 0; sp->topo && i < sp->topo->nnodes; i++)
		if (sp->topo->nodes[i].id >= span)
			span = sp->topo->nodes[i].id + 1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&a->wake, &attr);
	pthread_condattr_destroy(&attr);
	a->kinds = calloc((size_t)span, sizeof(*a->kinds));
	if (!a->kinds) {
		record_free(a);
		return smpol_fail(err, errlen, ENOMEM, "out of memory starting the placement record");
	}
	a->nkinds = span;
	for (int i = 0; sp->topo && i < sp->topo->nnodes; i++) {
		const struct smpol_node *n = &sp->topo->nodes[i];

		if (n->has_memory)
			a->kinds[n->id] = smpol_node_kind_name(n->kind);
	}
	if (smpol_sampling_init(&a->s, span, err, errlen) < 0) {
		record_free(a);
		return -ENOMEM;
	}
	a->tree = sample_tree_new(&(struct sample_tree_in){ .pl = sp->pl, .topo = sp->topo, .pmbind = sp->pmbind,
							.pmbind_nr = sp->site->process_mbind_nr, .job_id = sp->job_id,
							.uid = sp->uid, .step = a->step });
	if (!a->tree) {
		record_free(a);
		return smpol_fail(err, errlen, ENOMEM, "out of memory starting placement accounting");
	}
	if (record_slurm_check(sp->site->record, err, errlen) < 0)
		slurm_error(MI_LOG "job %u step %s: placement record: %s", sp->job_id, a->step, err);
	choose_writer(a);
	a->in.step_nodelist = NULL;     /* the caller's buffers */
	a->in.node_name = NULL;
	rc = pthread_create(&a->thread, NULL, sampler, a);
	if (rc) {
		record_free(a);
		return smpol_fail(err, errlen, rc, "cannot start the placement sampler thread: %s; "
				 "the step has no placement record", strerror(rc));
	}
	a->running = true;
	*acctp = a;
	return 0;
}

void record_step_task_begin(struct record_step *a, pid_t pid)
{
	struct task *bigger;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	bigger = smpol_array_room(a->tasks, &a->cap, (size_t)a->ntasks, sizeof(*a->tasks), 16);
	if (!bigger) {
		pthread_mutex_unlock(&a->lock);
		return;         /* this task goes unsampled; the others still count */
	}
	a->tasks = bigger;
	a->tasks[a->ntasks].pid = pid;
	a->tasks[a->ntasks].ended = false;
	/* pinned now, while it surely is the task: the sampler places its mappings later */
	if (!a->in.pl->min_region_kb || a->in.pl->regions_by == SMPOL_REGIONS_NONE ||
	    smpol_task_pin(pid, 0, &a->tasks[a->ntasks].ref, NULL, 0) < 0)
		a->tasks[a->ntasks].ref.pidfd = -1;
#ifdef SYS_pidfd_open
	a->tasks[a->ntasks].pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
	a->tasks[a->ntasks].pidfd = -1;
#endif
	if (a->ntasks++ == 0) {
		clock_gettime(CLOCK_MONOTONIC, &a->first_task);
		pthread_cond_signal(&a->wake);
	}
	pthread_mutex_unlock(&a->lock);
}

/* This node's entry, as the record holds it. */
static int build_entry(struct record_step *a, int ntasks, json_object **entry, char *err, size_t errlen)
{
	const struct smpol_sampling *s = &a->s;
	int nplans;
	const struct smpol_plan *plans = sample_tree_plans(a->tree, &nplans);
	struct smpol_record_node in = {
		.requested = smpol_mode_name(a->in.spec->mode),
		.applied = smpol_applied_mode_name(a->in.spec->mode, a->in.pl->path),
		.path = smpol_kernel_path_name(a->in.pl->path), .sysfs_written = a->in.sysfs_written,
		.plans = plans, .nplans = nplans,
		.policy = s->policy[0] ? s->policy : NULL,
		.ntasks = ntasks, .nsamples = s->n, .last_time = s->time,
		.max_node = s->max_node, .last = s->last, .peak = s->peak,
		.target = s->have_target ? s->expect : NULL,
		.kind = a->in.topo ? a->kinds : NULL, .nkind = a->nkinds,
		.note = a->in.pl->note,
		.regions = s->have_regions ? &s->regions : NULL,
	};

	return smpol_record_entry_build(&in, entry, err, errlen);
}

static long ms_between(const struct timespec *a, const struct timespec *b)
{
	return (long)(b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000;
}

/* Hand entries ({NODE:ENTRY}) to this node's parent: 0, or record_slurm_forward's
 * -ENOENT (no collector there) or -EHOSTUNREACH (its slurmd did not answer), -ENOMEM,
 * -EDESTADDRREQ (no parent known), with err saying which (tries and time included).
 * at_end: the tasks ended, and a young step's parent that has no collector yet is
 * asked again. */
static int forward_entries(struct record_step *a, json_object *entries, bool at_end, char *err, size_t errlen)
{
	char path[128], *msg;
	struct timespec t0, now, refused = { 0 };
	int rc, tries = 0;
	bool young;

	if (!a->parent[0])
		return smpol_fail(err, errlen, EDESTADDRREQ, "no parent node is known for this node");
	rc = smpol_gather_path(&a->in.site->host, a->in.job_id, a->step, path, sizeof(path), err, errlen);
	if (rc < 0)
		return rc;
	msg = smpol_gather_message(a->in.job_id, a->step, entries);
	if (!msg)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	now = t0;
	/* a parent that took entries before had its collector up: it is gone, not late */
	young = at_end && !a->handed && a->ntasks > 0 && ms_between(&a->first_task, &t0) < FORWARD_YOUNG_S * 1000;
	for (;;) {
		tries++;
		rc = record_slurm_forward(a->parent, path, msg, err, errlen);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (rc != -ENOENT || !young)
			break;
		/* counted from the first answer: a busy slurmd may take long to give it */
		if (tries == 1)
			refused = now;
		else if (ms_between(&refused, &now) >= FORWARD_WAIT_MS)
			break;
		usleep(FORWARD_RETRY_MS * 1000);
	}
	if (rc < 0 && tries > 1)
		snprintf(err + strlen(err), errlen - strlen(err), " (%d tries in %ld ms)", tries, ms_between(&t0, &now));
	else if (rc == 0 && tries > 1)
		slurm_info(MI_LOG "job %u step %s: the collector on %s took the entries at try %d, after %ld ms",
			   a->in.job_id, a->step, a->parent, tries, ms_between(&t0, &now));
	free(msg);
	return rc;
}

/* Is entry (this node's own) what its parent last took? */
static bool entry_handed(const struct record_step *a, json_object *entry)
{
	return a->handed && entry && json_object_equal(entry, a->handed);
}

/*
 * The sampler's hand-over (see the top of this file), after a sample or when children's
 * entries came in. A node with children hands on a whole round only: its own new sample
 * and a delivery from each child since it last handed on, so its parent's slurmd forks
 * about once per child and sample. A parent that does not take them (its collector not
 * up yet, or gone) leaves them to the step's end.
 */
static void hand_over(struct record_step *a)
{
	json_object *entry = NULL, *entries = NULL;
	char err[SMPOL_ERRLEN];
	int ntasks, mark = 0, fresh = a->gather ? record_collector_new_deliveries(a->gather) : 0;
	bool complete = true;

	if (!a->parent[0] || a->s.n == 0 || fresh < (int)smpol_gather_children(a->in.node_id, a->in.step_nnodes))
		return;
	pthread_mutex_lock(&a->lock);
	ntasks = a->ntasks;
	pthread_mutex_unlock(&a->lock);
	if (build_entry(a, ntasks, &entry, err, sizeof(err)) < 0 || entry_handed(a, entry)) {
		json_object_put(entry);
		return;
	}
	if (a->gather)
		entries = record_collector_peek(a->gather, a->node, entry, &complete, &mark);
	else if (smpol_record_one_node(a->node, entry, &entries, err, sizeof(err)) < 0)
		entries = NULL;
	if (entries && complete && forward_entries(a, entries, false, err, sizeof(err)) < 0)
		slurm_verbose(MI_LOG "job %u step %s: %s; the step's end hands the entries over", a->in.job_id,
			      a->step, err);
	else if (entries && complete) {
		json_object_put(a->handed);
		a->handed = json_object_get(entry);
		if (a->gather)
			record_collector_handed_on(a->gather, mark);
	}
	json_object_put(entries);
	json_object_put(entry);
}

/*
 * At its end, whether a node but the first writes entries (its own and its subtree's)
 * itself: when its parent does not take what it does not hold yet. Its parent holding
 * them all (nothing_new), it sends nothing, unless a task was killed: the job may have
 * lost a node, the parent's perhaps, with the entries it held. It offers them again
 * then, and writes them when the parent's slurmd does not answer (no collector there
 * means the collector took them and is done).
 */
static bool must_write(struct record_step *a, json_object *entries, bool nothing_new)
{
	char err[SMPOL_ERRLEN];
	int rc, n = json_object_object_length(entries);
	bool killed;

	pthread_mutex_lock(&a->lock);
	killed = a->killed;
	pthread_mutex_unlock(&a->lock);
	if (nothing_new && !killed)
		return false;
	rc = forward_entries(a, entries, true, err, sizeof(err));
	if (rc == 0 || (nothing_new && rc != -EHOSTUNREACH))
		return false;
	slurm_info(MI_LOG "job %u step %s: %s; this node writes its %d entr%s itself", a->in.job_id, a->step, err, n,
		   n == 1 ? "y" : "ies");
	return true;
}

/* The step's nodes whose entries this writer does not have go into entries as
 * {NODE:null}: the record names them (record_missing.h). */
static void name_missing(const struct record_step *a, json_object *entries)
{
	char names[256] = "";
	int n = 0;

	for (size_t i = 0; a->hosts && i < json_object_array_length(a->hosts); i++) {
		const char *host = json_object_get_string(json_object_array_get_idx(a->hosts, i));

		if (!json_object_object_get_ex(entries, host, NULL)) {
			json_object_object_add(entries, host, NULL);
			if (n++ < 8)
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", n > 1 ? "," : "",
					 host);
		}
	}
	if (n)
		slurm_info(MI_LOG "job %u step %s: no entry from %d node(s) of the step (%s%s); the record names "
			   "them missing", a->in.job_id, a->step, n, names, n > 8 ? ",..." : "");
}

/*
 * Tell the sampler to stop. It leaves the sums (a->s, a->tree) alone from then on
 * unless it is taking a sample, and then it is joined; so is a sampler that may be
 * handing entries up the tree (a step of several nodes with a record), or any when
 * must_join. Otherwise it ends by itself and is joined at the step's end: the join
 * (mostly the thread's wake-up) stays off the step's way to srun.
 */
static void stop_sampler(struct record_step *a, bool must_join)
{
	bool busy = gathers(a);

	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->wake);
	busy |= a->sampling;
	pthread_mutex_unlock(&a->lock);
	if (a->running && (busy || must_join)) {
		pthread_join(a->thread, NULL);
		a->running = false;
	}
}

/* Stop the sampler and hand over the record, once. */
static void finish(struct record_step *a)
{
	json_object *entry = NULL, *entries;
	char err[SMPOL_ERRLEN], how[160] = "by this node";
	struct record_collector_end end = { 0 };
	bool collects_all, nothing_new, write = false;

	if (a->written)
		return;
	a->written = true;
	stop_sampler(a, false);
	if (a->in.site->record == SMPOL_RECORD_NONE)
		return;

	if (build_entry(a, a->ntasks, &entry, err, sizeof(err)) < 0) {
		slurm_error(MI_LOG "job %u step %s: placement record: %s", a->in.job_id, a->step, err);
		entry = NULL;   /* a collector still hands on the others' entries */
	}
	if (a->gather) {
		uint32_t depth = smpol_gather_depth(a->in.node_id, a->in.step_nnodes);
		int wait_ms = GATHER_WAIT_MS / (int)(depth + 1);
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		entries = record_collector_finish(a->gather, a->node, entry, wait_ms, &end);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (end.missing)
			slurm_info(MI_LOG "job %u step %s: %d node(s) did not hand over their entries in %d ms; "
				   "they write them themselves", a->in.job_id, a->step, end.missing, wait_ms);
		/* how many came while the tasks ran, and how long the end waited for the rest */
		if (a->in.node_id == 0)
			snprintf(how, sizeof(how), "by the step's collector (%d of the others' entries in before its "
				 "end, then %ld ms waiting for the rest, %d deliveries)",
				 end.early, ms_between(&t0, &t1), end.deliveries);
	} else if (!entry || smpol_record_one_node(a->node, entry, &entries, err, sizeof(err)) < 0) {
		if (entry)
			slurm_error(MI_LOG "job %u step %s: placement record: %s", a->in.job_id, a->step, err);
		entries = NULL;
	}
	/* the first node writes; the others hand up what their parent does not hold yet, and
	 * write only what was not taken (a node that missed its collector writes too: then
	 * confirm like it does) */
	collects_all = a->gather && a->in.node_id == 0;
	nothing_new = entry_handed(a, entry) && end.new_deliveries == 0;
	if (entries && json_object_object_length(entries) > 0)
		write = a->in.node_id == 0 || must_write(a, entries, nothing_new);
	if (write) {
		bool sole = collects_all && end.missing == 0, killed, listening;

		pthread_mutex_lock(&a->lock);
		killed = a->killed;
		listening = a->courier_listens;
		pthread_mutex_unlock(&a->lock);
		name_missing(a, entries);
		/* the courier confirms with one read: only for a step's only writer; others
		 * race the nodes that write for themselves, and confirm as they do. A step
		 * whose tasks were killed (its job is ending: cancelled, timed out, requeued)
		 * writes at once: slurmdbd may have a requeued job's next run by the time
		 * the courier writes, and then cannot tell the step's run's row */
		if (killed || !((sole || a->in.step_nnodes <= 1) &&
				record_write_to_courier(&a->w, entries, listening, how)))
			a->spooled = record_write_entries(&a->w, entries, sole, how);
	}
	json_object_put(entries);
	json_object_put(entry);
}

void record_step_task_end(struct record_step *a, pid_t pid, bool killed)
{
	bool last = false;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	for (int i = 0; i < a->ntasks; i++) {
		if (a->tasks[i].pid == pid && !a->tasks[i].ended) {
			a->tasks[i].ended = true;
			a->killed |= killed;
			last = ++a->ended == a->ntasks;
			break;
		}
	}
	pthread_mutex_unlock(&a->lock);
	/* slurmstepd tells srun that the tasks exited only after this returns, so the
	 * job is still running and slurmctld still takes the update */
	if (last)
		finish(a);
}

bool record_step_keep(struct record_step *a, struct smpol_step_state *kept)
{
	/* post-fork callbacks run before any task can end: the thread still runs */
	if (!a || !a->running)
		return false;
	pthread_mutex_lock(&a->lock);
	a->keep = kept;
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->lock);
	return true;
}

void record_step_end(struct record_step **ap)
{
	struct record_step *a = *ap;
	char err[SMPOL_ERRLEN];

	if (!a)
		return;
	finish(a);
	stop_sampler(a, true);
	/* slurmstepd cannot report the step complete to an absent slurmctld either */
	if (a->spooled)
		record_write_retry_own(&a->w);
	if (a->in.site->prometheus_dir[0] &&
	    smpol_prom_remove(a->in.site->prometheus_dir, a->in.job_id, a->step, err, sizeof(err)) < 0)
		slurm_error(MI_LOG "job %u step %s: metrics: %s", a->in.job_id, a->step, err);
	record_free(a);
	*ap = NULL;
}
