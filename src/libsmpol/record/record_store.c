/* record_store.c - the read, merge, write and read-back protocol that keeps a node's
 * entry in a shared comment (see record_store.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "error.h"
#include "record.h"
#include "record_store.h"

/* Reads that must see our entry, one pause apart, before we trust it stays. */
#define CONFIRMATIONS 2
/* Reads before giving up on confirming a record that other writers race. */
#define FIELD_ATTEMPTS 10

static void random_pause(int attempt)
{
	unsigned r = 0;
	long ms;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (unsigned)clock();
	/* nodes of one step end together: random, so that they fall out of step */
	ms = (50 + (long)(r % 100)) << (attempt < 2 ? attempt : 2);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Whether comment holds every entry of entries. A summary or folded part whose names
 * were dropped can tell neither way: before our write that counts as missing (we fold
 * ours in), after it as held (a loss there cannot be seen). */
static bool holds_all(const char *comment, uint32_t run, const char *step, json_object *entries, bool written)
{
	json_object_object_foreach(entries, node, entry) {
		if (!smpol_record_contains(comment, run, step, node, entry) &&
		    !(written && smpol_record_names_dropped(comment, run, step, node)))
			return false;
	}
	return true;
}

int smpol_record_store_nodes(const struct smpol_comment_store *store, const char *step, json_object *entries,
			     size_t budget, int max_attempts, int confirmations,
			     struct smpol_store_result *res, char *err, size_t errlen)
{
	struct smpol_store_result local = { 0 };
	bool written = false;
	int seen = 0, rc = 0;

	for (int attempt = 0; attempt < max_attempts; attempt++) {
		char *comment = NULL, *merged = NULL;

		if (attempt > 0) {
			if (store->pause)
				store->pause(store->ctx, attempt);
			else
				random_pause(attempt - 1);
		}
		rc = store->read(store->ctx, &comment, err, errlen);
		local.reads++;
		if (rc < 0)
			break;
		if (holds_all(comment, store->run, step, entries, written)) {
			free(comment);
			if (++seen >= confirmations)
				break;
			continue;
		}
		if (written)
			local.losses++;
		seen = 0;
		rc = smpol_record_merge_nodes(comment, store->run, step, entries, budget, &merged, err, errlen);
		free(comment);
		if (rc == 0) {
			rc = store->write(store->ctx, merged, err, errlen);
			local.writes++;
			written = true;
		}
		free(merged);
		if (rc < 0)
			break;
	}
	if (rc == 0 && seen < confirmations)
		rc = smpol_fail(err, errlen, EAGAIN,
			       "the placement record of step %s was overwritten by other writers "
			       "%d times in %d tries; it may be missing from AdminComment",
			       step, local.losses, local.reads);
	if (res)
		*res = local;
	return rc;
}

int smpol_record_store(const struct smpol_comment_store *store, const char *step, const char *node,
		      json_object *entry, size_t budget, int max_attempts,
		      struct smpol_store_result *res, char *err, size_t errlen)
{
	json_object *entries;
	int rc = smpol_record_one_node(node, entry, &entries, err, errlen);

	if (rc == 0)
		rc = smpol_record_store_nodes(store, step, entries, budget, max_attempts, CONFIRMATIONS, res, err, errlen);
	json_object_put(entries);
	return rc;
}

void smpol_record_no_pause(void *ctx, int attempt)
{
	(void)ctx;
	(void)attempt;
}

int smpol_record_store_field(const struct smpol_comment_store *store, enum smpol_record_target target,
			     const char *step, json_object *entries, bool sole_writer,
			     struct smpol_store_result *res, char *err, size_t errlen)
{
	return smpol_record_store_nodes(store, step, entries,
					target == SMPOL_RECORD_EXTRA ? SMPOL_RECORD_BUDGET_EXTRA : SMPOL_RECORD_BUDGET,
					FIELD_ATTEMPTS, sole_writer ? 1 : CONFIRMATIONS, res, err, errlen);
}
