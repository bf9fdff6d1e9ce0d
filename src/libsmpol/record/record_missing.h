/* record_missing.h - the nodes of a step whose entry a record was written without.
 *
 * A step's writer (its collector, or a node that could not reach it) knows the step's
 * nodes; a node that never hands its entry in (it went down, its slurmstepd was
 * killed, its entry came after the collector stopped waiting) would otherwise simply
 * be absent from the record. The writer hands such a node to smpol_record_merge_nodes
 * as {NODE:null}, and the record names it under
 *   "missing":{NODE:"ids"}
 * the steps (step_ids.h) written without NODE's entry. The node's own entry merged
 * later takes its step off the list. The part sits beside "steps" and "folded", so
 * folding steps keeps it, and readers that do not know it (version 1 and 2 readers
 * before it) pass over it.
 */
#ifndef SMPOL_RECORD_MISSING_H
#define SMPOL_RECORD_MISSING_H

#include <stdbool.h>

#include <json-c/json.h>

/* Name node as missing from step in record (our object); a step that cannot be listed
 * (step_ids.h) is not named. */
void smpol_record_missing_add(json_object *record, const char *step, const char *node);

/* node's entry of step arrived: take the step off node's list. */
void smpol_record_missing_drop(json_object *record, const char *step, const char *node);

/* Whether record names node as missing from step. */
bool smpol_record_missing_has(json_object *record, const char *step, const char *node);

#endif
