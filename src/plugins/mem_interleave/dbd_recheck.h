/* dbd_recheck.h - mem_interleave_dbd --recheck: the record field of a job's run (its
 * row in accounting) looked at again, after the run's end, with a copy of our record
 * that a node kept (record_recheck.h), and the copy's entries that the field lost
 * merged back (record_merge_back.h).
 *
 * One line on standard output says what was found, for the plugin's courier:
 *   pending                  slurmdbd has not recorded the run's end yet
 *   kept END                 the field holds every entry of the copy
 *   merged END R W L         the field had lost entries of the copy (a writer on
 *                            another node dropped them): merged back (R reads, W
 *                            writes, L losses), read back
 *   moved END R W L          a jobstats summary had replaced the record in
 *                            AdminComment: the copy's entries are in SystemComment,
 *                            read back
 *   gone END                 other text replaced it, which is left as it is
 *   failed ERRNO SENTENCE
 * END is the run's end (Unix time) as slurmdbd has it.
 */
#ifndef MEM_INTERLEAVE_DBD_RECHECK_H
#define MEM_INTERLEAVE_DBD_RECHECK_H

#include <stdint.h>

#include <json-c/json.h>

#include "record.h"
#include "site_config.h"

/* Look at target's field (AdminComment or Extra; SystemComment beside a jobstats
 * summary) of run's row with record, the copy, and print the line. */
void dbd_recheck(const struct smpol_record_run *run, enum smpol_record_target target, json_object *record);

#endif
