/* record_store.h - put a node's entry into a comment that other writers share.
 *
 * Slurm offers no compare-and-swap on AdminComment: the nodes of a multi-node step
 * (and parallel steps of one job) each read, merge and write it, and a write based on
 * an older read silently drops entries. The protocol here makes that loss visible and
 * repairs it: read; if our entry is missing, merge it into what was read and write;
 * pause a random while (so a writer that read before our write has written by then);
 * read again. Done when our entry was seen in two reads in a row with a pause between;
 * after a loss the entry is merged into the newer comment, which keeps the other
 * writer's entry too. Bounded by max_attempts reads.
 *
 * The residual risks: a writer whose read-merge-write takes longer than the pauses
 * (about 0.1-0.4 s) can still drop our entry after we stopped looking; and in a step
 * summary whose node names were dropped to fit (record.h), a loss cannot be seen at
 * all (our entry is folded in once and taken as kept).
 */
#ifndef SMPOL_RECORD_STORE_H
#define SMPOL_RECORD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "site_config.h"

struct smpol_comment_store {
	/* the current comment, malloc'ed ("" when none); 0 or -errno with a sentence */
	int (*read)(void *ctx, char **comment, char *err, size_t errlen);
	/* replace the comment; 0 or -errno with a sentence */
	int (*write)(void *ctx, const char *comment, char *err, size_t errlen);
	/* wait before the next read; NULL = a random 50-150 ms, doubled per attempt up to 4x */
	void (*pause)(void *ctx, int attempt);
	void *ctx;
	uint32_t run;           /* the job's run whose field this is (record.h: smpol_record_run) */
};

struct smpol_store_result {
	int reads;
	int writes;
	int losses;             /* times our entry had vanished after we wrote it */
	json_object *record;    /* on success: our record as the confirming read had it
	                         * (a new reference, NULL when none; json_object_put it) */
	bool beside_jobstats;   /* set by the plugin's writers: the record went to
	                         * SystemComment, AdminComment holding a jobstats summary */
	uint32_t job_nodes;     /* set by the plugin's writers: the job's node count as
	                         * slurmctld answered their read (0: not known) */
};

/*
 * smpol_record_store - make the comment hold ENTRY under step/node (smpol_record_merge
 * with budget). 0 when it was confirmed; -EAGAIN when max_attempts reads did not
 * confirm it; a read, write or merge error as returned by them. res may be NULL.
 */
int smpol_record_store(const struct smpol_comment_store *store, const char *step, const char *node,
		      json_object *entry, size_t budget, int max_attempts,
		      struct smpol_store_result *res, char *err, size_t errlen);

/*
 * smpol_record_store_steps - the same for every {NODE:ENTRY} of every step of steps
 * ({STEP:{NODE:ENTRY}}, merged in that order, so oldest first): one read, one write
 * and the confirming reads for them all, where one store per step would repeat them
 * (a node's courier delivering a job's spooled steps). -EINVAL, before any read, when
 * steps is not what a merge takes (smpol_record_check_steps).
 * confirmations as smpol_record_store_nodes'.
 */
int smpol_record_store_steps(const struct smpol_comment_store *store, json_object *steps, size_t budget,
			     int max_attempts, int confirmations, struct smpol_store_result *res, char *err,
			     size_t errlen);

/*
 * smpol_record_store_nodes - the same for every {NODE:ENTRY} of entries, with
 * `confirmations` reads (at least 1) that must see them all, one pause apart (2
 * above). 1: a writer that no other writer of ours races (a step's collector under
 * the node lock) reads, merges, writes and reads its write back: 2 reads, 1 write.
 */
int smpol_record_store_nodes(const struct smpol_comment_store *store, const char *step, json_object *entries,
			     size_t budget, int max_attempts, int confirmations,
			     struct smpol_store_result *res, char *err, size_t errlen);

/*
 * smpol_record_store_copy - make the comment hold every entry of record, a whole copy
 * of the job's record that a node kept (record_recheck.h): the entries the comment's
 * record of the copy's run is missing are merged back within budget, entries there
 * stay as they are (record_merge_back.h); a comment with no record of that run gets the
 * copy whole. Confirmed by two reads, as nodes of one job may each merge their copy
 * at once.
 */
int smpol_record_store_copy(const struct smpol_comment_store *store, json_object *record, size_t budget,
			    struct smpol_store_result *res, char *err, size_t errlen);

/* A store's pause for writers that the node lock already orders: none. */
void smpol_record_no_pause(void *ctx, int attempt);

/* The bytes our record may take in target's field before it is folded (record.h). */
size_t smpol_record_budget(enum smpol_record_target target);

/*
 * smpol_record_store_field - smpol_record_store_steps as every writer of the plugin
 * stores into a job's field: target's budget, a bounded number of reads, and 1
 * confirming read for the steps' only writer (sole_writer), 2 otherwise.
 */
int smpol_record_store_field(const struct smpol_comment_store *store, enum smpol_record_target target,
			     json_object *steps, bool sole_writer, struct smpol_store_result *res, char *err,
			     size_t errlen);

#endif
