/* record_write.h - slurmstepd (root), and slurmd's courier: this node's writes of
 * placement records, each read back (record_slurm.h), through slurmctld while the job
 * runs and slurmdbd once it has ended. Where the node's courier listens (record_courier.h),
 * a step hands its record to it through the spool (record_spool.h) and does not wait for
 * the write; otherwise the step writes it itself at its end. The node's writers (the
 * courier, steps, a step's collector) take turns under a flock on STATEDIR/record.lock;
 * what neither slurmctld nor slurmdbd takes because it does not answer waits in the
 * spool until the step's end, the courier or the node's next steps deliver it. */
#ifndef MEM_INTERLEAVE_RECORD_WRITE_H
#define MEM_INTERLEAVE_RECORD_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "record.h"
#include "site_config.h"

struct record_write {
	const struct smpol_site_config *site;   /* record=, statedir */
	struct smpol_record_run run;           /* the job, its run (requeues), the step's start */
	const char *step;                      /* as the record names it */
	uint32_t step_nnodes;                  /* >1: other nodes' writers may race */
};

/* Write entries ({NODE:ENTRY}) of the step into the record field; sole_writer: the
 * step's collector that got every entry (one read, one write, one read back, when it
 * holds the node lock). Logs the outcome; true when they went to the spool because
 * slurmctld did not answer, so the step's end retries them (a job that has ended, whose
 * record slurmdbd did not take yet, is left to the node's next steps). */
bool record_write_entries(const struct record_write *w, json_object *entries, bool sole_writer, const char *how);

/* Hand entries ({NODE:ENTRY}) of the step to the node's courier: put them into the
 * spool, which wakes it. Only where a courier listens and the spool is short (an outage
 * fills it: the step then writes, and waits, itself). listening: the step's start found
 * it listening (record_write_deliver_others), and it is not asked again. Logs the
 * hand-over, with how the entries were gathered; false: not handed over (write them). */
bool record_write_to_courier(const struct record_write *w, json_object *entries, bool listening, const char *how);

/* Deliver this step's spooled record, every 2 s for up to 3 min while neither
 * slurmctld nor slurmdbd answers. */
void record_write_retry_own(const struct record_write *w);

/* Deliver a few spooled records of earlier steps (a step start's share, where no
 * courier listens); true: a courier listens, and delivers them. */
bool record_write_deliver_others(const struct record_write *w);

/* A run of a job whose records the courier delivered within RECORD_PACE_MS waits
 * until then: its steps' records gather in the spool and go in one write, so that a
 * workflow of many short steps costs slurmctld a write a second, not one per step
 * (each takes its job lock, which the next step's launch waits for). A job's first
 * record goes at once. */
#define RECORD_PACE_MS 1000
#define RECORD_PACE_RUNS 64

struct record_paced {
	uint32_t job, run;
	int64_t at_ms;          /* CLOCK_MONOTONIC ms of its last delivery, 0: none */
};

struct record_pace {
	struct record_paced runs[RECORD_PACE_RUNS];     /* the runs delivered last */
};

/* CLOCK_MONOTONIC in ms, the pace's clock. */
int64_t record_pace_now_ms(void);

/* Whether the spooled record named name (a spool file's name) is of a run held back by
 * its pace at now (record_pace_now_ms): it waits for the round at *due, which is
 * lowered to that run's (0: not set yet). */
bool record_write_paced(const struct record_pace *pace, const char *name, int64_t now, int64_t *due);

/* Deliver every spooled record of the node but w's own (the courier's round, with job
 * 0: none), those of one run of a job in one store, paced by pace; say: log where
 * slurmctld or slurmdbd does not answer (the first refused round). *wait_ms: how long
 * until the earliest run held back by its pace may go (0: none held). 0, or
 * -ECONNREFUSED when one did not answer (the rest waits for the next round). */
int record_write_deliver_all(const struct record_write *w, bool say, struct record_pace *pace, int *wait_ms);

/* Look again, after their job's end, at the records this node wrote that are due
 * (record_recheck.h; the courier's round): entries another node's write dropped are
 * merged back, and a jobstats summary put over one moves it to SystemComment.
 * *next: when the earliest not due yet will be (0: none). 0, or -ECONNREFUSED when
 * slurmdbd did not answer (the rest waits for the next round). */
int record_write_recheck(const struct record_write *w, int64_t *next);

#endif
