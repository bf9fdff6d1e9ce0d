/* record_write.c - slurmstepd (root): this node's writes of placement records (see
 * record_write.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "courier_lock.h"
#include "mi_log.h"
#include "record_ended.h"
#include "record_recheck.h"
#include "record_slurm.h"
#include "record_spool.h"
#include "record_write.h"
#include "step_ids.h"
#include "statedir.h"

/* A step whose record went to the spool because slurmctld did not answer tries again
 * this often, for this long, at its end; later, the node's next steps deliver it. */
#define SPOOL_RETRY_S 2
#define SPOOL_RETRY_FOR_S 180
/* Spooled records of other steps one step start delivers, at most (with no courier). */
#define SPOOL_DELIVER_MAX 8
/* A step hands its record to the courier while the spool holds fewer: more means the
 * courier cannot deliver (an outage), and the step writes and retries itself, as it
 * does with no courier, rather than have the oldest records dropped. Room for a
 * second of a fast workflow's steps, which wait there for their job's pace
 * (RECORD_PACE_MS), and for the other jobs of the node. */
#define HAND_OVER_SPOOL_MAX 128

/*
 * A node's writers (steps of its jobs, a collector) take turns under a node-wide
 * flock, so that steps on one node never race each other. Returns the lock's fd, or
 * -1 when it cannot be had (then the confirming reads guard the record).
 */
