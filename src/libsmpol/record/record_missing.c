/* record_missing.c - the nodes a step's record was written without (see
 * record_missing.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "record_json.h"
#include "record_missing.h"
#include "step_ids.h"

/* The steps node is named missing from, into ids (empty when none, or unreadable). */
static void read_node(json_object *record, const char *node, struct smpol_step_ids *ids)
{
	json_object *v = smpol_rec_get(smpol_rec_get(record, SMPOL_REC_MISSING), node);

	smpol_step_ids_init(ids);
	if (json_object_is_type(v, json_type_string))
		smpol_step_ids_parse(json_object_get_string(v), ids, NULL, 0);
}

/* node's list becomes ids; an empty list goes, and the part with its last node. */
static void write_node(json_object *record, const char *node, const struct smpol_step_ids *ids)
{
	json_object *missing = smpol_rec_child(record, SMPOL_REC_MISSING);
	char *text = smpol_step_ids_count(ids) ? smpol_step_ids_format(ids) : NULL;

	if (text)
		json_object_object_add(missing, node, json_object_new_string(text));
	else
		json_object_object_del(missing, node);
	if (json_object_object_length(missing) == 0)
		json_object_object_del(record, SMPOL_REC_MISSING);
	free(text);
}

void smpol_record_missing_add(json_object *record, const char *step, const char *node)
{
	struct smpol_step_ids ids;

	read_node(record, node, &ids);
	if (!smpol_step_ids_has(&ids, step) && smpol_step_ids_add(&ids, step, NULL, 0) == 0)
		write_node(record, node, &ids);
	smpol_step_ids_free(&ids);
}

void smpol_record_missing_drop(json_object *record, const char *step, const char *node)
{
	struct smpol_step_ids ids;

	read_node(record, node, &ids);
	if (smpol_step_ids_has(&ids, step)) {
		smpol_step_ids_remove(&ids, step);
		write_node(record, node, &ids);
	}
	smpol_step_ids_free(&ids);
}

bool smpol_record_missing_has(json_object *record, const char *step, const char *node)
{
	struct smpol_step_ids ids;
	bool has;

	read_node(record, node, &ids);
	has = smpol_step_ids_has(&ids, step);
	smpol_step_ids_free(&ids);
	return has;
}
