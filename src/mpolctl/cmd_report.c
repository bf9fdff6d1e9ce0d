#include <stdio.h>
#include "commands.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "mpolctl report: not built yet\n");
	return 1;
}
