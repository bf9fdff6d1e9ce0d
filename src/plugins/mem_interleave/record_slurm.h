/* record_slurm.h - slurmstepd (root): the Slurm side of the placement record. Reads and
 * writes the job's record field through slurmctld (through slurmdbd once the job has
 * ended, record_ended.h), and hands a node's entry to the step's collector through slurmd
 * (REQUEST_FORWARD_DATA, record_gather.h). */
#ifndef MEM_INTERLEAVE_RECORD_SLURM_H
#define MEM_INTERLEAVE_RECORD_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "record.h"
#include "record_store.h"
#include "site_config.h"

/* Whether this build and process can write the record into target; -ENOSYS with a
 * sentence when not (no Slurm API in this process, or Extra before Slurm 23.02). */
int record_slurm_check(enum smpol_record_target target, char *err, size_t errlen);

/*
 * record_slurm_store - put steps ({STEP:{NODE:ENTRY}}, oldest first) of the job's run
 * into the target field, in one store (record_store.h: smpol_record_store_steps).
 * Every write is read back: the read-write-confirm protocol of record_store.h, with
 * one confirming read for the step's only writer (sole_writer: its collector, or a
 * spooled record's delivery), two otherwise; pause: whether confirming reads pause
 * (false when the node lock already orders every writer). Through slurmctld while the
 * job runs that run; once it has ended (slurmctld: "Job has already finished", the
 * job is gone, or it was requeued: its restart count is past run's), through slurmdbd
 * into that run's row by the program dbd_client (record_ended.h), and *through then
 * says so (else ""). Where AdminComment holds a jobstats summary, the record goes to
 * the run's SystemComment, which only slurmdbd takes (once the run has ended): *through
 * says so and res->beside_jobstats is set. res may be NULL; res->record is our record
 * as the confirming read had it (json_object_put it), res->job_nodes the job's node
 * count as slurmctld answered the last read (0: none answered). 0 or -errno with a sentence:
 * -ECONNREFUSED neither answered (try later; a running job's record for SystemComment
 * too), others refused for good.
 */
int record_slurm_store(enum smpol_record_target target, const char *dbd_client, const struct smpol_record_run *run,
		     json_object *steps, bool sole_writer, bool pause, struct smpol_store_result *res,
		     const char **through, char *err, size_t errlen);

/* Whether this process's slurm.conf names an EpilogSlurmctld (where jobstats writes
 * its summary from); slurmd's, in the courier. */
bool record_slurm_ctld_epilog(void);

/* Host `index` (0 = the first) of a Slurm host list ("n[3-5],m1", 1 -> "n4") into buf.
 * 0 or -EINVAL. */
int record_slurm_nth_host(const char *nodelist, uint32_t index, char *buf, size_t len);

/* The step's nodes in step order, as slurmctld laid the step out (the job cannot change
 * it, unlike its SLURM_STEP_NODELIST): *hosts a new JSON array of names. One RPC to
 * slurmctld, which answers only while the job runs. 0 or -errno with a sentence. */
int record_slurm_step_hosts(uint32_t job, uint32_t step, json_object **hosts, char *err, size_t errlen);

/* Deliver message to the unix socket path on host through its slurmd. 0, -ENOENT
 * when nothing listens there (not yet, or no more), or -EHOSTUNREACH (slurmd
 * unreachable, anything else), with a sentence. */
int record_slurm_forward(const char *host, const char *path, const char *message, char *err, size_t errlen);

#endif
