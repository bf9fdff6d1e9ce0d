/* record_print.h - `mpolctl report`'s tables: a placement record (record.h), its steps
 * in detail first, then what was folded to fit the field, each part saying what it
 * folds. Text from the record is printed escaped (text.h). */
#ifndef MPOLCTL_RECORD_PRINT_H
#define MPOLCTL_RECORD_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "topology.h"

struct record_print {
	const char *job;
	int unit_kib;                           /* the record's page unit */
	const struct smpol_topology *local;     /* this host's, for kinds the record lacks; NULL */
	const char *local_host;                 /* this host's short name */
};

/* record_print - print record's steps and folded parts; with step (not ""), only the
 * step in detail and the folded parts that list it (or count steps they no longer
 * list). */
void record_print(const struct record_print *p, json_object *record, const char *step);

/* record_holds - whether record has step in detail, or a folded part that lists it
 * (or counts steps it no longer lists). */
bool record_holds(json_object *record, const char *step);

/* record_has_node - whether record has an entry of node, in detail or folded. */
bool record_has_node(json_object *record, const char *node);

/*
 * record_steps - the steps record counts, in detail or folded, as a list
 * ("0-131,140,batch", step_ids.h; malloc'ed, NULL when out of memory); *unlisted:
 * the steps counted by folded parts that lost their list, which it cannot name.
 */
char *record_steps(json_object *record, size_t *unlisted);

/* record_keep_step - remove from record (a copy the caller owns) what does not hold
 * step: its other steps, and the folded parts that do not list it. */
void record_keep_step(json_object *record, const char *step);

#endif
