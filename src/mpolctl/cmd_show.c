#include <stdio.h>
#include "commands.h"

int cmd_show(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "mpolctl show: not built yet\n");
	return 1;
}
