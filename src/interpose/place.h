/* place.h - the task's region policy and giving it to a range of addresses.
 *
 * Read once from SLURM_MEM_INTERLEAVE_REGION_POLICY (region_env.h) by the first call
 * that asks; unset or malformed, nothing is placed and every call only passes through.
 * Placing is one mbind(2) of the page-aligned range with the plan's mode and nodes,
 * before anything touches it: its pages then fault where the plan says and none is
 * ever moved. A refused mbind leaves the range on the task's own policy (the sampler's
 * to place then); errno is kept as the caller had it.
 */
#ifndef SMPOL_INTERPOSE_PLACE_H
#define SMPOL_INTERPOSE_PLACE_H

#include <stddef.h>

/* The smallest allocation placed; 0 = nothing is (no policy for this process). */
size_t place_min_bytes(void);

/* The system's page size. */
size_t place_page_size(void);

/* mbind [addr, addr + len) to the policy (addr page-aligned, len rounded up to pages).
 * 0, or -errno (the range is left as it was). */
int place_range(void *addr, size_t len);

#endif
