/* record_recheck.h - a job's record looked at again after the job has ended, for
 * jobstats' summary may have been put over it, or another node's write may have
 * dropped entries of it.
 *
 * Princeton's jobstats sets the whole AdminComment to "JS1:" + its summary from its
 * EpilogSlurmctld, a few seconds after the job ended (its script waits 5 s, then asks
 * Prometheus): over our record, which was written first. And in a job of several
 * nodes, a writer on another node may drop our entries (record_merge_back.h). A node
 * that wrote a job's record into AdminComment where an EpilogSlurmctld runs, or into
 * a job of several nodes, therefore keeps a copy of the whole record, as its write's
 * confirming read had it, in STATEDIR/recheck/JOB.json (JOB.runR.json for run R > 0
 * of a requeued job: each run's record is its own row's in accounting) holding
 * {"job":J,"run":R,"started":T,"tries":N,"ended":E,"record":{...}} (record.h:
 * smpol_record_run); the file's modification time is when to look next. The node's
 * courier (the plugin's record_courier.h) reads the run's AdminComment from slurmdbd
 * then: while slurmdbd has no end of the run, 30 s after the write and then after
 * waits doubling up to 10 min; once it has the end E, at E + 30 s, 1, 2, 4, 8 and 10
 * min (smpol_recheck_next). Entries of the copy that the field lost are merged back,
 * into the run's SystemComment where jobstats' summary has replaced our record
 * (smpol_record_store_copy); after the look at E + 10 min the entry goes. A later
 * write of the same run on this node replaces the copy but for what the field had
 * lost. At most SMPOL_RECHECK_MAX entries: those due first are dropped first.
 */
#ifndef SMPOL_RECORD_RECHECK_H
#define SMPOL_RECORD_RECHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "host.h"
#include "record.h"

#define SMPOL_RECHECK_MAX 1024
/* The first look, after the write; the last, after the job's end. */
#define SMPOL_RECHECK_FIRST_S 30
#define SMPOL_RECHECK_FOR_S 600

struct smpol_recheck {
	struct smpol_record_run run;    /* the job, its run, the start of the step that wrote */
	int tries;              /* looks while the run's end was not known */
	int64_t ended;          /* the run's end as slurmdbd has it; 0: not known yet */
	json_object *record;    /* the copy (a reference the caller puts) */
};

/* Keep run's record (a copy of our whole record) to look at again from `due` on
 * (Unix time), in place of what was kept for that run of the job but for the entries
 * record lacks (record_merge_back.h): an entry the field lost before this write stays in
 * the copy. 0 or -errno with a sentence. */
int smpol_recheck_put(const struct smpol_host *h, const struct smpol_record_run *run, json_object *record,
		      int64_t due, char *err, size_t errlen);

/* The runs due at `now` (*runs malloc'ed, NULL when none; job and run set, started 0:
 * smpol_recheck_get reads the rest) and, in *next, the earliest time a run not due
 * yet will be (0: none). A missing directory is none. 0 or -errno with a sentence. */
int smpol_recheck_due(const struct smpol_host *h, int64_t now, struct smpol_record_run **runs, int *n,
		      int64_t *next, char *err, size_t errlen);

/* The entry of run's job and run. -ENOENT when there is none, -EBADMSG when it is
 * damaged (the sentence names the file). */
int smpol_recheck_get(const struct smpol_host *h, const struct smpol_record_run *run, struct smpol_recheck *r,
		      char *err, size_t errlen);

/* Keep r (its tries and end) to look at again from `due` on. 0 or -errno. */
int smpol_recheck_update(const struct smpol_host *h, const struct smpol_recheck *r, int64_t due,
			 char *err, size_t errlen);

/* Remove the entry of run's job and run (a missing one is no error). 0 or -errno. */
int smpol_recheck_remove(const struct smpol_host *h, const struct smpol_record_run *run, char *err,
			 size_t errlen);

/*
 * smpol_recheck_next - when r is looked at next, after a look at `now`: *due, and true;
 * false when that was the last look (10 min after the end). Before the end is known,
 * SMPOL_RECHECK_FIRST_S doubled per try up to SMPOL_RECHECK_FOR_S from now; after it,
 * the first of end + 30 s, 1, 2, 4, 8 and 10 min that is still to come.
 */
bool smpol_recheck_next(const struct smpol_recheck *r, int64_t now, int64_t *due);

#endif
