/* dbd_recheck.c - mem_interleave_dbd --recheck (see dbd_recheck.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dbd_recheck.h"
#include "error.h"
#include "record.h"
#include "record_dbd.h"
#include "record_merge_back.h"
#include "record_store.h"

/* What the run's field holds of the copy. */
enum held {
	HELD_NONE,      /* no record of ours of that run */
	HELD_SOME,      /* our record of the run, with entries of the copy missing */
	HELD_ALL,       /* our record of the run with every entry of the copy */
};

/* What the run's field holds of record, and whether a jobstats summary; -errno when
 * it cannot be read. */
static int holds(struct record_dbd *dbd, json_object *record, bool *jobstats, char *err, size_t errlen)
{
	json_object *found = NULL;
	char *text = NULL;
	int rc = record_dbd_read(dbd, &text, err, errlen);

	if (rc < 0)
		return rc;
	*jobstats = smpol_record_is_jobstats(text);
	if (smpol_record_has_all(text, record))
		rc = HELD_ALL;
	else if (smpol_record_find(text, &found, NULL, 0) == 0 && smpol_record_run_of(found) == smpol_record_run_of(record))
		rc = HELD_SOME;
	else
		rc = HELD_NONE;
	json_object_put(found);
	free(text);
	return rc;
}

/* Merge the copy's missing entries into the field (budget: the field's) and print
 * "WORD END R W L" or the failure. */
static void merge_back(struct record_dbd *dbd, const struct smpol_record_run *run, json_object *record,
		       size_t budget, const char *word)
{
	struct smpol_comment_store store = { .read = record_dbd_read, .write = record_dbd_write, .ctx = dbd,
					     .run = run->run };
	struct smpol_store_result res = { 0 };
	char err[SMPOL_ERRLEN] = "";
	int rc = smpol_record_store_copy(&store, record, budget, &res, err, sizeof(err));

	if (rc == 0)
		printf("%s %lld %d %d %d\n", word, (long long)record_dbd_end(dbd), res.reads, res.writes, res.losses);
	else
		printf("failed %d %s\n", -rc, err);
	json_object_put(res.record);
}

void dbd_recheck(const struct smpol_record_run *run, enum smpol_record_target target, json_object *record)
{
	char err[SMPOL_ERRLEN] = "";
	struct record_dbd *dbd;
	bool jobstats = false;
	int rc = record_dbd_open(target, run, &dbd, err, sizeof(err));

	if (rc == 0)
		rc = holds(dbd, record, &jobstats, err, sizeof(err));
	if (rc == -EINPROGRESS) {
		printf("pending\n");
	} else if (rc < 0) {
		printf("failed %d %s\n", -rc, err);
	} else if (rc == HELD_ALL) {
		printf("kept %lld\n", (long long)record_dbd_end(dbd));
	} else if (rc == HELD_NONE && jobstats && target == SMPOL_RECORD_ADMIN_COMMENT) {
		/* into SystemComment, where other nodes of the job may merge theirs too */
		record_dbd_set_target(dbd, SMPOL_RECORD_SYSTEM_COMMENT);
		merge_back(dbd, run, record, SMPOL_RECORD_BUDGET, "moved");
	} else if (rc == HELD_SOME) {
		/* another node's write dropped entries of ours while the job ran */
		merge_back(dbd, run, record, smpol_record_budget(target), "merged");
	} else {
		printf("gone %lld\n", (long long)record_dbd_end(dbd));
	}
	record_dbd_close(dbd);
}
