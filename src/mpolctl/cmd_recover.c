#include <stdio.h>
#include "commands.h"

int cmd_recover(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "mpolctl recover: not built yet\n");
	return 1;
}
