/* accounting.c - PLACEHOLDER until the accounting work lands: records nothing. */
#include "accounting.h"

int accounting_step_begin(const struct step_placement *sp, char *err, size_t errlen)
{
	(void)sp;
	(void)err;
	(void)errlen;
	return 0;
}

void accounting_task_begin(pid_t pid)
{
	(void)pid;
}

void accounting_step_end(void)
{
}
