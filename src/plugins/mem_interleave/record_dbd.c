/* record_dbd.c - mem_interleave_dbd: a finished job's record field in slurmdbd (see
 * record_dbd.h). An ordinary client of slurmdbd, as sacctmgr is. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "record_dbd.h"
#include "error.h"

/* Exported by libslurm (22.05 to 26.05) but not in the public headers: how sacctmgr
 * names a job (its step list) and makes the record it modifies with; slurm.conf. */
extern slurmdb_job_rec_t *slurmdb_create_job_rec(void);
extern int slurm_addto_step_list(void *step_list, char *names);
extern void slurm_destroy_selected_step(void *object);
extern slurm_conf_t slurm_conf;

/* The run's row is the one running from before the step's start to after it, as
 * slurmdbd has it, with margins for the node's clock against slurmctld's. Two runs of
 * a job are further apart (slurmctld holds a requeued job back for its credential's
 * lifetime, 2 min by default); where they are not, two rows match and nothing is
 * written. */
#define RUN_BEFORE_S 2
#define RUN_AFTER_S 5

struct record_dbd {
	enum smpol_record_target target;
	struct smpol_record_run run;
	time_t end;                     /* the run's end at the last read, 0 = none yet */
	void *conn;
	slurmdb_job_cond_t cond;        /* the job's rows (each run's) on this cluster */
	slurmdb_job_cond_t cond_run;    /* the run's row alone: the rows running about run.started */
};

const char *record_dbd_field_name(enum smpol_record_target t)
{
	return t == SMPOL_RECORD_EXTRA ? "Extra" : t == SMPOL_RECORD_SYSTEM_COMMENT ? "SystemComment" : "AdminComment";
}

void record_dbd_set_target(struct record_dbd *d, enum smpol_record_target target)
{
	d->target = target;
}

time_t record_dbd_end(const struct record_dbd *d)
{
	return d->end;
}

static const char *why(int e)
{
	return e ? slurm_strerror(e) : "no reason given (slurmdbd's log may have one)";
}

void record_dbd_close(struct record_dbd *d)
{
	if (!d)
		return;
	if (d->cond.cluster_list)
		slurm_list_destroy(d->cond.cluster_list);
	if (d->cond.step_list)
		slurm_list_destroy(d->cond.step_list);
	if (d->cond_run.state_list)
		slurm_list_destroy(d->cond_run.state_list);
	if (d->conn)
		slurmdb_connection_close(&d->conn);
	free(d);
}

/*
 * cond_run: the rows of d->cond that ran about the step's start. slurmdbd's job
 * selection takes no row index, and a job id with its steps ignores a time window
 * unless states are named; with the state "running", the window picks the rows that
 * ran in it, whatever they ended as. Without a start (a record spooled by an earlier
 * release), the job's latest row, as slurmdbd gives it without duplicates.
 */
static int run_cond(struct record_dbd *d)
{
	char running[8];

	d->cond_run = d->cond;
	d->cond_run.state_list = NULL;
	if (d->run.started <= 0) {
		d->cond.flags &= ~JOBCOND_FLAG_DUP;
		d->cond_run.flags &= ~JOBCOND_FLAG_DUP;
		return 0;
	}
	d->cond_run.usage_start = (time_t)(d->run.started - RUN_BEFORE_S);
	d->cond_run.usage_end = (time_t)(d->run.started + RUN_AFTER_S);
	d->cond_run.state_list = slurm_list_create(free);
	snprintf(running, sizeof(running), "%d", JOB_RUNNING);
	if (!d->cond_run.state_list)
		return -ENOMEM;
	slurm_list_append(d->cond_run.state_list, strdup(running));
	return 0;
}

