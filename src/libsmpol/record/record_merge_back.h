/* record_merge_back.h - the entries a node's kept copy of a job's record holds that the
 * job's field lost, and the field with them merged back.
 *
 * Writers of one job on different nodes read, merge and write one field, and a write
 * based on an older read drops what another node wrote since (record_store.h): a
 * one-node step of a multi-node job confirms with one read and no pause, so two of
 * them on two nodes can each miss the other's write. The node keeps its record as its
 * confirming read had it (record_recheck.h); once the job has ended, no step races
 * the field and the entries of the copy that it lost are merged back.
 *
 * An entry is missing where the field's record of the copy's run has nothing of that
 * step on that node: no entry (an entry that differs is the node's newer one and
 * stays), no summary or folded part naming the node, none whose names were dropped
 * (it neither shows nor denies the entry: merged again, it would count twice). Only
 * the copy's entries in detail are compared: a step the copy summarized ("*") or
 * folded is counted there already and cannot be taken apart again.
 */
#ifndef SMPOL_RECORD_MERGE_BACK_H
#define SMPOL_RECORD_MERGE_BACK_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* Whether comment holds a record of copy's run with none of copy's entries missing. */
bool smpol_record_has_all(const char *comment, json_object *copy);

/* The same of a record found already (smpol_record_find; NULL: none). */
bool smpol_record_holds_copy(json_object *record, json_object *copy);

/*
 * smpol_record_merge_back - comment with the entries of copy (our whole record) that
 * it is missing merged back, each step's by smpol_record_merge_nodes within budget;
 * where comment holds no record of copy's run, copy put whole (smpol_record_put).
 * *merged is malloc'ed; *count (may be NULL) the entries merged, or -1 for a copy put
 * whole. 0 or -errno with a sentence (-EEXIST on a jobstats summary).
 */
int smpol_record_merge_back(const char *comment, json_object *copy, size_t budget, char **merged, int *count,
			       char *err, size_t errlen);

#endif
