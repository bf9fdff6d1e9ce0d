/* dbd_recheck.c - mem_interleave_dbd --recheck (see dbd_recheck.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "dbd_recheck.h"
#include "error.h"
#include "record.h"
#include "record_dbd.h"
#include "record_store.h"

/* Whether the run's AdminComment holds a record of ours of that run (1) or not (0),
 * and whether a jobstats summary; -errno when it cannot be read. */
static int holds_record(struct record_dbd *dbd, uint32_t run, bool *jobstats, char *err, size_t errlen)
{
	json_object *found = NULL;
	char *text = NULL;
	int rc = record_dbd_read(dbd, &text, err, errlen);

	if (rc < 0)
		return rc;
	*jobstats = smpol_record_is_jobstats(text);
	rc = smpol_record_find(text, &found, NULL, 0) == 0 && smpol_record_run_of(found) == run;
	json_object_put(found);
	free(text);
	return rc;
}

void dbd_recheck(const struct smpol_record_run *run, json_object *record)
{
	struct smpol_comment_store store = { .read = record_dbd_read, .write = record_dbd_write, .run = run->run };
	struct smpol_store_result res = { 0 };
	char err[SMPOL_ERRLEN] = "";
	struct record_dbd *dbd;
	bool jobstats = false;
	int rc = record_dbd_open(SMPOL_RECORD_ADMIN_COMMENT, run, &dbd, err, sizeof(err));

	if (rc == 0)
		rc = holds_record(dbd, run->run, &jobstats, err, sizeof(err));
	if (rc == -EINPROGRESS)
		printf("pending\n");
	else if (rc < 0)
		printf("failed %d %s\n", -rc, err);
	else if (rc == 0 && jobstats) {
		/* into SystemComment, where another node of the job may have moved its copy
		 * already: the more complete one stays */
		record_dbd_set_target(dbd, SMPOL_RECORD_SYSTEM_COMMENT);
		store.ctx = dbd;
		rc = smpol_record_store_copy(&store, record, &res, err, sizeof(err));
		if (rc == 0)
			printf("moved %lld %d %d %d\n", (long long)record_dbd_end(dbd), res.reads, res.writes, res.losses);
		else
			printf("failed %d %s\n", -rc, err);
		json_object_put(res.record);
	} else {
		printf("%s %lld\n", rc ? "kept" : "gone", (long long)record_dbd_end(dbd));
	}
	record_dbd_close(dbd);
}