int record_dbd_open(enum smpol_record_target target, const struct smpol_record_run *run, struct record_dbd **dbd,
		    char *err, size_t errlen)
{
	uint32_t job = run->job;
	struct record_dbd *d;
	char id[16];

	*dbd = NULL;
	/* slurm.conf as every command on this node reads it (SLURM_CONF, the default
	 * path, or configless), and what a client needs loaded */
	slurm_init(NULL);
	if (!slurm_conf.accounting_storage_type || !strstr(slurm_conf.accounting_storage_type, "slurmdbd"))
		return smpol_fail(err, errlen, ENOSYS, "slurm.conf names no slurmdbd (AccountingStorageType=%s): "
				 "job %u, which has ended, keeps no record", slurm_conf.accounting_storage_type ?
				 slurm_conf.accounting_storage_type : "", job);
	if (!slurm_conf.cluster_name || !*slurm_conf.cluster_name)
		return smpol_fail(err, errlen, EINVAL, "slurm.conf names no ClusterName: slurmdbd's record of job %u "
				 "cannot be found", job);
	d = calloc(1, sizeof(*d));
	if (!d)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	d->target = target;
	d->run = *run;
	/* only the job: no steps, no default time window (sacctmgr modify job does the
	 * same), every run of it */
	d->cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	d->cond.flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_DEFAULT_USAGE | JOBCOND_FLAG_DUP;
	d->cond.cluster_list = slurm_list_create(free);
	d->cond.step_list = slurm_list_create(slurm_destroy_selected_step);
	snprintf(id, sizeof(id), "%u", job);
	if (d->cond.cluster_list)
		slurm_list_append(d->cond.cluster_list, strdup(slurm_conf.cluster_name));
	if (d->cond.step_list)
		slurm_addto_step_list(d->cond.step_list, id);
	if (!d->cond.cluster_list || !d->cond.step_list || slurm_list_count(d->cond.step_list) != 1 ||
	    run_cond(d) < 0) {
		record_dbd_close(d);
		return smpol_fail(err, errlen, ENOMEM, "out of memory naming job %u for slurmdbd", job);
	}
	errno = 0;
	d->conn = slurmdb_connection_get(NULL);
	if (!d->conn) {
		int e = errno;

		record_dbd_close(d);
		return smpol_fail(err, errlen, ECONNREFUSED, "cannot reach slurmdbd to write the %s of job %u, which "
				 "has ended: %s", record_dbd_field_name(target), job, why(e));
	}
	*dbd = d;
	return 0;
}

/* Ended, as slurmdbd has it: a final state, or requeued (a row left pending, with an
 * end time). A running or suspended row has not ended, whatever its end time says. */
static bool ended(const slurmdb_job_rec_t *rec)
{
	return (rec->state & JOB_STATE_BASE) >= JOB_COMPLETE ||
	       ((rec->state & JOB_STATE_BASE) == JOB_PENDING && rec->end != 0);
}

/* Whether rec ran about the run's start, as cond_run selects rows (run_cond). */
static bool ran_then(const struct record_dbd *d, const slurmdb_job_rec_t *rec)
{
	time_t from = (time_t)(d->run.started - RUN_BEFORE_S), to = (time_t)(d->run.started + RUN_AFTER_S);

	return rec->start && (from < rec->end || (!rec->end && (rec->state & JOB_STATE_BASE) == JOB_RUNNING)) &&
	       to > rec->start;
}

/* The run's row among the job's rows: the one that ran about the step's start (the
 * latest, for a record without a start). NULL with a sentence when none or two. */
static slurmdb_job_rec_t *run_row(const struct record_dbd *d, __typeof__(slurmdb_jobs_get(NULL, NULL)) jobs, int *rc,
				  char *err, size_t errlen)
{
	__typeof__(slurm_list_iterator_create(NULL)) it = slurm_list_iterator_create(jobs);
	slurmdb_job_rec_t *rec, *row = NULL;
	int rows = 0, runs = 0;

	while ((rec = slurm_list_next(it))) {
		if (rec->jobid != d->run.job)
			continue;
		rows++;
		if (d->run.started <= 0 ? !row || rec->submit > row->submit : ran_then(d, rec)) {
			row = rec;
			runs++;
		}
	}
	slurm_list_iterator_destroy(it);
	if (!rows) {
		*rc = smpol_fail(err, errlen, ENOENT, "accounting has no job %u on cluster %s", d->run.job,
				 slurm_conf.cluster_name);
	} else if (!row) {
		/* slurmdbd may not have the run's start yet */
		*rc = smpol_fail(err, errlen, EINPROGRESS, "slurmdbd has no run of job %u that ran at %lld (its %d "
				 "run(s) recorded)", d->run.job, (long long)d->run.started, rows);
	} else if (d->run.started > 0 && runs > 1) {
		*rc = smpol_fail(err, errlen, EIO, "%d runs of job %u ran at %lld as slurmdbd has them: run %u's row "
				 "cannot be told", runs, d->run.job, (long long)d->run.started, d->run.run);
		row = NULL;
	}
	return row;
}

