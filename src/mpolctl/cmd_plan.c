#include <stdio.h>
#include "commands.h"

int cmd_plan(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "mpolctl plan: not built yet\n");
	return 1;
}
