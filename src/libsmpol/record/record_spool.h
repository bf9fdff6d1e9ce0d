/* record_spool.h - placement records that could not be written yet (slurmctld away),
 * kept on the node until they are: STATEDIR/spool/JOB.STEP.json (JOB.STEP.runR.json for
 * run R > 0 of a requeued job), root's alone, each written whole (temporary file,
 * rename; fsynced unless the node's courier takes it at once), at most SMPOL_SPOOL_MAX of them (the oldest goes first, and the log
 * says so). Each holds {"job":J,"run":R,"started":T,"step":"S","entries":{NODE:ENTRY,
 * ...}} as the step's writer would have merged it (record.h: smpol_record_run; a file
 * of an earlier release has neither "run" nor "started": run 0, start unknown). */
#ifndef SMPOL_RECORD_SPOOL_H
#define SMPOL_RECORD_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "host.h"
#include "record.h"
#include "statedir.h"

#define SMPOL_SPOOL_MAX 256

/* The spooled record's name of run's step ("JOB.STEP", "JOB.STEP.runR") into buf. */
void smpol_spool_name(const struct smpol_record_run *run, const char *step, char *buf, size_t len);

/* The job and run that a spooled record's name says ("JOB.STEP", "JOB.STEP.runR";
 * started 0): what a look that reads no record needs. -EINVAL for another name. */
int smpol_spool_name_run(const char *name, struct smpol_record_run *run);

/* Keep job/step's entries (merged into what is spooled for that step already), written
 * as sync says (statedir.h: a record for the node's courier, which takes it within a
 * second, needs no fsync; one waiting for slurmctld to come back does). *dropped counts
 * older records removed to stay within SMPOL_SPOOL_MAX. 0 or -errno with a sentence. */
int smpol_spool_put(const struct smpol_host *h, const struct smpol_record_run *run, const char *step,
		    json_object *entries, enum smpol_statedir_sync sync, int *dropped, char *err, size_t errlen);

/* How many records the spool holds, by their names (none is read). 0 or -errno with a
 * sentence; a missing spool holds none. */
int smpol_spool_count(const struct smpol_host *h, int *n, char *err, size_t errlen);

/* The spooled records' names ("JOB.STEP"), oldest first; *names is malloc'ed, free each
 * and it. A missing spool is 0 records. 0 or -errno with a sentence. */
int smpol_spool_list(const struct smpol_host *h, char ***names, int *n, char *err, size_t errlen);

/* One spooled record. -ENOENT when gone (another writer delivered it), -EBADMSG when
 * damaged (the sentence names the file, which is left for the admin). */
int smpol_spool_get(const struct smpol_host *h, const char *name, struct smpol_record_run *run, char *step,
		    size_t steplen, json_object **entries, char *err, size_t errlen);

/* Move a record slurmctld will never take (its job has ended) out of the way, as
 * NAME.json.undelivered beside the others, for the admin. 0 or -errno. */
int smpol_spool_set_aside(const struct smpol_host *h, const char *name, char *err, size_t errlen);

/* Remove a delivered record (a missing one is no error). */
int smpol_spool_remove(const struct smpol_host *h, const char *name, char *err, size_t errlen);

#endif
