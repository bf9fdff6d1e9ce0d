/* place.c - the task's region policy and mbind (see place.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mempolicy.h>

#include "kernel.h"
#include "place.h"
#include "region_env.h"

enum { UNREAD, READING, READ };

static atomic_int state = UNREAD;
static size_t min_bytes;
static size_t page_size = 4096;
static int mode;
static unsigned long mask[SMPOL_MASK_LONGS];

/* Parse the variable once. A thread that finds another one reading places nothing
 * this time rather than wait inside an allocation (parsing may allocate). */
static void load(void)
{
	struct smpol_region_env e;
	const char *v;
	int expected = UNREAD;

	if (!atomic_compare_exchange_strong(&state, &expected, READING))
		return;
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	v = getenv(SMPOL_REGION_ENV);
	if (v && smpol_region_env_parse(v, &e, NULL, 0) == 0 && e.min_bytes <= SIZE_MAX) {
		mode = (e.weighted ? MPOL_WEIGHTED_INTERLEAVE : MPOL_INTERLEAVE) |
		       (e.static_nodes ? MPOL_F_STATIC_NODES : 0);
		smpol_bitmap_to_mask(&e.nodes, mask);
		/* below a page, a range would take pages it shares with smaller neighbours */
		min_bytes = e.min_bytes < page_size ? page_size : (size_t)e.min_bytes;
	}
	atomic_store_explicit(&state, READ, memory_order_release);
}

size_t place_min_bytes(void)
{
	if (atomic_load_explicit(&state, memory_order_acquire) != READ) {
		load();
		if (atomic_load_explicit(&state, memory_order_acquire) != READ)
			return 0;
	}
	return min_bytes;
}

size_t place_page_size(void)
{
	return page_size;
}

int place_range(void *addr, size_t len)
{
	int saved = errno, rc = 0;

	len = (len + page_size - 1) & ~(page_size - 1);
	/* the kernel reads maxnode - 1 bits */
	if (syscall(SYS_mbind, addr, len, mode, mask, (unsigned long)SMPOL_MAX_NODES + 1, 0) < 0)
		rc = -errno;
	errno = saved;
	return rc;
}
