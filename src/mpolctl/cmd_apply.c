#include <stdio.h>
#include "commands.h"

int cmd_apply(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "mpolctl apply: not built yet\n");
	return 1;
}