/* The field of rec, where the text is (a write borrows it: put back to NULL before rec goes). */
static char **field_of(struct record_dbd *d, slurmdb_job_rec_t *rec)
{
#if RECORD_HAVE_JOB_EXTRA
	if (d->target == SMPOL_RECORD_EXTRA)
		return &rec->extra;
#endif
	return d->target == SMPOL_RECORD_SYSTEM_COMMENT ? &rec->system_comment : &rec->admin_comment;
}

int record_dbd_read(void *ctx, char **comment, char *err, size_t errlen)
{
	struct record_dbd *d = ctx;
	__typeof__(slurmdb_jobs_get(NULL, NULL)) jobs;
	slurmdb_job_rec_t *row;
	const char *text = NULL;
	int rc = 0;

	*comment = NULL;
	errno = 0;
	jobs = slurmdb_jobs_get(d->conn, &d->cond);
	if (!jobs)
		return smpol_fail(err, errlen, ECONNREFUSED, "cannot read job %u from slurmdbd: %s", d->run.job,
				 why(errno));
	row = run_row(d, jobs, &rc, err, errlen);
	if (row && !ended(row)) {
		rc = smpol_fail(err, errlen, EINPROGRESS, "slurmdbd has not recorded the end of run %u of job %u yet",
			       d->run.run, d->run.job);
	} else if (row) {
		d->end = row->end ? row->end : time(NULL);
		text = *field_of(d, row);
		*comment = strdup(text ? text : "");
		if (!*comment)
			rc = smpol_fail(err, errlen, ENOMEM, "out of memory reading job %u from slurmdbd", d->run.job);
	}
	slurm_list_destroy(jobs);
	return rc;
}

int record_dbd_write(void *ctx, const char *comment, char *err, size_t errlen)
{
	struct record_dbd *d = ctx;
	slurmdb_job_rec_t *rec = slurmdb_create_job_rec();
	__typeof__(slurmdb_job_modify(NULL, NULL, NULL)) changed;
	bool done;
	int e, rows;

	if (!rec)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	*field_of(d, rec) = (char *)comment;
	errno = 0;
	changed = slurmdb_job_modify(d->conn, &d->cond_run, rec);
	e = errno;
	*field_of(d, rec) = NULL;
	slurmdb_destroy_job_rec(rec);
	/* slurmdbd lists the rows it changed ("JOB submitted at TIME"); the change holds
	 * once committed, and only the run's own row may change */
	rows = changed ? slurm_list_count(changed) : 0;
	done = rows == 1;
	if (changed)
		slurm_list_destroy(changed);
	if (!done) {
		slurmdb_connection_commit(d->conn, false);
		if (rows > 1)
			return smpol_fail(err, errlen, EIO, "slurmdbd found %d runs of job %u running at %lld, not run %u "
					 "alone; nothing changed", rows, d->run.job, (long long)d->run.started, d->run.run);
		/* No row, no error: the row the read found changed before the write (a
		 * requeue's records reaching slurmdbd in between); read again. */
		if (!e)
			return smpol_fail(err, errlen, EINPROGRESS, "slurmdbd found no row of run %u of job %u running at "
					 "%lld to change", d->run.run, d->run.job, (long long)d->run.started);
		return smpol_fail(err, errlen, e == ESLURM_ACCESS_DENIED ? EPERM : EIO,
				 "slurmdbd did not change the %s of job %u: %s", record_dbd_field_name(d->target),
				 d->run.job, why(e));
	}
	errno = 0;
	if (slurmdb_connection_commit(d->conn, true) != SLURM_SUCCESS)
		return smpol_fail(err, errlen, EIO, "slurmdbd did not commit the %s of job %u: %s",
				 record_dbd_field_name(d->target), d->run.job, why(errno));
	return 0;
}
