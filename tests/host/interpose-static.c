/* interpose-static - a statically linked program: LD_PRELOAD cannot reach it, so the
 * interposer must neither load nor break it; its 16 MiB keep the task's own policy
 * and it prints that policy ("policy default"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char *p = malloc(16 << 20), line[512], want[32];
	FILE *f = fopen("/proc/self/numa_maps", "r");

	if (!p || !f)
		return 1;
	memset(p, 1, 16 << 20);
	/* glibc maps 16 MiB on its own: its mapping starts one page below the pointer */
	snprintf(want, sizeof(want), "%lx ", ((unsigned long)p) & ~4095ul);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			printf("policy %.*s\n", (int)strcspn(line + strlen(want), " "), line + strlen(want));
	fclose(f);
	free(p);
	return 0;
}
