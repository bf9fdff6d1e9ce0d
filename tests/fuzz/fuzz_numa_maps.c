/* fuzz_numa_maps.c - smpol_numa_maps_parse and smpol_numa_policy_nodes on any text.
 * A refused text leaves the usage exactly as it was; an accepted one adds a process
 * and no pages above max_node. */
#include <errno.h>

#include "error.h"
#include "fuzz.h"
#include "numa_maps.h"

static struct smpol_numa_usage usage, before;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	char err[SMPOL_ERRLEN] = "";
	struct smpol_bitmap nodes;
	int rc;

	/* a usage with something in it, so that "left as it was" means something */
	smpol_numa_usage_init(&usage);
	rc = smpol_numa_maps_parse("7f0000000000 default anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n",
				  &usage, err, sizeof(err));
	fuzz_check(rc == 0, "the base text is refused: %s", err);
	before = usage;
	rc = smpol_numa_maps_parse(text, &usage, err, sizeof(err));
	if (rc) {
		fuzz_check(rc == -EINVAL && err[0], "rc %d err '%s'", rc, err);
		fuzz_check(!memcmp(&usage, &before, sizeof(usage)), "a refused text changed the usage");
	} else {
		fuzz_check(usage.nprocs == before.nprocs + 1, "nprocs %d", usage.nprocs);
		fuzz_check(usage.max_node >= before.max_node && usage.max_node < SMPOL_MAX_NODES,
			   "max_node %d", usage.max_node);
		for (int n = usage.max_node + 1; n < SMPOL_MAX_NODES; n++)
			fuzz_check(!usage.anon[n] && !usage.file[n], "pages on node %d above max_node %d",
				   n, usage.max_node);
		fuzz_check(usage.npolicies >= 0 && usage.npolicies <= SMPOL_NUMA_POLICIES,
			   "npolicies %d", usage.npolicies);
		for (int i = 1; i < usage.npolicies; i++)
			fuzz_check(usage.policies[i - 1].pages >= usage.policies[i].pages,
				   "policies not sorted by pages");
		for (int i = 0; i < usage.npolicies; i++)
			fuzz_check(memchr(usage.policies[i].policy, '\0', sizeof(usage.policies[i].policy)),
				   "policy %d is not terminated", i);
	}
	rc = smpol_numa_policy_nodes(text, &nodes);
	fuzz_check(rc == 0 || rc == -ENOENT || rc == -EINVAL, "policy rc %d", rc);
	if (!rc)
		fuzz_check(smpol_bitmap_next(&nodes, SMPOL_MAX_NODES) < 0, "policy set a node id >= %d", SMPOL_MAX_NODES);
	free(text);
	return 0;
}
