#include <stdio.h>
#include "commands.h"

int cmd_rebalance(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "mpolctl rebalance: not built yet\n");
	return 1;
}
