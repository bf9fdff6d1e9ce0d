/* record_write.c - slurmstepd (root): this node's writes of placement records (see
 * record_write.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "courier_lock.h"
#include "mi_log.h"
#include "record_ended.h"
#include "record_recheck.h"
#include "record_slurm.h"
#include "record_spool.h"
#include "record_write.h"
#include "statedir.h"

/* A step whose record went to the spool because slurmctld did not answer tries again
 * this often, for this long, at its end; later, the node's next steps deliver it. */
#define SPOOL_RETRY_S 2
#define SPOOL_RETRY_FOR_S 180
/* Spooled records of other steps one step start delivers, at most (with no courier). */
#define SPOOL_DELIVER_MAX 8
/* A step hands its record to the courier while the spool holds fewer: more means the
 * courier cannot deliver (an outage), and the step writes and retries itself, as it
 * does with no courier, rather than have the oldest records dropped. */
#define HAND_OVER_SPOOL_MAX 32

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

/* Store entries ({NODE:ENTRY}) of run/step into the record field, under the node
 * lock, and keep the copy to look at again. 0 or -errno (record_slurm_store's);
 * *through as it says. */
static int store_entries(const struct record_write *w, const struct smpol_record_run *run, const char *step,
			 json_object *entries, bool sole_writer, struct smpol_store_result *res, const char **through,
			 char *err, size_t errlen)
{
	struct smpol_store_result local = { 0 };
	int rc, lock_fd = lock_node_writers(w);
	/* under the node lock, the steps of a one-node step's job all take turns here;
	 * without it, this node's other steps may race even a step's only writer */
	bool sole = sole_writer && lock_fd >= 0;

	/* the only writer reads its write back at once; others pause between reads so a
	 * racing writer of another node has written by then */
	rc = record_slurm_store(w->site->record, w->site->dbd_client, run, step, entries, sole,
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

/* Say that run/step's record of n nodes waits in the spool because of err. */
static void say_kept(const struct record_write *w, const struct smpol_record_run *run, const char *step, int n,
		     const char *err, int dropped)
{
	slurm_error(MI_LOG "job %u step %s: placement record of %d node(s) kept in %s/spool until slurmctld "
		    "or slurmdbd answers (%s)%s", run->job, step, n, w->site->host.statedir, err,
		    dropped ? "; the oldest spooled records were dropped" : "");
}

bool record_write_entries(const struct record_write *w, json_object *entries, bool sole_writer, const char *how)
{
	struct smpol_store_result res = { 0 };
	struct timespec t0;
	char err[SMPOL_ERRLEN], serr[SMPOL_ERRLEN];
	const char *through = "";
	int rc, dropped;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = store_entries(w, &w->run, w->step, entries, sole_writer, &res, &through, err, sizeof(err));
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
	if (smpol_spool_put(&w->site->host, &w->run, w->step, entries, &dropped, serr, sizeof(serr)) < 0) {
		slurm_error(MI_LOG "job %u step %s: placement record NOT written (%s) and NOT spooled (%s)",
			    w->run.job, w->step, err, serr);
		return false;
	}
	say_kept(w, &w->run, w->step, json_object_object_length(entries), err, dropped);
	/* a job that has ended waits for nothing: holding its step for retries would keep
	 * the job completing and the node from its next job; the node's next steps deliver */
	return !*through;
}

bool record_write_to_courier(const struct record_write *w, json_object *entries, const char *how)
{
	char err[SMPOL_ERRLEN], **names = NULL;
	int n = 0, dropped;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!courier_listens(w->site) || smpol_spool_list(&w->site->host, &names, &n, NULL, 0) < 0)
		return false;
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (n >= HAND_OVER_SPOOL_MAX)
		return false;
	if (smpol_spool_put(&w->site->host, &w->run, w->step, entries, &dropped, err, sizeof(err)) < 0) {
		slurm_info(MI_LOG "job %u step %s: %s; the step writes its placement record itself", w->run.job,
			   w->step, err);
		return false;
	}
	slurm_info(MI_LOG "job %u step %s: placement record of %d node(s) handed to the node's courier %s in "
		   "%.1f ms", w->run.job, w->step, json_object_object_length(entries), how, ms_since(&t0));
	return true;
}

/* Deliver spooled record name. say: log a refusal (slurmctld or slurmdbd away). 0
 * delivered, else the store's error. */
static int deliver_spooled(const struct record_write *w, const char *name, bool say)
{
	char step[32], err[SMPOL_ERRLEN];
	json_object *entries = NULL;
	struct smpol_store_result res = { 0 };
	const char *through = "";
	struct smpol_record_run run;
	struct timespec t0;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = smpol_spool_get(&w->site->host, name, &run, step, sizeof(step), &entries, err, sizeof(err));
	if (rc == -ENOENT)
		return 0;       /* delivered meanwhile */
	if (rc == 0)
		rc = store_entries(w, &run, step, entries, true, &res, &through, err, sizeof(err));
	if (rc == 0) {
		smpol_spool_remove(&w->site->host, name, NULL, 0);
		slurm_info(MI_LOG "job %u step %s: placement record of %d node(s) delivered from the spool%s in "
			   "%.0f ms (%d reads, %d writes, %d lost to other writers)", run.job, step,
			   json_object_object_length(entries), through, ms_since(&t0), res.reads, res.writes,
			   res.losses);
	} else if (rc == -ECONNREFUSED && say) {
		say_kept(w, &run, step, json_object_object_length(entries), err, 0);
	} else if (rc != -ECONNREFUSED) {
		/* slurmctld and slurmdbd answer but will never take it: the file stays for
		 * the admin, out of the way of deliveries */
		slurm_error(MI_LOG "spooled placement record %s cannot be delivered: %s; moved aside as "
			    "%s/spool/%s.json.undelivered", name, err, w->site->host.statedir, name);
		smpol_spool_set_aside(&w->site->host, name, NULL, 0);
	}
	json_object_put(entries);
	return rc;
}

/* Deliver up to max spooled records of other steps than w's, oldest first, stopping
 * at the first slurmctld or slurmdbd does not answer. -ECONNREFUSED then, else 0. */
static int deliver_spool(const struct record_write *w, int max, bool say)
{
	char **names = NULL, own[64];
	int n = 0, tried = 0, rc = 0;

	if (w->site->record == SMPOL_RECORD_NONE || smpol_spool_list(&w->site->host, &names, &n, NULL, 0) < 0)
		return 0;
	smpol_spool_name(&w->run, w->step, own, sizeof(own));
	for (int i = 0; i < n; i++) {
		if (tried < max && rc == 0 && strcmp(names[i], own)) {
			/* slurmctld is away: no use trying the rest */
			rc = deliver_spooled(w, names[i], say) == -ECONNREFUSED ? -ECONNREFUSED : 0;
			tried++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

void record_write_deliver_others(const struct record_write *w)
{
	/* the courier delivers them, and this step's start waits for no other's write */
	if (!courier_listens(w->site))
		deliver_spool(w, SPOOL_DELIVER_MAX, false);
}

int record_write_deliver_all(const struct record_write *w, bool say)
{
	return deliver_spool(w, SMPOL_SPOOL_MAX, say);
}

void record_write_retry_own(const struct record_write *w)
{
	char own[64];
	int rc = -ECONNREFUSED;

	smpol_spool_name(&w->run, w->step, own, sizeof(own));
	for (int waited = 0; rc == -ECONNREFUSED && waited < SPOOL_RETRY_FOR_S; waited += SPOOL_RETRY_S) {
		sleep(SPOOL_RETRY_S);
		rc = deliver_spooled(w, own, false);
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
