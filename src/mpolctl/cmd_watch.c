#include <stdio.h>
#include "commands.h"

int cmd_watch(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "mpolctl watch: not built yet\n");
	return 1;
}
