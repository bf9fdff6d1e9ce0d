/* record_ended.h - slurmstepd and slurmd (root): the record of a job that has ended,
 * handed to mem_interleave_dbd (dbd_main.c), which writes it into slurmdbd. A Slurm
 * daemon cannot be a client of slurmdbd itself from Slurm 25.11 on (record_dbd.h); a
 * program of its own works alike on every release. */
#ifndef MEM_INTERLEAVE_RECORD_ENDED_H
#define MEM_INTERLEAVE_RECORD_ENDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "record.h"
#include "record_store.h"
#include "site_config.h"

/*
 * record_ended_store - run client (the plugstack's dbd_client=) on steps ({STEP:{NODE:
 * ENTRY}}) of the job's run (its row in accounting), for target; sole_writer and pause
 * as record_slurm_store's.
 * 0 with res filled (may be NULL), or -errno with a sentence: what the client
 * reported, or -ECONNREFUSED when it could not run or report (missing, killed after
 * its time limit): the record is worth keeping for a later try either way.
 */
int record_ended_store(const char *client, enum smpol_record_target target, const struct smpol_record_run *run,
		       json_object *steps, bool sole_writer, bool pause, struct smpol_store_result *res, char *err,
		       size_t errlen);

/* What a look at a job's record after its end found (dbd_recheck.h). */
enum record_recheck_outcome {
	RECHECK_PENDING,        /* slurmdbd has not recorded the end yet */
	RECHECK_KEPT,           /* the field holds every entry of the copy */
	RECHECK_MERGED,         /* it had lost some: merged back */
	RECHECK_MOVED,          /* a jobstats summary had replaced it: in SystemComment now */
	RECHECK_GONE,           /* other text replaced it, left as it is */
};

struct record_recheck_seen {
	enum record_recheck_outcome outcome;
	int64_t ended;                  /* the job's end (Unix time), 0: not yet */
	struct smpol_store_result res;  /* RECHECK_MERGED, _MOVED: reads, writes, losses */
};

/*
 * record_ended_recheck - run client --recheck on target's field of the job's run (its
 * row in accounting) with record, the copy of our record that this node kept
 * (record_recheck.h), and say what it found. 0, or -errno with a sentence: -ECONNREFUSED when slurmdbd did not
 * answer or the client could not run (look again later), what the client reported
 * otherwise.
 */
int record_ended_recheck(const char *client, enum smpol_record_target target, const struct smpol_record_run *run,
			 json_object *record, struct record_recheck_seen *seen, char *err, size_t errlen);

#endif
