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

int smpol_record_store(const struct smpol_comment_store *store, const char *step, const char *node,
		      json_object *entry, size_t budget, int max_attempts,
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
		if (smpol_record_contains(comment, step, node, entry)) {
			free(comment);
			if (++seen == CONFIRMATIONS)
				break;
			continue;
		}
		if (written)
			local.losses++;
		seen = 0;
		rc = smpol_record_merge(comment, step, node, entry, budget, &merged, err, errlen);
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
	if (rc == 0 && seen < CONFIRMATIONS)
		rc = smpol_fail(err, errlen, EAGAIN,
			       "the placement record of step %s on %s was overwritten by other writers "
			       "%d times in %d tries; it may be missing from AdminComment",
			       step, node, local.losses, local.reads);
	if (res)
		*res = local;
	return rc;
}
