/* step_name.c - step names and numbers (see step_name.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "number.h"
#include "step_name.h"

static const struct {
	const char *name;
	uint32_t step;
} special[] = {
	{ "batch", SMPOL_STEP_BATCH },
	{ "extern", SMPOL_STEP_EXTERN },
	{ "interactive", SMPOL_STEP_INTERACTIVE },
};

void smpol_step_name(uint32_t step, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (special[i].step == step) {
			snprintf(buf, len, "%s", special[i].name);
			return;
		}
	snprintf(buf, len, "%u", step);
}

int smpol_step_number(const char *name, uint32_t *step, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN];
	uint64_t v;

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(name, special[i].name)) {
			*step = special[i].step;
			return 0;
		}
	if (smpol_number_parse(name, 0, 0, SMPOL_STEP_MAX, &v, NULL, 0) < 0)
		return smpol_fail(err, errlen, EINVAL, "%s names no step: give a number 0-%u, batch, extern "
				  "or interactive", smpol_quote(name, q, sizeof(q)), SMPOL_STEP_MAX);
	*step = (uint32_t)v;
	return 0;
}
