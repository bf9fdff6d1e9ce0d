/* accounting.c - slurmstepd (root): sample where the step's memory lands while its
 * tasks live, and merge the placement record into the job's AdminComment at the end.
 *
 * One sampler thread per step: it sleeps until the first task starts, samples about
 * FIRST_SAMPLE_S later (so short jobs get a sample too), then every sample_interval
 * seconds until the step ends. Tasks are held by pidfd, so a task that exited is
 * skipped and a recycled PID is never sampled.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "accounting.h"
#include "apply.h"
#include "numa_maps.h"
#include "plugin.h"
#include "record.h"
#include "record_store.h"
#include "statedir.h"

/*
 * Slurm's client API, resolved at load time from the libslurmfull that slurmstepd
 * itself runs on; the plugin never links libslurm. Weak, so that a process without
 * it (none known) still loads the plugin and only the record is lost. Chosen over
 * running scontrol: one read and write took 7 ms against 14 ms for `scontrol show
 * job` + `scontrol update` on the test cluster, with no fork from slurmstepd, no
 * PATH to trust and no parsing of scontrol's text to read the comment back.
 * (sacctmgr, the only writer once the job has ended, turns '"' into '`' and so cannot
 * carry JSON: the record must be written while the job runs, see accounting_task_end.)
 */
#pragma weak slurm_load_job
#pragma weak slurm_free_job_info_msg
#pragma weak slurm_init_job_desc_msg
#pragma weak slurm_update_job
#pragma weak slurm_strerror

#define FIRST_SAMPLE_S 1
/* processes followed per task (the task and its descendants) */
#define TREE_MAX 256
/* reads of AdminComment before giving up on confirming the record */
#define STORE_ATTEMPTS 10

struct task {
	pid_t pid;
	int pidfd;              /* -1 when pidfd_open is not available */
	bool ended;             /* reported by accounting_task_end */
};

struct sample {
	int n;                  /* samples taken */
	int64_t time;           /* Unix time of the last one */
	int max_node;
	uint64_t last[SMPOL_MAX_NODES];
	uint64_t peak[SMPOL_MAX_NODES];
	double expect[SMPOL_MAX_NODES];   /* target pages at the last sample */
	bool have_target;
	char policy[64];        /* the policy of the task holding most memory */
};

