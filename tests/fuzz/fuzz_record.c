/* fuzz_record.c - the AdminComment is whatever text Slurm holds (users and other
 * tools write it too). Merging our entry into it must succeed or refuse cleanly; a
 * merged comment holds the entry, its record is found again, and a comment that is
 * not ours survives in it byte for byte. The same text as a folded record's step
 * list ("0-131,140") is refused with a sentence or written back to a list of the
 * same steps. */
#include <errno.h>

#include "error.h"
#include "fuzz.h"
#include "record.h"
#include "step_ids.h"

/* room for three entries of ~260 bytes: a record with more steps is folded */
#define SMALL_BUDGET 1000

static json_object *make_entry(void)
{
	static const uint64_t last[2] = { 300, 100 }, peak[2] = { 310, 105 };
	static const double target[2] = { 0.75, 0.25 };
	struct smpol_record_node in = {
		.requested = "weighted", .applied = "weighted", .path = "weighted",
		.policy = "weighted interleave:0-1", .ntasks = 2, .nsamples = 1,
		.last_time = 1700000000, .max_node = 1, .last = last, .peak = peak, .target = target,
	};
	char err[SMPOL_ERRLEN] = "";
	json_object *entry = NULL;
	int rc = smpol_record_entry_build(&in, &entry, err, sizeof(err));

	fuzz_check(rc == 0, "entry build: %s", err);
	return entry;
}

/* A step list read, written and read again: the same steps. */
static void check_step_ids(const char *text)
{
	struct smpol_step_ids a, b;
	char err[SMPOL_ERRLEN] = "", *written, *again;
	int rc;

	smpol_step_ids_init(&a);
	smpol_step_ids_init(&b);
	rc = smpol_step_ids_parse(text, &a, err, sizeof(err));
	fuzz_check(rc == 0 || ((rc == -EINVAL || rc == -E2BIG) && err[0]), "step list rc %d err '%s'", rc, err);
	if (rc == 0) {
		written = smpol_step_ids_format(&a);
		fuzz_check(written != NULL, "step list not written");
		fuzz_check(smpol_step_ids_parse(written, &b, err, sizeof(err)) == 0, "'%.200s' not read back: %s",
			   written, err);
		again = smpol_step_ids_format(&b);
		fuzz_check(smpol_step_ids_count(&a) == smpol_step_ids_count(&b) && again && !strcmp(written, again),
			   "'%.200s' read back as '%.200s'", written, again ? again : "");
		free(written);
		free(again);
	}
	smpol_step_ids_free(&a);
	smpol_step_ids_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static json_object *entry;
	char *comment = fuzz_string(data, size), *merged = NULL, *again = NULL;
	char err[SMPOL_ERRLEN] = "";
	json_object *record = NULL;
	int rc;

	if (!entry)
		entry = make_entry();
	check_step_ids(comment);
	rc = smpol_record_find(comment, &record, err, sizeof(err));
	fuzz_check(rc == 0 || rc == -ENOENT || (rc == -EBADMSG && err[0]), "find rc %d err '%s'", rc, err);
	if (!rc)
		json_object_put(record);
	rc = smpol_record_merge(comment, 0, "0", "node1", entry, SMPOL_RECORD_BUDGET, &merged, err, sizeof(err));
	if (rc) {
		fuzz_check(rc < 0 && err[0], "merge rc %d without a sentence", rc);
		goto out;
	}
	fuzz_check(merged != NULL, "merge returned no text");
	/* a summary whose names were dropped before (nameless in the input) counts the
	 * node without naming it */
	fuzz_check(smpol_record_contains(merged, 0, "0", "node1", entry) || smpol_record_names_dropped(merged, 0, "0", "node1"),
		   "merged comment lacks the entry: '%.300s'", merged);
	record = NULL;
	rc = smpol_record_find(merged, &record, err, sizeof(err));
	fuzz_check(rc == 0, "merged record not found (%d): %s", rc, err);
	json_object_put(record);
	/* a small budget folds steps into summaries, which must still name the node unless
	 * even the written step's names had to go */
	rc = smpol_record_merge(merged, 0, "batch", "node2", entry, SMALL_BUDGET, &again, err, sizeof(err));
	fuzz_check(rc == 0 || (rc == -E2BIG && err[0]), "small-budget merge rc %d err '%s'", rc, err);
	if (!rc)
		fuzz_check(smpol_record_contains(again, 0, "batch", "node2", entry) ||
			   smpol_record_names_dropped(again, 0, "batch", "node2"),
			   "small-budget merge lacks the entry: '%.300s'", again);
	/* plain text with no record of ours is kept in front of the marker (a comment of
	 * only whitespace counts as empty, record.h) */
	if (comment[strspn(comment, " \t\r\n")] && !strchr(comment, '{') && !strchr(comment, '['))
		fuzz_check(!strncmp(merged, comment, strlen(comment)), "text '%.200s' was not kept", comment);
out:
	free(again);
	free(merged);
	free(comment);
	return 0;
}
