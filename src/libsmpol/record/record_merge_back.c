/* record_merge_back.c - a kept copy's entries merged back where the field lost them (see
 * record_merge_back.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "record.h"
#include "record_json.h"
#include "record_merge_back.h"

/* Our record in comment when it is of copy's run (a new reference), else NULL: nothing
 * can be compared. */
static json_object *same_run(const char *comment, json_object *copy)
{
	json_object *there;

	if (smpol_record_find(comment, &there, NULL, 0) == 0 && smpol_record_run_of(there) == smpol_record_run_of(copy))
		return there;
	json_object_put(there);
	return NULL;
}

/* {NODE:ENTRY} of step's detail entries in copy that there (the comment's record of the
 * run) has nothing of, a new object (empty when none). */
static json_object *step_missing(json_object *there, uint32_t run, const char *step, json_object *nodes)
{
	json_object *missing = json_object_new_object();

	if (!json_object_is_type(nodes, json_type_object))
		return missing;
	json_object_object_foreach(nodes, node, entry) {
		if (strcmp(node, SMPOL_RECORD_SUMMARY) && !smpol_record_holds(there, run, step, node, NULL) &&
		    !smpol_record_holds_dropped(there, run, step, node))
			json_object_object_add(missing, node, json_object_get(entry));
	}
	return missing;
}

/* copy's steps ({STEP:{NODE:ENTRY}}), NULL when it has none. */
static json_object *copy_steps(json_object *copy)
{
	json_object *steps = smpol_rec_get(copy, SMPOL_REC_STEPS);

	return json_object_is_type(steps, json_type_object) ? steps : NULL;
}

bool smpol_record_holds_copy(json_object *record, json_object *copy)
{
	json_object *steps = copy_steps(copy);
	uint32_t run = smpol_record_run_of(copy);
	bool all = record && smpol_record_run_of(record) == run;

	if (all && steps) {
		json_object_object_foreach(steps, step, nodes) {
			json_object *missing = step_missing(record, run, step, nodes);

			all = json_object_object_length(missing) == 0;
			json_object_put(missing);
			if (!all)
				break;
		}
	}
	return all;
}

bool smpol_record_has_all(const char *comment, json_object *copy)
{
	json_object *there = same_run(comment, copy);
	bool all = smpol_record_holds_copy(there, copy);

	json_object_put(there);
	return all;
}

int smpol_record_merge_back(const char *comment, json_object *copy, size_t budget, char **merged, int *count,
			       char *err, size_t errlen)
{
	json_object *steps = copy_steps(copy), *there = same_run(comment, copy);
	uint32_t run = smpol_record_run_of(copy);
	char *text;
	int rc = 0, n = 0;

	*merged = NULL;
	if (!there) {
		if (count)
			*count = -1;
		return smpol_record_put(comment, copy, merged, err, errlen);
	}
	text = strdup(comment);
	if (!text) {
		json_object_put(there);
		return smpol_fail(err, errlen, ENOMEM, "out of memory merging the placement record");
	}
	if (steps) {
		json_object_object_foreach(steps, step, nodes) {
			json_object *missing = step_missing(there, run, step, nodes);
			char *next = NULL;

			if (json_object_object_length(missing) > 0) {
				n += json_object_object_length(missing);
				rc = smpol_record_merge_nodes(text, run, step, missing, budget, &next, err, errlen);
				free(text);
				text = next;
				/* the next steps are compared with the record as merged so far (a
				 * fold may have taken them in) */
				json_object_put(there);
				there = rc == 0 ? same_run(text, copy) : NULL;
			}
			json_object_put(missing);
			if (rc < 0)
				return rc;
		}
	}
	json_object_put(there);
	*merged = text;
	if (count)
		*count = n;
	return 0;
}