static struct {
	bool begun;
	uint32_t job_id, step_id;
	char node[256];
	const char *requested, *applied;
	enum smpol_kernel_path path;
	bool sysfs_written;
	struct smpol_plan *plans;
	int nplans;
	char note[SMPOL_ERRLEN];
	const char *kind[SMPOL_MAX_NODES];
	bool have_kind;
	unsigned interval;
	uint32_t job_nnodes;
	struct smpol_host host;

	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stop;
	struct task *tasks;
	int ntasks, cap;
	int ended;              /* tasks of tasks[] that ended */
	bool written;           /* the record was stored (or tried) */
	struct timespec first_task;     /* CLOCK_MONOTONIC */
	struct sample s;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The share of each plan node a task on that plan should get: its weights as the
 * kernel applies them (plain interleave: equal). */
static double plan_share(const struct smpol_plan *p, int j, enum smpol_kernel_path path)
{
	if (path == SMPOL_PATH_INTERLEAVE || p->weight_sum == 0)
		return 1.0 / p->nnodes;
	return (double)p->weights[j] / p->weight_sum;
}

/* The plan whose node set is the one in the task's policy, or NULL. */
static const struct smpol_plan *plan_of_policy(const char *policy)
{
	struct smpol_bitmap seen, nodes;

	if (smpol_numa_policy_nodes(policy, &seen) < 0)
		return NULL;
	for (int i = 0; i < st.nplans; i++) {
		smpol_bitmap_clear(&nodes);
		for (int j = 0; j < st.plans[i].nnodes; j++)
			smpol_bitmap_set(&nodes, st.plans[i].nodes[j]);
		if (smpol_bitmap_equal(&nodes, &seen))
			return &st.plans[i];
	}
	return NULL;
}

static bool task_exited(const struct task *t)
{
	struct pollfd p = { .fd = t->pidfd, .events = POLLIN };

	/* a pidfd turns readable when its process exits */
	return t->pidfd >= 0 && poll(&p, 1, 0) > 0;
}

/* One sample of every live task (outside the lock: reading numa_maps takes time). */
static void take_sample(struct task *tasks, int ntasks, struct smpol_numa_usage *u, struct sample *s)
{
	uint64_t total[SMPOL_MAX_NODES] = { 0 }, most = 0;
	double expect[SMPOL_MAX_NODES] = { 0 };
	int max_node = -1, sampled = 0, matched = 0;
	char policy[64] = "";

	for (int i = 0; i < ntasks; i++) {
		const struct smpol_plan *plan;
		char err[SMPOL_ERRLEN];
		uint64_t pages;

		if (task_exited(&tasks[i]))
			continue;
		smpol_numa_usage_init(u);
		/* ENOENT/ESRCH: it exited meanwhile; anything else: skip it this time */
		if (smpol_numa_maps_read_tree(NULL, tasks[i].pid, TREE_MAX, u, err, sizeof(err)) < 0)
			continue;
		sampled++;
		pages = smpol_numa_usage_anon_total(u);
		for (int n = 0; n <= u->max_node; n++)
			total[n] += u->anon[n];
		if (u->max_node > max_node)
			max_node = u->max_node;
		if (u->npolicies == 0)
			continue;
		if (pages >= most) {
			most = pages;
			snprintf(policy, sizeof(policy), "%s", u->policies[0].policy);
		}
		plan = plan_of_policy(u->policies[0].policy);
		if (!plan)
			continue;
		matched++;
		for (int j = 0; j < plan->nnodes; j++) {
			expect[plan->nodes[j]] += (double)pages * plan_share(plan, j, st.path);
			if (plan->nodes[j] > max_node)
				max_node = plan->nodes[j];
		}
	}
	if (!sampled)
		return;
	s->n++;
	s->time = (int64_t)time(NULL);
	if (max_node > s->max_node)
		s->max_node = max_node;
	for (int n = 0; n <= s->max_node; n++) {
		s->last[n] = total[n];
		if (total[n] > s->peak[n])
			s->peak[n] = total[n];
		s->expect[n] = expect[n];
	}
	s->have_target = matched > 0;
	snprintf(s->policy, sizeof(s->policy), "%s", policy);
}

static void *sampler(void *arg)
{
	struct smpol_numa_usage *u = malloc(sizeof(*u));
	struct timespec next = { 0 };
	struct sample *s = malloc(sizeof(*s));

	(void)arg;
	if (!u || !s) {
		free(u);
		free(s);
		return NULL;
	}
	pthread_mutex_lock(&st.lock);
	while (!st.stop) {
		struct task *copy;
		int n, rc = 0;

		if (st.ntasks == 0) {
			pthread_cond_wait(&st.wake, &st.lock);
			continue;
		}
		if (st.s.n == 0 && next.tv_sec == 0) {
			next = st.first_task;
			next.tv_sec += FIRST_SAMPLE_S;
		}
		while (!st.stop && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&st.wake, &st.lock, &next);
		if (st.stop)
			break;
		n = st.ntasks;
		copy = malloc(sizeof(*copy) * (size_t)n);
		if (copy)
			memcpy(copy, st.tasks, sizeof(*copy) * (size_t)n);
		*s = st.s;
		pthread_mutex_unlock(&st.lock);
		if (copy)
			take_sample(copy, n, u, s);
		free(copy);
		pthread_mutex_lock(&st.lock);
		st.s = *s;
		if (st.interval == 0) {
			/* one sample only: wait for the end */
			while (!st.stop)
				pthread_cond_wait(&st.wake, &st.lock);
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &next);
		next.tv_sec += st.interval;
	}
	pthread_mutex_unlock(&st.lock);
	free(u);
	free(s);
	return NULL;
}

static void clear_state(void)
{
	for (int i = 0; i < st.ntasks; i++)
		if (st.tasks[i].pidfd >= 0)
			close(st.tasks[i].pidfd);
	free(st.tasks);
	free(st.plans);
	st.tasks = NULL;
	st.plans = NULL;
	st.ntasks = st.cap = st.nplans = st.ended = 0;
	st.begun = st.running = st.stop = st.written = false;
}

int accounting_step_begin(const struct step_placement *sp, char *err, size_t errlen)
{
	pthread_condattr_t attr;
	int rc;

	if (st.begun)
		return smpol_fail(err, errlen, EALREADY, "placement accounting was already started for this step");
	st.job_id = sp->job_id;
	st.step_id = sp->step_id;
	if (sp->node_name && *sp->node_name)
		snprintf(st.node, sizeof(st.node), "%s", sp->node_name);
	else if (gethostname(st.node, sizeof(st.node)) == 0)
		st.node[strcspn(st.node, ".")] = '\0';
	else
		snprintf(st.node, sizeof(st.node), "unknown");
	st.requested = smpol_mode_name(sp->spec->mode);
	st.path = sp->pl->path;
	st.applied = smpol_applied_mode_name(sp->spec->mode, sp->pl->path);
	st.sysfs_written = sp->sysfs_written;
	snprintf(st.note, sizeof(st.note), "%s", sp->pl->note);
	st.interval = sp->sample_interval;
	st.job_nnodes = sp->job_nnodes;
	st.host = *sp->host;
	st.nplans = 0;
	st.plans = malloc(sizeof(*st.plans) * (size_t)(sp->pl->nplans > 0 ? sp->pl->nplans : 1));
	if (!st.plans)
		return smpol_fail(err, errlen, ENOMEM, "out of memory starting placement accounting");
	memcpy(st.plans, sp->pl->plans, sizeof(*st.plans) * (size_t)sp->pl->nplans);
	st.nplans = sp->pl->nplans;
	st.have_kind = sp->topo != NULL;
	memset(st.kind, 0, sizeof(st.kind));
	for (int i = 0; sp->topo && i < sp->topo->nnodes; i++) {
		const struct smpol_node *n = &sp->topo->nodes[i];

		if (n->has_memory && n->id < SMPOL_MAX_NODES)
			st.kind[n->id] = smpol_node_kind_name(n->kind);   /* static strings */
	}
	memset(&st.s, 0, sizeof(st.s));
	st.s.max_node = -1;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&st.wake, &attr);
	pthread_condattr_destroy(&attr);
	st.stop = false;
	rc = pthread_create(&st.thread, NULL, sampler, NULL);
	if (rc) {
		free(st.plans);
		st.plans = NULL;
		return smpol_fail(err, errlen, rc, "cannot start the placement sampler thread: %s; "
				 "the record will have no page counts", strerror(rc));
	}
	st.running = true;
	st.begun = true;
	return 0;
}

