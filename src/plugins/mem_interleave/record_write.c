/* record_write.c - slurmstepd (root): this node's writes of placement records (see
 * record_write.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "mi_log.h"
#include "record_slurm.h"
#include "record_spool.h"
#include "record_write.h"
#include "statedir.h"

/* A step whose record went to the spool because slurmctld did not answer tries again
 * this often, for this long, at its end; later, the node's next steps deliver it. */
#define SPOOL_RETRY_S 2
#define SPOOL_RETRY_FOR_S 180
/* Spooled records of other steps one step start delivers, at most. */
#define SPOOL_DELIVER_MAX 8

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

/* Store entries ({NODE:ENTRY}) of run/step into the record field, under the node
 * lock. 0 or -errno (record_slurm_store's); *through as it says. */
static int store_entries(const struct record_write *w, const struct smpol_record_run *run, const char *step,
			 json_object *entries, bool sole_writer, struct smpol_store_result *res, const char **through,
			 char *err, size_t errlen)
{
	int rc, lock_fd = lock_node_writers(w);
	/* under the node lock, the steps of a one-node step's job all take turns here;
	 * without it, this node's other steps may race even a step's only writer */
	bool sole = sole_writer && lock_fd >= 0;

	/* the only writer reads its write back at once; others pause between reads so a
	 * racing writer of another node has written by then */
	rc = record_slurm_store(w->site->record, w->site->dbd_client, run, step, entries, sole,
			      !sole && (lock_fd < 0 || w->step_nnodes > 1), res, through, err, errlen);
	if (lock_fd >= 0)
		close(lock_fd);     /* drops the flock */
	return rc;
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
	slurm_error(MI_LOG "job %u step %s: placement record of %d node(s) kept in %s/spool until slurmctld "
		    "or slurmdbd answers (%s)%s", w->run.job, w->step, json_object_object_length(entries),
		    w->site->host.statedir, err, dropped ? "; the oldest spooled records were dropped" : "");
	/* a job that has ended waits for nothing: holding its step for retries would keep
	 * the job completing and the node from its next job; the node's next steps deliver */
	return !*through;
}

/* Deliver spooled record name; own: this step's (its end retries it). 0 delivered, else
 * the store's error. */
static int deliver_spooled(const struct record_write *w, const char *name)
{
	char step[32], err[SMPOL_ERRLEN];
	json_object *entries = NULL;
	const char *through = "";
	struct smpol_record_run run;
	int rc;

	rc = smpol_spool_get(&w->site->host, name, &run, step, sizeof(step), &entries, err, sizeof(err));
	if (rc == -ENOENT)
		return 0;       /* delivered meanwhile */
	if (rc == 0)
		rc = store_entries(w, &run, step, entries, true, NULL, &through, err, sizeof(err));
	if (rc == 0) {
		smpol_spool_remove(&w->site->host, name, NULL, 0);
		slurm_info(MI_LOG "job %u step %s: spooled placement record of %d node(s) delivered%s", run.job, step,
			   json_object_object_length(entries), through);
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
static int deliver_spool(const struct record_write *w, int max)
{
	char **names = NULL, own[64];
	int n = 0, tried = 0, rc = 0;

	if (w->site->record == SMPOL_RECORD_NONE || smpol_spool_list(&w->site->host, &names, &n, NULL, 0) < 0)
		return 0;
	smpol_spool_name(&w->run, w->step, own, sizeof(own));
	for (int i = 0; i < n; i++) {
		if (tried < max && rc == 0 && strcmp(names[i], own)) {
			/* slurmctld is away: no use trying the rest */
			rc = deliver_spooled(w, names[i]) == -ECONNREFUSED ? -ECONNREFUSED : 0;
			tried++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

void record_write_deliver_others(const struct record_write *w)
{
	deliver_spool(w, SPOOL_DELIVER_MAX);
}

int record_write_deliver_all(const struct record_write *w)
{
	return deliver_spool(w, SMPOL_SPOOL_MAX);
}

void record_write_retry_own(const struct record_write *w)
{
	char own[64];
	int rc = -ECONNREFUSED;

	smpol_spool_name(&w->run, w->step, own, sizeof(own));
	for (int waited = 0; rc == -ECONNREFUSED && waited < SPOOL_RETRY_FOR_S; waited += SPOOL_RETRY_S) {
		sleep(SPOOL_RETRY_S);
		rc = deliver_spooled(w, own);
	}
}
