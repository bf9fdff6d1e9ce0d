/* record_store.c - the read, merge, write and read-back protocol that keeps a node's
 * entry in a shared comment (see record_store.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "error.h"
#include "record.h"
#include "record_fold.h"
#include "record_merge_back.h"
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

/* What one run of the protocol puts into the comment. */
struct wanted {
	/* whether record (ours in the comment read, NULL: none) holds it; written:
	 * whether our write went in before */
	bool (*held)(const struct wanted *w, json_object *record, bool written);
	/* comment with it put in (*merged malloc'ed) */
	int (*merge)(const struct wanted *w, const char *comment, char **merged, char *err, size_t errlen);
	json_object *steps;             /* store_steps: {STEP:{NODE:ENTRY}}, and the budget */
	size_t budget;
	json_object *record;            /* store_copy: the copy */
	uint32_t run;                   /* the job's run whose field it is (store->run) */
};

/* Whether record (ours in the comment, NULL: none) holds every entry of every step of
 * steps (a node without one, {NODE:null}: any entry of it, or its name as missing). A
 * summary or folded part whose names were dropped can tell neither way: before our
 * write that counts as missing (we fold ours in), after it as held (a loss there
 * cannot be seen). */
static bool holds_all(const struct wanted *w, json_object *record, bool written)
{
	json_object_object_foreach(w->steps, step, entries) {
		json_object_object_foreach(entries, node, entry) {
			if (!smpol_record_holds(record, w->run, step, node, entry) &&
			    !(!entry && smpol_record_holds_missing(record, w->run, step, node)) &&
			    !(written && smpol_record_holds_dropped(record, w->run, step, node)))
				return false;
		}
	}
	return true;
}

static int merge_steps(const struct wanted *w, const char *comment, char **merged, char *err, size_t errlen)
{
	return smpol_record_merge_steps(comment, w->run, w->steps, w->budget, merged, err, errlen);
}

/* "of step S" or "of N steps" for a sentence about steps ("" for a copy). */
static void steps_said(const struct wanted *w, char *buf, size_t len)
{
	int n = w->steps ? json_object_object_length(w->steps) : 0;

	buf[0] = '\0';
	if (n == 1) {
		json_object_object_foreach(w->steps, step, entries) {
			(void)entries;
			snprintf(buf, len, " of step %s", step);
		}
	} else if (n > 1) {
		snprintf(buf, len, " of %d steps", n);
	}
}

/* The read, write and confirm loop of record_store.h for want. res->record: our record
 * as the confirming read had it. */
static int store_loop(const struct smpol_comment_store *store, const struct wanted *want, int max_attempts,
		      int confirmations, struct smpol_store_result *res, char *err, size_t errlen)
{
	struct smpol_store_result local = { 0 };
	json_object *held = NULL;        /* our record as the last read that held it had it */
	bool written = false;
	int seen = 0, rc = 0;

	for (int attempt = 0; attempt < max_attempts; attempt++) {
		char *comment = NULL, *merged = NULL;
		json_object *record;

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
		/* parsed once for the question; a merge parses it again to change it */
		smpol_record_find(comment, &record, NULL, 0);   /* NULL when it holds none */
		if (want->held(want, record, written)) {
			free(comment);
			json_object_put(held);
			held = record;
			if (++seen >= confirmations)
				break;
			continue;
		}
		json_object_put(record);
		if (written)
			local.losses++;
		seen = 0;
		rc = want->merge(want, comment, &merged, err, errlen);
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
	if (rc == 0 && seen < confirmations) {
		char which[48];

		steps_said(want, which, sizeof(which));
		rc = smpol_fail(err, errlen, EAGAIN, "the placement record%s was overwritten by other writers %d "
			       "times in %d tries; it may be missing from the field", which, local.losses, local.reads);
	}
	if (rc == 0) {
		local.record = held;
		held = NULL;
	}
	json_object_put(held);
	if (res)
		*res = local;
	else
		json_object_put(local.record);
	return rc;
}

int smpol_record_store_steps(const struct smpol_comment_store *store, json_object *steps, size_t budget,
			     int max_attempts, int confirmations, struct smpol_store_result *res, char *err,
			     size_t errlen)
{
	struct wanted want = { holds_all, merge_steps, steps, budget, NULL, store->run };
	int rc = smpol_record_check_steps(steps, err, errlen);   /* before any read */

	return rc < 0 ? rc : store_loop(store, &want, max_attempts, confirmations, res, err, errlen);
}

int smpol_record_store_nodes(const struct smpol_comment_store *store, const char *step, json_object *entries,
			     size_t budget, int max_attempts, int confirmations,
			     struct smpol_store_result *res, char *err, size_t errlen)
{
	json_object *steps;
	int rc = smpol_record_one_step(step, entries, &steps, err, errlen);

	if (rc == 0)
		rc = smpol_record_store_steps(store, steps, budget, max_attempts, confirmations, res, err, errlen);
	json_object_put(steps);
	return rc;
}

/* Whether record is of the copy's run with every entry of the copy
 * (record_merge_back.h). */
static bool holds_copy(const struct wanted *w, json_object *record, bool written)
{
	(void)written;
	return smpol_record_holds_copy(record, w->record);
}

static int merge_copy(const struct wanted *w, const char *comment, char **merged, char *err, size_t errlen)
{
	return smpol_record_merge_back(comment, w->record, w->budget, merged, NULL, err, errlen);
}

int smpol_record_store_copy(const struct smpol_comment_store *store, json_object *record, size_t budget,
			    struct smpol_store_result *res, char *err, size_t errlen)
{
	struct wanted want = { holds_copy, merge_copy, NULL, budget, record, store->run };

	return store_loop(store, &want, FIELD_ATTEMPTS, CONFIRMATIONS, res, err, errlen);
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

size_t smpol_record_budget(enum smpol_record_target target)
{
	return target == SMPOL_RECORD_EXTRA ? SMPOL_RECORD_BUDGET_EXTRA : SMPOL_RECORD_BUDGET;
}

int smpol_record_store_field(const struct smpol_comment_store *store, enum smpol_record_target target,
			     json_object *steps, bool sole_writer, struct smpol_store_result *res, char *err,
			     size_t errlen)
{
	return smpol_record_store_steps(store, steps, smpol_record_budget(target), FIELD_ATTEMPTS,
					sole_writer ? 1 : CONFIRMATIONS, res, err, errlen);
}