void accounting_task_begin(pid_t pid)
{
	if (!st.begun)
		return;
	pthread_mutex_lock(&st.lock);
	if (st.ntasks == st.cap) {
		int cap = st.cap ? st.cap * 2 : 16;
		struct task *bigger = realloc(st.tasks, sizeof(*bigger) * (size_t)cap);

		if (!bigger) {
			pthread_mutex_unlock(&st.lock);
			return;         /* this task goes unsampled; the others still count */
		}
		st.tasks = bigger;
		st.cap = cap;
	}
	st.tasks[st.ntasks].pid = pid;
	st.tasks[st.ntasks].ended = false;
#ifdef SYS_pidfd_open
	st.tasks[st.ntasks].pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
	st.tasks[st.ntasks].pidfd = -1;
#endif
	if (st.ntasks++ == 0) {
		clock_gettime(CLOCK_MONOTONIC, &st.first_task);
		pthread_cond_signal(&st.wake);
	}
	pthread_mutex_unlock(&st.lock);
}

/* The step as the record names it. */
static void step_key(uint32_t step_id, char *buf, size_t len)
{
	if (step_id == SLURM_BATCH_SCRIPT)
		snprintf(buf, len, "batch");
	else if (step_id == SLURM_EXTERN_CONT)
		snprintf(buf, len, "extern");
	else if (step_id == SLURM_INTERACTIVE_STEP)
		snprintf(buf, len, "interactive");
	else
		snprintf(buf, len, "%u", step_id);
}

static int slurm_fail(char *err, size_t errlen, const char *what)
{
	int e = errno;          /* set by Slurm's API (slurm_get_errno, gone in 24.11, only read it) */

	return smpol_fail(err, errlen, EIO, "%s job %u: %s", what, st.job_id,
			 e && slurm_strerror ? slurm_strerror(e) : "error");
}

static int comment_read(void *ctx, char **comment, char *err, size_t errlen)
{
	job_info_msg_t *msg = NULL;
	const char *text = NULL;

	(void)ctx;
	if (slurm_load_job(&msg, st.job_id, SHOW_DETAIL) != SLURM_SUCCESS)
		return slurm_fail(err, errlen, "cannot read AdminComment of");
	if (msg->record_count > 0)
		text = msg->job_array[0].admin_comment;
	*comment = strdup(text ? text : "");
	slurm_free_job_info_msg(msg);
	return *comment ? 0 : smpol_fail(err, errlen, ENOMEM, "out of memory reading AdminComment");
}

