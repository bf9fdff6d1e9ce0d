/* real.h - the definitions the interposer stands in front of: the next malloc family
 * and mmap in the lookup order (the C library's, or an allocator the program links),
 * found with dlsym(RTLD_NEXT) on first use.
 *
 * dlsym itself may call calloc, and another library's constructor may allocate before
 * ours runs: what the resolving thread allocates meanwhile comes from a small static
 * buffer (real_bootstrap_owns says whether a pointer is from there; it is never given
 * back). Other threads wait until the lookup is done. Missing optional functions
 * (aligned_alloc, memalign, valloc, pvalloc, malloc_usable_size, mmap64) are NULL;
 * the callers derive them from the required ones.
 */
#ifndef SMPOL_INTERPOSE_REAL_H
#define SMPOL_INTERPOSE_REAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct real_functions {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*malloc_usable_size)(void *);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	void *(*mmap64)(void *, size_t, int, int, int, off_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
};

/*
 * real_get - the next definitions, looked up on the first call. NULL only while the
 * calling thread itself is looking them up (dlsym allocating): serve it with
 * real_bootstrap_alloc. A lookup that misses a required function ends the process
 * with a message: nothing could allocate.
 */
const struct real_functions *real_get(void);

/* n bytes (zeroed, 16-byte aligned) from the static buffer, NULL when it is spent. */
void *real_bootstrap_alloc(size_t n);

/* Whether p came from real_bootstrap_alloc; *size = the bytes asked for then. */
bool real_bootstrap_owns(const void *p, size_t *size);

#endif
