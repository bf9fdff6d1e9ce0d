/* job_id.h - the job ids mpolctl's verbs take, parsed in one place:
 *
 *   JOB[.STEP]     JOB  = a whole number 1-4294967295 (digits only), or where the verb
 *                         allows it an array task ARRAY_TASK (1234_7)
 *                  STEP = a whole number, batch, extern or interactive (step_name.h)
 *
 * `report` takes array tasks (sacct knows a task by that name); `rebalance` does not:
 * scontrol listpids and a task's environment know only the array task's own job id
 * (squeue -o %A, or JobId in scontrol show job 1234_7), and the refusal says so.
 */
#ifndef MPOLCTL_JOB_ID_H
#define MPOLCTL_JOB_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct job_id {
	uint32_t job;            /* JOB, or ARRAY for ARRAY_TASK */
	bool array;              /* ARRAY_TASK */
	uint32_t array_task;
	char job_text[24];       /* the job part as Slurm writes it: "1234", "1234_7" ("01" is "1") */
	char step[24];           /* "" when none was given, else "0" ("00" too), "batch", ... */
};

/* Parse text; allow_array: accept ARRAY_TASK. -EINVAL with a sentence quoting it. */
int job_id_parse(const char *text, bool allow_array, struct job_id *id, char *err, size_t errlen);

#endif