static int comment_write(void *ctx, const char *comment, char *err, size_t errlen)
{
	job_desc_msg_t desc;

	(void)ctx;
	slurm_init_job_desc_msg(&desc);
	desc.job_id = st.job_id;
	desc.admin_comment = (char *)comment;
	if (slurm_update_job(&desc) != SLURM_SUCCESS)
		return slurm_fail(err, errlen, "cannot set AdminComment of");
	return 0;
}

static void no_pause(void *ctx, int attempt)
{
	(void)ctx;
	(void)attempt;
}

/*
 * A one-node job's writers are the steps on this node, so a node-wide flock makes
 * them take turns and the confirming reads need no pause (which would add about
 * 0.3 s to every step). Returns the lock's fd, or -1 when writers on other nodes are
 * possible or the lock cannot be had (then the pauses guard the record).
 */
static int lock_local_writers(void)
{
	int fd;

	if (st.job_nnodes != 1 ||
	    smpol_statedir_lock(&st.host, "record.lock", true, LOCK_EX, &fd, NULL, 0) < 0)
		return -1;
	return fd;
}

static int write_record(json_object *entry, char *err, size_t errlen)
{
	struct smpol_comment_store store = { comment_read, comment_write, NULL, NULL };
	struct smpol_store_result res;
	struct timespec t0, t1;
	char step[16];
	int rc, lock_fd;

	if (!slurm_load_job || !slurm_update_job || !slurm_init_job_desc_msg || !slurm_free_job_info_msg)
		return smpol_fail(err, errlen, ENOSYS, "this process has no Slurm API to write AdminComment with");
	step_key(st.step_id, step, sizeof(step));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	lock_fd = lock_local_writers();
	if (lock_fd >= 0)
		store.pause = no_pause;
	rc = smpol_record_store(&store, step, st.node, entry, SMPOL_RECORD_BUDGET, STORE_ATTEMPTS,
			       &res, err, errlen);
	if (lock_fd >= 0)
		close(lock_fd);     /* drops the flock */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	slurm_info(MI_LOG "job %u step %s: placement record %s in %.0f ms (%d reads, %d writes, %d lost to other writers)",
		   st.job_id, step, rc == 0 ? "stored" : "NOT confirmed",
		   (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
		   res.reads, res.writes, res.losses);
	return rc;
}

/* Stop the sampler and write the record, once. */
static void finish(void)
{
	struct smpol_record_node in;
	double target[SMPOL_MAX_NODES];
	json_object *entry = NULL;
	char err[SMPOL_ERRLEN];
	int rc;

	if (st.written)
		return;
	st.written = true;
	pthread_mutex_lock(&st.lock);
	st.stop = true;
	pthread_cond_signal(&st.wake);
	pthread_mutex_unlock(&st.lock);
	if (st.running)
		pthread_join(st.thread, NULL);
	st.running = false;

	for (int n = 0; n <= st.s.max_node; n++)
		target[n] = st.s.expect[n];
	in = (struct smpol_record_node){
		.requested = st.requested, .applied = st.applied,
		.path = smpol_kernel_path_name(st.path), .sysfs_written = st.sysfs_written,
		.plans = st.plans, .nplans = st.nplans,
		.policy = st.s.policy[0] ? st.s.policy : NULL,
		.ntasks = st.ntasks, .nsamples = st.s.n, .last_time = st.s.time,
		.max_node = st.s.max_node, .last = st.s.last, .peak = st.s.peak,
		.target = st.s.have_target ? target : NULL,
		.kind = st.have_kind ? st.kind : NULL,
		.note = st.note[0] ? st.note : NULL,
	};
	rc = smpol_record_entry_build(&in, &entry, err, sizeof(err));
	if (rc == 0)
		rc = write_record(entry, err, sizeof(err));
	if (rc < 0)
		slurm_error(MI_LOG "job %u step %u: placement record: %s", st.job_id, st.step_id, err);
	json_object_put(entry);
}

void accounting_task_end(pid_t pid)
{
	bool last = false;

	if (!st.begun)
		return;
	pthread_mutex_lock(&st.lock);
	for (int i = 0; i < st.ntasks; i++) {
		if (st.tasks[i].pid == pid && !st.tasks[i].ended) {
			st.tasks[i].ended = true;
			last = ++st.ended == st.ntasks;
			break;
		}
	}
	pthread_mutex_unlock(&st.lock);
	/* slurmstepd tells srun that the tasks exited only after this returns, so the
	 * job is still running and slurmctld still takes the update */
	if (last)
		finish();
}

void accounting_step_end(void)
{
	if (!st.begun)
		return;
	finish();
	pthread_cond_destroy(&st.wake);
	clear_state();
}
