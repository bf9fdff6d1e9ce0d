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

struct record_dbd {
	enum smpol_record_target target;
	uint32_t job;
	time_t end;                     /* the job's end at the last read, 0 = none yet */
	void *conn;
	slurmdb_job_cond_t cond;        /* this job on this cluster, as sacctmgr names it */
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
	if (d->conn)
		slurmdb_connection_close(&d->conn);
	free(d);
}

int record_dbd_open(enum smpol_record_target target, uint32_t job, struct record_dbd **dbd, char *err, size_t errlen)
{
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
	d->job = job;
	/* only the job: no steps, no default time window (sacctmgr modify job does the same) */
	d->cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	d->cond.flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_DEFAULT_USAGE;
	d->cond.cluster_list = slurm_list_create(free);
	d->cond.step_list = slurm_list_create(slurm_destroy_selected_step);
	snprintf(id, sizeof(id), "%u", job);
	if (d->cond.cluster_list)
		slurm_list_append(d->cond.cluster_list, strdup(slurm_conf.cluster_name));
	if (d->cond.step_list)
		slurm_addto_step_list(d->cond.step_list, id);
	if (!d->cond.cluster_list || !d->cond.step_list || slurm_list_count(d->cond.step_list) != 1) {
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

/* Ended, as slurmdbd has it: a final state, or an end time. */
static bool ended(const slurmdb_job_rec_t *rec)
{
	return (rec->state & JOB_STATE_BASE) >= JOB_COMPLETE || rec->end != 0;
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
	__typeof__(slurm_list_iterator_create(NULL)) it;
	slurmdb_job_rec_t *rec, *latest = NULL;
	const char *text = NULL;
	int rc = 0;

	*comment = NULL;
	errno = 0;
	jobs = slurmdb_jobs_get(d->conn, &d->cond);
	if (!jobs)
		return smpol_fail(err, errlen, ECONNREFUSED, "cannot read job %u from slurmdbd: %s", d->job, why(errno));
	it = slurm_list_iterator_create(jobs);
	while ((rec = slurm_list_next(it)))
		if (rec->jobid == d->job && (!latest || rec->submit > latest->submit))
			latest = rec;
	slurm_list_iterator_destroy(it);
	if (!latest) {
		rc = smpol_fail(err, errlen, ENOENT, "accounting has no job %u on cluster %s", d->job, slurm_conf.cluster_name);
	} else if (!ended(latest)) {
		rc = smpol_fail(err, errlen, EINPROGRESS, "slurmdbd has not recorded the end of job %u yet", d->job);
	} else {
		d->end = latest->end ? latest->end : time(NULL);
		text = *field_of(d, latest);
		*comment = strdup(text ? text : "");
		if (!*comment)
			rc = smpol_fail(err, errlen, ENOMEM, "out of memory reading job %u from slurmdbd", d->job);
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
	int e;

	if (!rec)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	*field_of(d, rec) = (char *)comment;
	errno = 0;
	changed = slurmdb_job_modify(d->conn, &d->cond, rec);
	e = errno;
	*field_of(d, rec) = NULL;
	slurmdb_destroy_job_rec(rec);
	/* slurmdbd lists the jobs it changed; the change holds once committed */
	done = changed && slurm_list_count(changed) > 0;
	if (changed)
		slurm_list_destroy(changed);
	if (!done) {
		slurmdb_connection_commit(d->conn, false);
		return smpol_fail(err, errlen, e == ESLURM_ACCESS_DENIED ? EPERM : EIO,
				 "slurmdbd did not change the %s of job %u: %s", record_dbd_field_name(d->target), d->job, why(e));
	}
	errno = 0;
	if (slurmdb_connection_commit(d->conn, true) != SLURM_SUCCESS)
		return smpol_fail(err, errlen, EIO, "slurmdbd did not commit the %s of job %u: %s",
				 record_dbd_field_name(d->target), d->job, why(errno));
	return 0;
}