static int lock_node_writers(const struct record_write *w)
{
	char err[SMPOL_ERRLEN];
	int fd;

	if (smpol_statedir_lock(&w->site->host, "record.lock", true, LOCK_EX, &fd, err, sizeof(err)) < 0) {
		/* never held up by it: the confirming reads guard the record instead */
		slurm_info(MI_LOG "%s; the record is written without it", err);
		return -1;
	}
	return fd;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Whether jobstats may yet put its summary over the record in AdminComment: slurm.conf
 * names an EpilogSlurmctld (jobstats' is one). Only slurmd can tell: the configuration
 * slurmd hands slurmstepd leaves EpilogSlurmctld out (22.05 to 26.05). */
static bool jobstats_may_follow(const struct record_write *w)
{
	return w->site->record == SMPOL_RECORD_ADMIN_COMMENT && record_slurm_ctld_epilog();
}

/* Keep a copy of the run's whole record, just written, to look at again after the
 * run's end (record_recheck.h): jobstats may put its summary over it in AdminComment
 * (slurmd's courier, which can read EpilogSlurmctld, decides whether to look more than
 * once), and in a job of several nodes a writer on another node may have dropped our
 * entries (record_merge_back.h). */
static void keep_for_recheck(const struct record_write *w, const struct smpol_record_run *run,
			     const struct smpol_store_result *res)
{
	char err[SMPOL_ERRLEN];
	bool in_admin_comment = w->site->record == SMPOL_RECORD_ADMIN_COMMENT && !res->beside_jobstats;

	if (!res->record || !(res->job_nodes > 1 || in_admin_comment))
		return;
	if (smpol_recheck_put(&w->site->host, run, res->record, (int64_t)time(NULL) + SMPOL_RECHECK_FIRST_S,
			      err, sizeof(err)) < 0)
		slurm_error(MI_LOG "job %u: the placement record is not looked at again after the job's end (%s): "
			    "a jobstats summary written after it, or another node's write, may replace it", run->job,
			    err);
}

/* Store steps ({STEP:{NODE:ENTRY}}) of run into the record field, under the node lock,
 * and keep the copy to look at again. 0 or -errno (record_slurm_store's); *through as
 * it says. */
static int store_steps(const struct record_write *w, const struct smpol_record_run *run, json_object *steps,
		       bool sole_writer, struct smpol_store_result *res, const char **through, char *err,
		       size_t errlen)
{
	struct smpol_store_result local = { 0 };
	int rc, lock_fd = lock_node_writers(w);
	/* under the node lock, the steps of a one-node step's job all take turns here;
	 * without it, this node's other steps may race even a step's only writer */
	bool sole = sole_writer && lock_fd >= 0;

	/* the only writer reads its write back at once; others pause between reads so a
	 * racing writer of another node has written by then */
	rc = record_slurm_store(w->site->record, w->site->dbd_client, run, steps, sole,
			      !sole && (lock_fd < 0 || w->step_nnodes > 1), &local, through, err, errlen);
	/* under the lock: the node's later write of the run keeps the later copy */
	if (rc == 0)
		keep_for_recheck(w, run, &local);
	if (lock_fd >= 0)
		close(lock_fd);     /* drops the flock */
	json_object_put(local.record);
	local.record = NULL;
	if (res)
		*res = local;
	return rc;
}

/* Whether slurmd's courier listens with the step's settings (courier_lock.h): slurmd
 * reads plugstack.conf at its start, slurmstepd at each step's, and a courier with
 * other settings would write the record where the step would not. */
static bool courier_listens(const struct smpol_site_config *site)
{
	return smpol_courier_probe(site, NULL, 0) == SMPOL_COURIER_LISTENS;
}

/* Say that job's record, `what` ("step S: placement record of N node(s)"), waits in
 * the spool because of err. */
static void say_kept(const struct record_write *w, uint32_t job, const char *what, const char *err, int dropped)
{
	slurm_error(MI_LOG "job %u %s kept in %s/spool until slurmctld or slurmdbd answers (%s)%s", job, what,
		    w->site->host.statedir, err, dropped ? "; the oldest spooled records were dropped" : "");
}

/* Move spooled record name, which slurmctld and slurmdbd answer for but will never
 * take (or which is damaged), out of the way of deliveries, for the admin. */
static void set_aside(const struct record_write *w, const char *name, const char *err)
{
	slurm_error(MI_LOG "spooled placement record %s cannot be delivered: %s; moved aside as "
		    "%s/spool/%s.json.undelivered", name, err, w->site->host.statedir, name);
	smpol_spool_set_aside(&w->site->host, name, NULL, 0);
}

bool record_write_entries(const struct record_write *w, json_object *entries, bool sole_writer, const char *how)
{
	struct smpol_store_result res = { 0 };
	struct timespec t0;
	char err[SMPOL_ERRLEN], serr[SMPOL_ERRLEN], what[96];
	const char *through = "";
	json_object *steps;
	int rc, dropped;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = smpol_record_one_step(w->step, entries, &steps, err, sizeof(err));
	if (rc == 0)
		rc = store_steps(w, &w->run, steps, sole_writer, &res, &through, err, sizeof(err));
	json_object_put(steps);
	if (rc == 0) {
		slurm_info(MI_LOG "job %u step %s: placement record of %d node(s) written %s%s in %.0f ms "
			   "(%d reads, %d writes, %d lost to other writers)", w->run.job, w->step,
			   json_object_object_length(entries), how, through, ms_since(&t0), res.reads, res.writes,
			   res.losses);
		return false;
	}
	if (rc != -ECONNREFUSED) {
		slurm_error(MI_LOG "job %u step %s: placement record of %d node(s) NOT written (%s): %s",
			    w->run.job, w->step, json_object_object_length(entries), how, err);
		return false;
	}
	if (smpol_spool_put(&w->site->host, &w->run, w->step, entries, SMPOL_STATEDIR_DURABLE, &dropped, serr,
			    sizeof(serr)) < 0) {
		slurm_error(MI_LOG "job %u step %s: placement record NOT written (%s) and NOT spooled (%s)",
			    w->run.job, w->step, err, serr);
		return false;
	}
	snprintf(what, sizeof(what), "step %s: placement record of %d node(s)", w->step,
		 json_object_object_length(entries));
	say_kept(w, w->run.job, what, err, dropped);
	/* a job that has ended waits for nothing: holding its step for retries would keep
	 * the job completing and the node from its next job; the node's next steps deliver */
	return !*through;
}

bool record_write_to_courier(const struct record_write *w, json_object *entries, bool listening, const char *how)
{
	char err[SMPOL_ERRLEN];
	int n = 0, dropped;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* one that stopped since the step's start delivers the spool when it starts again,
	 * or else the node's next step does (record_write_deliver_others) */
	if (!(listening || courier_listens(w->site)) || smpol_spool_count(&w->site->host, &n, NULL, 0) < 0 ||
	    n >= HAND_OVER_SPOOL_MAX)
		return false;
	/* no fsync: the courier takes it within a second, and the kernel writes it back
	 * within seconds; on the step's way to srun (doc/design-notes.md) */
	if (smpol_spool_put(&w->site->host, &w->run, w->step, entries, SMPOL_STATEDIR_VOLATILE, &dropped, err,
			    sizeof(err)) < 0) {
		slurm_info(MI_LOG "job %u step %s: %s; the step writes its placement record itself", w->run.job,
			   w->step, err);
		return false;
	}
	slurm_info(MI_LOG "job %u step %s: placement record of %d node(s) handed to the node's courier %s in "
		   "%.1f ms", w->run.job, w->step, json_object_object_length(entries), how, ms_since(&t0));
	return true;
}

/* Spooled records of one run of a job, delivered in one store. */
struct spooled_run {
	struct smpol_record_run run;    /* started: its first step's */
	json_object *steps;             /* {STEP:{NODE:ENTRY}}, oldest first */
	const char **names;             /* their spool names, in the same order */
	int n;
	size_t cap;                     /* room in names */
	int nodes;                      /* node entries in all */
};

static void spooled_runs_free(struct spooled_run *runs, int nruns)
{
	for (int i = 0; i < nruns; i++) {
		json_object_put(runs[i].steps);
		free(runs[i].names);
	}
	free(runs);
}

/* Add spooled record name to its run's group in runs (room for one more group). 0,
 * -ENOENT when it is gone (delivered meanwhile), or the spool's error for a damaged
 * record. */
static int spooled_add(const struct record_write *w, const char *name, struct spooled_run *runs, int *nruns,
		       char *err, size_t errlen)
{
	struct smpol_record_run run;
	struct spooled_run *g = NULL;
	json_object *entries = NULL;
	const char **names;
	char step[32];
	int rc = smpol_spool_get(&w->site->host, name, &run, step, sizeof(step), &entries, err, errlen);

	if (rc < 0)
		return rc;
	for (int i = 0; i < *nruns && !g; i++)
		if (runs[i].run.job == run.job && runs[i].run.run == run.run)
			g = &runs[i];
	if (!g) {
		g = &runs[(*nruns)++];
		*g = (struct spooled_run){ .run = run, .steps = json_object_new_object() };
	}
	names = smpol_array_room(g->names, &g->cap, (size_t)g->n, sizeof(*names), 8);
	if (names)
		g->names = names;
	if (!g->steps || !names || json_object_object_add(g->steps, step, entries) < 0) {
		json_object_put(entries);
		return smpol_fail(err, errlen, ENOMEM, "out of memory reading the spool");
	}
	/* the run's row in accounting is the one running when its first step started */
	if (run.started > 0 && (g->run.started <= 0 || run.started < g->run.started))
		g->run.started = run.started;
	g->names[g->n++] = name;
	g->nodes += json_object_object_length(entries);
	return 0;
}

/* "step S: placement record of N node(s)", or for several steps "steps S1,S2-S5:
 * placement records of K steps, N node entries", into buf. */
static void group_said(const struct spooled_run *g, char *buf, size_t len)
{
	struct smpol_step_ids ids;
	char *list = NULL;

	if (g->n == 1) {
		json_object_object_foreach(g->steps, step, entries) {
			(void)entries;
			snprintf(buf, len, "step %s: placement record of %d node(s)", step, g->nodes);
		}
		return;
	}
	smpol_step_ids_init(&ids);
	json_object_object_foreach(g->steps, step, entries) {
		(void)entries;
		smpol_step_ids_add(&ids, step, NULL, 0);
	}
	list = smpol_step_ids_format(&ids);
	snprintf(buf, len, "steps %s: placement records of %d steps, %d node entries", list ? list : "?", g->n,
		 g->nodes);
	free(list);
	smpol_step_ids_free(&ids);
}

static int deliver_group(const struct record_write *w, struct spooled_run *g, bool say);

/* Deliver each step of g on its own: one step the store refuses for good (damaged, its
 * run's row not to be told) must not hold the others back. */
static int deliver_each(const struct record_write *w, struct spooled_run *g, bool say)
{
	int i = 0, rc = 0;

	json_object_object_foreach(g->steps, step, entries) {
		const char *name = g->names[i++];
		struct spooled_run one = { .run = g->run, .names = &name, .n = 1,
					   .nodes = json_object_object_length(entries) };

		if (rc == -ECONNREFUSED)
			continue;
		if (smpol_record_one_step(step, entries, &one.steps, NULL, 0) == 0)
			rc = deliver_group(w, &one, say);
		json_object_put(one.steps);
	}
	return rc == -ECONNREFUSED ? rc : 0;
}

/* Deliver g's records in one store. say: log a refusal (slurmctld or slurmdbd away). 0
 * delivered (or set aside), -ECONNREFUSED when neither answered. */
static int deliver_group(const struct record_write *w, struct spooled_run *g, bool say)
{
	char err[SMPOL_ERRLEN], what[256];
	struct smpol_store_result res = { 0 };
	const char *through = "";
	struct timespec t0;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = store_steps(w, &g->run, g->steps, true, &res, &through, err, sizeof(err));
	group_said(g, what, sizeof(what));
	if (rc == 0) {
		for (int i = 0; i < g->n; i++)
			smpol_spool_remove(&w->site->host, g->names[i], NULL, 0);
		slurm_info(MI_LOG "job %u %s delivered from the spool%s in %.0f ms (%d reads, %d writes, %d lost to "
			   "other writers)", g->run.job, what, through, ms_since(&t0), res.reads, res.writes,
			   res.losses);
		return 0;
	}
	if (rc == -ECONNREFUSED) {
		if (say)
			say_kept(w, g->run.job, what, err, 0);
		return rc;
	}
	if (g->n > 1)
		return deliver_each(w, g, say);
	set_aside(w, g->names[0], err);
	return 0;
}

/* Whether run was delivered less than RECORD_PACE_MS ago: then it waits (*due: the
 * soonest such wait ends, monotonic ms) and gathers the run's next steps meanwhile. */
static bool paced(const struct record_pace *pace, const struct smpol_record_run *run, int64_t now, int64_t *due)
{
	for (int i = 0; pace && i < RECORD_PACE_RUNS; i++) {
		const struct record_paced *p = &pace->runs[i];

		if (p->at_ms && p->job == run->job && p->run == run->run && now - p->at_ms < RECORD_PACE_MS) {
			if (!*due || p->at_ms + RECORD_PACE_MS < *due)
				*due = p->at_ms + RECORD_PACE_MS;
			return true;
		}
	}
	return false;
}

/* Note run as delivered at now, in place of the oldest run noted. */
static void note_paced(struct record_pace *pace, const struct smpol_record_run *run, int64_t now)
{
	struct record_paced *oldest = &pace->runs[0];

	for (int i = 0; i < RECORD_PACE_RUNS; i++) {
		struct record_paced *p = &pace->runs[i];

		if (p->job == run->job && p->run == run->run) {
			oldest = p;
			break;
		}
		if (p->at_ms < oldest->at_ms)
			oldest = p;
	}
	*oldest = (struct record_paced){ .job = run->job, .run = run->run, .at_ms = now };
}

int64_t record_pace_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

bool record_write_paced(const struct record_pace *pace, const char *name, int64_t now, int64_t *due)
{
	struct smpol_record_run run;

	return smpol_spool_name_run(name, &run) == 0 && paced(pace, &run, now, due);
}

/*
 * Deliver up to max spooled records of other steps than w's, oldest first, those of
 * one run of a job in one store, stopping at the first that slurmctld or slurmdbd
 * does not answer. With pace, a run delivered lately waits (paced()). -ECONNREFUSED
 * then, else 0.
 */
static int deliver_spool(const struct record_write *w, int max, bool say, struct record_pace *pace, int64_t *due)
{
	char **names = NULL, own[64], err[SMPOL_ERRLEN];
	struct spooled_run *runs = NULL;
	int n = 0, nruns = 0, taken = 0, rc = 0;
	int64_t now = record_pace_now_ms();

	if (w->site->record == SMPOL_RECORD_NONE || smpol_spool_list(&w->site->host, &names, &n, NULL, 0) < 0 || !n) {
		free(names);
		return 0;
	}
	smpol_spool_name(&w->run, w->step, own, sizeof(own));
	runs = calloc((size_t)n, sizeof(*runs));
	for (int i = 0; runs && i < n && taken < max; i++) {
		int got;

		/* a run held back by its pace waits unread: a fast workflow's records are
		 * read once, not at every round until the pace lets them go */
		if (!strcmp(names[i], own) || record_write_paced(pace, names[i], now, due))
			continue;
		got = spooled_add(w, names[i], runs, &nruns, err, sizeof(err));
		taken += got == 0;
		if (got < 0 && got != -ENOENT && got != -ENOMEM)
			set_aside(w, names[i], err);
	}
	for (int i = 0; i < nruns && rc == 0; i++) {
		/* a group out of memory before its first record: none to deliver */
		if (!runs[i].n)
			continue;
		/* slurmctld is away: no use trying the rest */
		rc = deliver_group(w, &runs[i], say);
		if (rc == 0 && pace)
			note_paced(pace, &runs[i].run, record_pace_now_ms());
	}
	spooled_runs_free(runs, nruns);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

bool record_write_deliver_others(const struct record_write *w)
{
	/* the courier delivers them, and this step's start waits for no other's write */
	if (courier_listens(w->site))
		return true;
	deliver_spool(w, SPOOL_DELIVER_MAX, false, NULL, NULL);
	return false;
}

int record_write_deliver_all(const struct record_write *w, bool say, struct record_pace *pace, int *wait_ms)
{
	int64_t due = 0;
	int rc = deliver_spool(w, SMPOL_SPOOL_MAX, say, pace, &due), left = due ? (int)(due - record_pace_now_ms()) : 0;

	*wait_ms = due ? (left > 0 ? left : 1) : 0;
	return rc;
}

void record_write_retry_own(const struct record_write *w)
{
	char own[64], err[SMPOL_ERRLEN];
	const char *name = own;
	int rc = -ECONNREFUSED;

	smpol_spool_name(&w->run, w->step, own, sizeof(own));
	for (int waited = 0; rc == -ECONNREFUSED && waited < SPOOL_RETRY_FOR_S; waited += SPOOL_RETRY_S) {
		struct spooled_run one = { 0 };
		int nruns = 0;

		sleep(SPOOL_RETRY_S);
		rc = spooled_add(w, name, &one, &nruns, err, sizeof(err));
		if (rc == 0)
			rc = deliver_group(w, &one, false);
		else if (rc != -ENOENT && rc != -ENOMEM)
			set_aside(w, name, err);
		json_object_put(one.steps);
		free(one.names);
	}
}

/* After a look with r: keep it to look again at `due`, or remove it. Under the node
 * lock, where the job's writers on this node put their copies: a copy put since r was
 * read is newer and stays as it was put (looked at soon). */
static void settle(const struct record_write *w, const struct smpol_recheck *r, bool again, int64_t due)
{
	struct smpol_recheck now_kept;
	int lock_fd = lock_node_writers(w);

	if (smpol_recheck_get(&w->site->host, &r->run, &now_kept, NULL, 0) == 0 &&
	    json_object_equal(now_kept.record, r->record) &&
	    (!again || smpol_recheck_update(&w->site->host, r, due, NULL, 0) < 0))
		smpol_recheck_remove(&w->site->host, &r->run, NULL, 0);
	json_object_put(now_kept.record);
	if (lock_fd >= 0)
		close(lock_fd);
}

/* Whether to look again after a look that found seen: while the end is not known; while
 * jobstats may still put its summary over the record; after a write, to see that no
 * other node's look dropped it. */
static bool look_again(const struct record_write *w, const struct record_recheck_seen *seen)
{
	switch (seen->outcome) {
	case RECHECK_PENDING: return true;
	case RECHECK_KEPT: return jobstats_may_follow(w);
	case RECHECK_MERGED:
	case RECHECK_MOVED: return seen->res.writes > 0;
	default: return false;
	}
}

/* One look at the record of a job's run after its end: what the client found decides
 * what becomes of the entry. -ECONNREFUSED when slurmdbd did not answer (the entry
 * waits), else 0. */
static int recheck_one(const struct record_write *w, const struct smpol_record_run *key, int64_t now)
{
	struct smpol_recheck r;
	struct record_recheck_seen seen;
	char err[SMPOL_ERRLEN];
	int64_t due = 0;
	bool again = false;
	uint32_t job = key->job;
	int rc = smpol_recheck_get(&w->site->host, key, &r, err, sizeof(err));

	if (rc < 0) {
		if (rc != -ENOENT)
			slurm_error(MI_LOG "%s; removed", err);
		smpol_recheck_remove(&w->site->host, key, NULL, 0);
		return 0;
	}
	rc = record_ended_recheck(w->site->dbd_client, w->site->record, &r.run, r.record, &seen, err, sizeof(err));
	if (rc == -ECONNREFUSED) {
		json_object_put(r.record);
		return rc;
	}
	if (rc < 0)
		slurm_error(MI_LOG "job %u: the placement record cannot be looked at after the job's end: %s", job, err);
	else if (seen.outcome == RECHECK_MOVED && seen.res.writes > 0)
		slurm_info(MI_LOG "job %u: a jobstats summary replaced the placement record in AdminComment; the "
			   "record is in SystemComment now (%d reads, %d writes, %d lost to other writers)", job,
			   seen.res.reads, seen.res.writes, seen.res.losses);
	else if (seen.outcome == RECHECK_MERGED && seen.res.writes > 0)
		slurm_info(MI_LOG "job %u: entries of this node that another node's write had dropped from the "
			   "placement record are merged back (%d reads, %d writes, %d lost to other writers)", job,
			   seen.res.reads, seen.res.writes, seen.res.losses);
	else if (seen.outcome == RECHECK_GONE)
		slurm_info(MI_LOG "job %u: other text replaced the placement record after the job's end; it is left "
			   "as it is", job);
	if (rc == 0 && look_again(w, &seen)) {
		r.tries += seen.outcome == RECHECK_PENDING;
		r.ended = seen.ended;
		again = smpol_recheck_next(&r, now, &due);
	}
	settle(w, &r, again, due);
	json_object_put(r.record);
	return 0;
}

int record_write_recheck(const struct record_write *w, int64_t *next)
{
	int64_t now = (int64_t)time(NULL);
	struct smpol_record_run *runs = NULL;
	int n = 0, rc = 0;

	*next = 0;
	if (smpol_recheck_due(&w->site->host, now, &runs, &n, next, NULL, 0) < 0)
		return 0;
	for (int i = 0; i < n && rc == 0; i++)
		rc = recheck_one(w, &runs[i], now);
	free(runs);
	/* slurmdbd away: what is due stays due, for the next round */
	if (rc == -ECONNREFUSED)
		*next = 0;
	return rc;
}
