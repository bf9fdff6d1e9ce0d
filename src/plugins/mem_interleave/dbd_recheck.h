/* dbd_recheck.h - mem_interleave_dbd --recheck: the AdminComment of a job's run (its
 * row in accounting) looked at again, after the run's end, with a copy of our record
 * that a node kept (record_recheck.h).
 *
 * One line on standard output says what was found, for the plugin's courier:
 *   pending                  slurmdbd has not recorded the run's end yet
 *   kept END                 AdminComment still holds our record
 *   moved END R W L          a jobstats summary had replaced it: the copy is now in
 *                            SystemComment (R reads, W writes, L losses), read back
 *   gone END                 other text replaced it, which is left as it is
 *   failed ERRNO SENTENCE
 * END is the run's end (Unix time) as slurmdbd has it.
 */
#ifndef MEM_INTERLEAVE_DBD_RECHECK_H
#define MEM_INTERLEAVE_DBD_RECHECK_H

#include <stdint.h>

#include <json-c/json.h>

#include "record.h"

/* Look at the record fields of run's row with record, the copy, and print the line. */
void dbd_recheck(const struct smpol_record_run *run, json_object *record);

#endif
